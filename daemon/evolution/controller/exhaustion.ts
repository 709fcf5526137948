/**
 * When the model has nothing new to offer: the calls of the last window (windowCalls) brought (almost)
 * only children already known (a repeat of an answer, no change, a patch that did not apply)
 * while the best did not move. Every further call is then paid for a repeat: the run ends,
 * and says how much of its call budget that saved (unless the user asked to spend it all).
 *
 * It replaces a count of proposals in a row that gave nothing: one new child among fifty
 * repeats reset it, so a run whose model repeats itself 95% of the time kept paying to the end.
 */

/** Calls judged together, at least. */
export const WINDOW_CALLS = 40;
/** Rounds of concurrent calls a window spans, at least (see windowCalls). */
export const WINDOW_ROUNDS = 4;

/**
 * The calls judged together in a run that has up to `inFlight` calls out at once: WINDOW_CALLS,
 * or WINDOW_ROUNDS rounds of concurrent calls when that is more. Calls out at the same time
 * were all planned before any of their answers came back: 40 calls made by 32 workers at once
 * are one look at the archive, not forty, and they crowd the same few parents. Judged on
 * 40 calls, bad_sort at W = 32 (bench:p1) stopped as exhausted at 3% of its best reachable,
 * one round of answers after its best last moved. Runs with a few calls out keep 40.
 */
export function windowCalls(inFlight: number): number {
  return Math.max(WINDOW_CALLS, WINDOW_ROUNDS * inFlight);
}
/** Share of the window's calls that brought nothing new at which the model counts as exhausted. */
export const EXHAUSTED_SHARE = 0.85;

export class ExhaustionWatch {
  /** The last calls, oldest first: whether each brought a new child. */
  private readonly recent: boolean[] = [];
  private barren = 0;

  constructor(private readonly window = WINDOW_CALLS) {}

  /** A proposal came in: its `calls` calls brought a new child to evaluate, or nothing new. */
  noteProposal(calls: number, brewedNew: boolean): void {
    for (let call = 0; call < calls; call++) {
      this.recent.push(brewedNew);
      if (!brewedNew) this.barren++;
      if (this.recent.length > this.window && !this.recent.shift()!) this.barren--;
    }
  }

  /** The best improved: what came before says nothing about the model's answers now. */
  noteNewBest(): void {
    this.recent.length = 0;
    this.barren = 0;
  }

  /** Whether the whole window is in and almost all of it brought nothing new. */
  exhausted(): boolean {
    return this.recent.length >= this.window && this.barren >= EXHAUSTED_SHARE * this.window;
  }

  /** What the window saw, for the stop line. */
  describe(): string {
    return `${this.barren} of the last ${this.recent.length} calls brought nothing new (repeats of known children, no change, or patches that did not apply) and the best did not move`;
  }
}
