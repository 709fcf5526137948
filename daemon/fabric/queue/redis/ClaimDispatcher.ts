/**
 * Coalesces the concurrent claims of one queue instance that accept the same tasks. A worker
 * with N free slots makes N claim() calls; each used to block in an XREAD of its own, and every
 * new entry woke all of them to run the claim script, all but one for nothing (a thundering
 * herd: about N script calls per task). Here they wait in one FIFO line: one blocking read
 * watches the streams for all of them, and one script call leases up to one task per waiter,
 * each leased to that waiter's consumer name (cancels are routed by it), so a worker's free
 * slots are filled by one call.
 *
 * A waiter is answered null once its blockMs has passed and a claim made after that found
 * nothing (as a lone claim() was), or at once when its signal aborts while it is not part of
 * a script call in flight. A waiter that is part of one keeps what the call leased for it
 * (the lease has its claimer), exactly as a single claim whose signal aborted mid-call did.
 */
import type { Claim } from '../TaskQueue';

/** A task the claim script leased to `consumer`. */
export interface LeasedEntry {
  entryId: string;
  taskJson: string;
  attempts: number;
  taskId: string;
}

/** Where the streams stand when the script found fewer tasks than consumers. */
export interface IdleStreams {
  /** When the next retry falls due or lease runs out (-1: none). */
  wakeInMs: number;
  /** stream1, lastDeliveredId1, stream2, ...: what the blocking read watches. */
  streamsAndIds: string[];
}

export interface ClaimBatch {
  /** The k-th leased to the k-th consumer asked for. */
  leased: LeasedEntry[];
  /** Present when the streams held fewer tasks than consumers. */
  idle?: IdleStreams;
  /** When the call was sent (leases run from then). */
  sentAt: number;
}

/** What the dispatcher needs of its queue. */
export interface ClaimPort {
  /** One claim script call leasing up to one task to each consumer, in order. */
  claimBatch(consumers: readonly string[]): Promise<ClaimBatch>;
  /** A leased entry as a Claim, or why it is no valid task (the queue dead-letters it). */
  toClaim(entry: LeasedEntry, consumer: string, sentAt: number): Claim | { invalid: string };
  /** Dead-letters a leased entry that holds no valid task. */
  bury(entry: LeasedEntry, reason: string): Promise<void>;
  /** Blocks until one of the streams gets an entry past its id, `waitMs` passes or `signal` aborts. */
  waitForEntry(streamsAndIds: string[], waitMs: number, signal: AbortSignal): Promise<void>;
  isClosed(): boolean;
}

/** Consumers leased to in one script call at most (a pool has one claim per slot). */
const MAX_BATCH = 64;

interface Waiter {
  consumer: string;
  /** When it joined the line: a script call sent after that asked for it, or for one behind it. */
  joinedAt: number;
  giveUpAt: number;
  signal: AbortSignal | undefined;
  /** Part of the script call in flight: it is answered by that call's outcome. */
  inCall: boolean;
  settle(outcome: Claim | null | Error): void;
}

export class ClaimDispatcher {
  private readonly waiting: Waiter[] = [];
  private running = false;
  /** The blocking read in progress: when it ends by itself, and how to end it sooner. */
  private reading: { endsAt: number; stop: AbortController } | undefined;

  constructor(
    private readonly port: ClaimPort,
    private readonly maxBlockMs: number,
    /** Called when the line is empty and nothing runs: the queue may forget this dispatcher. */
    private readonly onIdle: () => void = () => undefined,
  ) {}

  get idle(): boolean {
    return !this.running && this.waiting.length === 0;
  }

  claim(consumer: string, blockMs: number, signal?: AbortSignal): Promise<Claim | null> {
    if (signal?.aborted || this.port.isClosed()) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (!waiter.inCall) waiter.settle(null);
      };
      const now = Date.now();
      const waiter: Waiter = {
        consumer,
        joinedAt: now,
        giveUpAt: now + Math.max(0, blockMs),
        signal,
        inCall: false,
        settle: (outcome) => {
          const index = this.waiting.indexOf(waiter);
          if (index < 0) return;
          this.waiting.splice(index, 1);
          signal?.removeEventListener('abort', onAbort);
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      // A waiter that would give up before the read in progress ends gets its claim made now.
      if (this.reading && waiter.giveUpAt < this.reading.endsAt) this.reading.stop.abort();
      if (!this.running) {
        // After the current microtasks: the claims a pool makes together share the first call.
        this.running = true;
        process.nextTick(() => void this.serve());
      }
    });
  }

  private async serve(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        if (this.port.isClosed()) {
          for (const waiter of [...this.waiting]) waiter.settle(null);
          break;
        }
        const batch = this.nextBatch();
        for (const waiter of batch) waiter.inCall = true;
        let reply: ClaimBatch;
        try {
          reply = await this.port.claimBatch(batch.map((waiter) => waiter.consumer));
        } finally {
          for (const waiter of batch) waiter.inCall = false;
        }
        await this.handOut(batch, reply);
        if (!reply.idle) continue;
        // The streams held fewer tasks than this call asked for, so a claim for any waiter
        // that was already in line when it was sent (in the call or behind it, beyond
        // MAX_BATCH) would have found nothing either: every such one that is due is answered.
        const now = Date.now();
        for (const waiter of [...this.waiting]) {
          if ((waiter.giveUpAt <= now && waiter.joinedAt <= reply.sentAt) || waiter.signal?.aborted) waiter.settle(null);
        }
        if (this.waiting.length === 0) break;
        // One that came while the call was out and is already due gets a call of its own now;
        // the others wait: the read starts from where the streams stood, so an entry added
        // since then ends it at once.
        if (this.waiting.some((waiter) => waiter.giveUpAt <= now)) continue;
        await this.waitForEntry(reply.idle, now);
      }
    } catch (error) {
      // Redis failed under the call or the read: every claim waiting here says so (the
      // queue turns that into null for a closing queue or an aborted claim).
      for (const waiter of [...this.waiting]) waiter.settle(error as Error);
    } finally {
      this.running = false;
      if (this.waiting.length === 0) this.onIdle();
      else void this.serve();
    }
  }

  /**
   * The waiters the next script call leases for: those already due first (a due claim gets
   * its answer from the next call, wherever it stands in a line longer than MAX_BATCH), then
   * the rest in the order they came.
   */
  private nextBatch(): Waiter[] {
    if (this.waiting.length <= MAX_BATCH) return [...this.waiting];
    const now = Date.now();
    const due = this.waiting.filter((waiter) => waiter.giveUpAt <= now);
    const rest = this.waiting.filter((waiter) => waiter.giveUpAt > now);
    return [...due, ...rest].slice(0, MAX_BATCH);
  }

  /** Gives each leased task to the waiter it was leased for; invalid ones are dead-lettered. */
  private async handOut(batch: Waiter[], reply: ClaimBatch): Promise<void> {
    const invalid: { entry: LeasedEntry; reason: string }[] = [];
    reply.leased.forEach((entry, index) => {
      const waiter = batch[index]!;
      const claim = this.port.toClaim(entry, waiter.consumer, reply.sentAt);
      if ('invalid' in claim) invalid.push({ entry, reason: claim.invalid });
      else waiter.settle(claim);
    });
    for (const { entry, reason } of invalid) await this.port.bury(entry, reason);
  }

  private async waitForEntry(idle: IdleStreams, now: number): Promise<void> {
    let until = Infinity;
    for (const waiter of this.waiting) until = Math.min(until, waiter.giveUpAt);
    const waitMs = Math.min(until - now, this.maxBlockMs, idle.wakeInMs >= 0 ? idle.wakeInMs + 5 : this.maxBlockMs);
    const stop = new AbortController();
    this.reading = { endsAt: now + waitMs, stop };
    try {
      await this.port.waitForEntry(idle.streamsAndIds, waitMs, stop.signal);
    } finally {
      this.reading = undefined;
    }
  }
}
