/**
 * Families: where the calls go when the best is not the only place worth asking about.
 *
 * A family is the programs that share a niche's non-objective coordinates: the same structure
 * (loop nesting, calls into built-ins, recursion; or whatever the grid's other axes are). A
 * quick gain through a built-in and the first step of a deeper algorithmic change land in
 * different families, so the second keeps its own line of descent even while it is worse
 * than the first.
 *
 * Each family earns credit from what asking about its programs has given: improvements (a
 * child that beat its parent beyond the noise) per answer. A plan draws one sample per family
 * from Beta(prior + improvements, prior + answers without one) and asks about the family with
 * the highest draw (Thompson sampling). So the calls follow the families where they have paid,
 * a family that stops paying (an exhausted side branch) loses them gradually, and a family
 * that has been asked little keeps a chance proportional to its uncertainty: exploration that
 * never falls to zero, and that pays for itself where it has paid before.
 *
 * The prior is the run's own improvement rate, worth PRIOR_ANSWERS answers: a family never
 * asked about is expected to pay like the average family, and is dismissed after a dozen
 * answers that gave nothing, instead of the fifty a uniform prior would cost.
 *
 * Within the chosen family, the parent is its best program whose answers are still new; a
 * worse one of the same family only once the better ones are exhausted (so a slower stepping
 * stone of the family is asked about before the family is given up).
 */
import type { Program } from '../../../shared/evolution';
import type { Rng } from '../rng';
import { EXHAUSTED, FRESH } from './climb';
import type { FamilyRecord } from './ParentSelector';

export type { FamilyRecord };

/** How much the prior weighs, in answers. */
export const PRIOR_ANSWERS = 2;
/** The prior's improvement rate is never taken below this (a run with no improvement yet). */
const MIN_PRIOR_RATE = 0.02;

/** The run's improvement rate per answer, as the families' shared prior. */
export function priorRate(families: readonly FamilyRecord[]): number {
  let answers = 0;
  let improvements = 0;
  for (const family of families) {
    answers += family.answers;
    improvements += family.improvements;
  }
  return Math.min(0.5, Math.max(MIN_PRIOR_RATE, (improvements + 1) / (answers + 2)));
}

/**
 * The family to ask about next: the highest Thompson draw among the families that still have
 * a program worth asking about (novelty ≥ EXHAUSTED), with that program; undefined when none
 * has. The best's family (`bestFamily`) offers `climbParent` when one is given (the climb is
 * still on the top), else its own best fresh program.
 */
export function chooseFamily(
  families: readonly FamilyRecord[],
  novelty: (id: string) => number,
  rng: Rng,
  bestFamily?: string,
  climbParent?: Program,
): { family: FamilyRecord; parent: Program } | undefined {
  const rate = priorRate(families);
  let chosen: { family: FamilyRecord; parent: Program } | undefined;
  let highest = -1;
  for (const family of families) {
    const parent = family.key === bestFamily && climbParent ? climbParent : familyParent(family, novelty);
    if (!parent) continue;
    const failures = Math.max(0, family.answers - family.improvements);
    const draw = rng.beta(PRIOR_ANSWERS * rate + family.improvements, PRIOR_ANSWERS * (1 - rate) + failures);
    if (draw > highest) {
      highest = draw;
      chosen = { family, parent };
    }
  }
  return chosen;
}

/**
 * The program of a family to ask about: the best whose answers are mostly new (FRESH), else
 * the best not exhausted; undefined when every member is exhausted.
 */
export function familyParent(family: FamilyRecord, novelty: (id: string) => number): Program | undefined {
  return family.members.find((program) => novelty(program.id) >= FRESH) ?? family.members.find((program) => novelty(program.id) >= EXHAUSTED);
}
