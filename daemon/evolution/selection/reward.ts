/**
 * How a child's outcome is scored for the selectors that learn per arm. Improving the parent
 * is progress; improving the run's best is what the run is for, so it earns a bonus on top.
 * A failed child and a child no better than its parent earn nothing.
 */
import type { SelectionOutcome } from './ParentSelector';

export const DEFAULT_BEST_BONUS = 1;

/** 0 (failed or not better), 1 (improved its parent), 1 + bestBonus (improved the best). */
export function improvementReward(outcome: SelectionOutcome, bestBonus = DEFAULT_BEST_BONUS): number {
  if (outcome.failed) return 0;
  return (outcome.improvedParent || outcome.improvedBest ? 1 : 0) + (outcome.improvedBest ? bestBonus : 0);
}

/** The child made progress: it beat its parent or the best. */
export function isImprovement(outcome: SelectionOutcome): boolean {
  return !outcome.failed && (outcome.improvedParent || outcome.improvedBest);
}
