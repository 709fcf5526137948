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
 * child that beat its parent beyond the noise) per answer, each worth the doublings it gained
 * up to one when the objective compares by factor (policy 9, RunState.improvementWeight): the
 * small fixes of an exhausted side branch must not outweigh the steps of a deeper chain. The answers count in the family
 * they were asked about; an improvement counts in the family where the child landed (the run
 * says which, RunState.familyRecords), so a step that changes the structure of the best's
 * lineage takes the credit along to where the lineage goes on. A plan draws one sample per
 * family from Beta(prior + improvements, prior + answers without one) and asks about the
 * family with the highest draw (Thompson sampling). So the calls follow the families where
 * they have paid, a family that stops paying (an exhausted side branch) loses them gradually,
 * and a family that has been asked little keeps a chance proportional to its uncertainty:
 * exploration that never falls to zero, and that pays for itself where it has paid before.
 *
 * The prior is the run's own improvement rate, worth PRIOR_ANSWERS answers: a family never
 * asked about is expected to pay like the average family, and is dismissed after a dozen
 * answers that gave nothing, instead of the fifty a uniform prior would cost.
 *
 * A first idea counts too, for IDEA_CREDIT of an improvement: a correct child whose edit no
 * program of the run had made before (not the same step taken again on another variant). The
 * first steps of a deeper change often gain nothing by themselves (a valley); they are new
 * ideas all the same, and the family they come from keeps earning calls while it has them. A
 * first idea of another structure than its parent's founds (or joins) another family, which
 * starts with the same credit (from policy 8, RunState.familyRecords): from the prior alone, a
 * stepping stone's family would be dismissed after a dozen answers, fewer than the edits that
 * apply to it.
 *
 * Within the chosen family, the parent is its best first idea whose answers are still new,
 * else its best program whose answers are still new, else the best not exhausted. So a slower
 * stepping stone (a first idea) is asked about before the neutral variants of a better program,
 * and the family is given up only once every program of it is exhausted.
 */
import type { Program } from '../../../shared/evolution';
import type { Rng } from '../rng';
import { EXHAUSTED, FRESH } from './climb';
import type { FamilyRecord } from './ParentSelector';

export type { FamilyRecord };

/** What a first idea is worth to its family's credit, in improvements. */
export const IDEA_CREDIT = 0.5;
/** How much the prior weighs, in answers. */
export const PRIOR_ANSWERS = 2;
/** The prior's improvement rate is never taken below this (a run with no improvement yet). */
const MIN_PRIOR_RATE = 0.02;

/** What a family's answers have earned: improvements, and first ideas at IDEA_CREDIT. */
function successes(family: FamilyRecord): number {
  return family.improvements + IDEA_CREDIT * family.ideas;
}

/** The run's improvement rate per answer, as the families' shared prior. */
export function priorRate(families: readonly FamilyRecord[]): number {
  let answers = 0;
  let improvements = 0;
  for (const family of families) {
    answers += family.answers;
    improvements += successes(family);
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
  firstIdea: (id: string) => boolean = () => false,
): { family: FamilyRecord; parent: Program } | undefined {
  const rate = priorRate(families);
  let chosen: { family: FamilyRecord; parent: Program } | undefined;
  let highest = -1;
  for (const family of families) {
    const parent = family.key === bestFamily && climbParent ? climbParent : familyParent(family, novelty, firstIdea);
    if (!parent) continue;
    const earned = successes(family);
    const failures = Math.max(0, family.answers - earned);
    const draw = rng.beta(PRIOR_ANSWERS * rate + earned, PRIOR_ANSWERS * (1 - rate) + failures);
    if (draw > highest) {
      highest = draw;
      chosen = { family, parent };
    }
  }
  return chosen;
}

/**
 * The program of a family to ask about: its best first idea whose answers are mostly new
 * (FRESH), else its best program whose answers are mostly new, else the best not exhausted;
 * undefined when every member is exhausted.
 */
export function familyParent(family: FamilyRecord, novelty: (id: string) => number, firstIdea: (id: string) => boolean = () => false): Program | undefined {
  return (
    family.members.find((program) => firstIdea(program.id) && novelty(program.id) >= FRESH) ??
    family.members.find((program) => novelty(program.id) >= FRESH) ??
    family.members.find((program) => novelty(program.id) >= EXHAUSTED)
  );
}
