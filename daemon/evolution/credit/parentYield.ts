/**
 * What asking about each parent has given so far: how many answers, and which children they
 * proposed (by normal form, so a comment-only variant is the same child). A model asked again
 * about the same program tends to repeat itself: once most answers about a parent are
 * children it already proposed, another call there mostly buys a repeat, and the calls are
 * better spent on another parent (a close relative, the next niche).
 *
 * `novelty(parent)` estimates the chance that the next answer about the parent is a child not
 * seen from it before: the Good-Turing estimate of the unseen share (children seen exactly
 * once, over answers), smoothed so that a parent never asked scores 1, and counting the
 * answers still in flight as if they were repeats (so concurrent jobs spread over parents).
 */
import * as z from 'zod';

const ParentRecordSchema = z.object({
  answers: z.number().int().nonnegative(),
  /** How often each child (its normal-form id) was proposed from this parent. */
  children: z.record(z.string(), z.number().int().positive()),
  /** Children that beat this parent beyond the run's measurement noise. */
  improvements: z.number().int().nonnegative(),
  /** Correct children whose edit was made for the first time in the run (absent before policy 6). */
  ideas: z.number().int().nonnegative().optional(),
});
export const ParentYieldStateSchema = z.record(z.string(), ParentRecordSchema);
export type ParentYieldState = z.infer<typeof ParentYieldStateSchema>;

interface ParentRecord {
  answers: number;
  children: Map<string, number>;
  /** Children proposed exactly once: kept in step so novelty() is O(1). */
  singles: number;
  improvements: number;
  ideas: number;
}

export class ParentYield {
  private readonly parents = new Map<string, ParentRecord>();

  constructor(state?: unknown) {
    if (state === undefined) return;
    for (const [parent, record] of Object.entries(ParentYieldStateSchema.parse(state))) {
      const children = new Map(Object.entries(record.children));
      this.parents.set(parent, { answers: record.answers, children, singles: [...children.values()].filter((count) => count === 1).length, improvements: record.improvements, ideas: record.ideas ?? 0 });
    }
  }

  /**
   * An answer about `parent` proposed `child` (a normal-form id; the parent's own for an
   * unchanged program). `knownElsewhere`: the run already had that child from another parent
   * (two independent edits made in the other order, or an edit that undoes the parent's own).
   * Such an answer buys nothing new either, so it counts as a repeat: the novelty then
   * estimates the chance that the next answer is new to the run, not only to this parent.
   */
  noteAnswer(parent: string, child: string, knownElsewhere = false): void {
    const record = this.record(parent);
    record.answers++;
    const before = record.children.get(child) ?? 0;
    const after = before === 0 && knownElsewhere ? 2 : before + 1;
    record.children.set(child, after);
    if (after === 1) record.singles++;
    else if (before === 1) record.singles--;
  }

  noteImprovement(parent: string): void {
    this.record(parent).improvements++;
  }

  /** A correct child of `parent` made an edit no program of the run had made before. */
  noteIdea(parent: string): void {
    this.record(parent).ideas++;
  }

  /** Chance that the next answer about `parent` is a child not proposed from it before. */
  novelty(parent: string, pending = 0): number {
    const record = this.parents.get(parent);
    return ((record?.singles ?? 0) + 1) / ((record?.answers ?? 0) + pending + 1);
  }

  answers(parent: string): number {
    return this.parents.get(parent)?.answers ?? 0;
  }

  /** Distinct children proposed from `parent`. */
  distinct(parent: string): number {
    return this.parents.get(parent)?.children.size ?? 0;
  }

  /** Every parent asked about, with its answers and improvements (in the order first asked). */
  *records(): IterableIterator<[string, { answers: number; improvements: number; ideas: number }]> {
    for (const [parent, record] of this.parents) yield [parent, { answers: record.answers, improvements: record.improvements, ideas: record.ideas }];
  }

  improvements(parent: string): number {
    return this.parents.get(parent)?.improvements ?? 0;
  }

  state(): ParentYieldState {
    return Object.fromEntries([...this.parents].map(([parent, record]) => [parent, { answers: record.answers, children: Object.fromEntries(record.children), improvements: record.improvements, ...(record.ideas > 0 && { ideas: record.ideas }) }]));
  }

  private record(parent: string): ParentRecord {
    let record = this.parents.get(parent);
    if (!record) this.parents.set(parent, (record = { answers: 0, children: new Map(), singles: 0, improvements: 0, ideas: 0 }));
    return record;
  }
}
