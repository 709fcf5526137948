/**
 * Gathers the calls made in one turn of the event loop into one batch call. A claim batch
 * hands several tasks out at once, so their acks (and the follow-up enqueues of whoever
 * waited for them) come in the same turn: one script call for all of them costs Redis one
 * script run instead of several and the client one command to encode and decode.
 * Each caller gets its own item's answer; a failed batch call fails every call in it.
 */
export class CallCoalescer<Item, Answer> {
  private pending: { item: Item; resolve: (answer: Answer) => void; reject: (error: unknown) => void }[] = [];

  constructor(
    /** Answers the items in order, one answer per item. */
    private readonly runBatch: (items: Item[]) => Promise<Answer[]>,
    /** A batch's size (bytes, say): a batch is closed before it would pass `maxWeight`. */
    private readonly weigh: (item: Item) => number = () => 1,
    private readonly maxWeight = 256,
  ) {}

  call(item: Item): Promise<Answer> {
    return new Promise((resolve, reject) => {
      // After the current microtasks: every call this turn makes is in the batch.
      if (this.pending.length === 0) process.nextTick(() => this.flush());
      this.pending.push({ item, resolve, reject });
    });
  }

  private flush(): void {
    const calls = this.pending;
    this.pending = [];
    let batch: typeof calls = [];
    let weight = 0;
    for (const call of calls) {
      const itemWeight = this.weigh(call.item);
      if (batch.length > 0 && weight + itemWeight > this.maxWeight) {
        this.send(batch);
        batch = [];
        weight = 0;
      }
      batch.push(call);
      weight += itemWeight;
    }
    if (batch.length > 0) this.send(batch);
  }

  private send(batch: typeof this.pending): void {
    this.runBatch(batch.map((call) => call.item)).then(
      (answers) => batch.forEach((call, index) => call.resolve(answers[index]!)),
      (error: unknown) => batch.forEach((call) => call.reject(error)),
    );
  }
}
