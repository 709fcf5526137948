/**
 * Hill-climbing that follows the yield of each parent. When improvements are rare, the calls
 * that pay are on the best program and its close relatives (programs tied with it within the
 * measurement noise): they get the calls while their answers are still new. A parent whose
 * answers have become mostly repeats of children it already gave is exhausted: the calls move
 * to its fresher relatives, and when the whole top is exhausted, down the ranking to the best
 * program whose answers are still new (an ancestor, a rival in another niche).
 */
import type { Program } from '../../../shared/evolution';
import { isSelectable } from './archiveQueries';
import type { YieldView } from './ParentSelector';

/**
 * Below this novelty a parent counts as exhausted: with the Good-Turing estimate of
 * parentYield.ts, that is after ~15-25 answers about a parent whose model knows ~10-14 edits.
 */
export const EXHAUSTED = 0.25;

/**
 * The parent a climbing step should ask about (see the module comment), and whether it is
 * on the top (the best or a close relative still yielding) or the climb had to descend
 * because the top is exhausted. `best` is the selectable best.
 */
export function climbingParent(best: Program, yields: YieldView, island?: number): { parent: Program; descended: boolean } {
  const top = yields.top(island).filter(isSelectable);
  const band = [best, ...top.filter((program) => program.id !== best.id && yields.tied(program.objective as number, best.objective as number))];
  const freshest = freshestOf(band, yields);
  if (yields.novelty(freshest.id) >= EXHAUSTED) return { parent: freshest, descended: false };
  const inBand = new Set(band.map((program) => program.id));
  const next = top.find((program) => !inBand.has(program.id) && yields.novelty(program.id) >= EXHAUSTED);
  return { parent: next ?? freshestOf([freshest, ...top], yields), descended: true };
}

/** The program whose next answer is most likely new; the earlier one (better ranked) on a tie. */
function freshestOf(programs: readonly Program[], yields: YieldView): Program {
  let chosen = programs[0]!;
  let novelty = yields.novelty(chosen.id);
  for (const program of programs.slice(1)) {
    const candidate = yields.novelty(program.id);
    if (candidate > novelty) {
      chosen = program;
      novelty = candidate;
    }
  }
  return chosen;
}
