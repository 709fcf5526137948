/**
 * Hill-climbing that follows the yield of each parent. When improvements are rare, the calls
 * that pay are on the best program and its close relatives (programs tied with it within the
 * measurement noise): they get the calls while their answers are still new. A parent whose
 * answers have become mostly repeats of children it already gave is exhausted: the calls move
 * to its fresher relatives, and when the whole top is exhausted, down the ranking to the best
 * program whose answers are mostly new (an ancestor, a rival in another niche), or failing
 * that to the best one not exhausted. Of the best and its relatives, the shortest (in
 * non-blank lines) are asked first: parsimony among ties.
 */
import type { Program } from '../../../shared/evolution';
import { isBlank, toDocument } from '../../../shared/lines';
import { isSelectable } from './archiveQueries';
import type { YieldView } from './ParentSelector';

/**
 * Below this novelty a parent counts as exhausted. The novelty (parentYield.ts, Good-Turing)
 * estimates the share of the model's answers about the parent not seen yet. It does not fall
 * to zero on a parent whose edits have all come up: answers that carry two edits are new
 * pairs almost every time (one answer in seven, with the honest bench model), so they keep
 * the singles count, and the novelty, up. Simulated for a parent whose model knows 12 edits
 * (3 of them comment-only), with 15% two-edit answers: the novelty is 0.29 after 20 answers,
 * 0.19 after 30 and 0.11 after 50, while the chance that one given edit has still not come
 * up is 15% after 20 answers and 6% after 30. So 0.2 leaves after ~30 answers, when another
 * call there would find a missed improving edit about one time in twenty and mostly buys a
 * repeat; 0.1 kept the best's calls for ~55 answers (measured: 55 jobs on one exhausted best
 * of slow_fib_js, 2.2 calls per evaluation over the run).
 */
export const EXHAUSTED = 0.2;

/**
 * At or above this novelty a program below the top counts as fresh: at least every other
 * answer about it is still new. A descent goes to the best-ranked fresh program, and only when
 * none is left to the best-ranked one that is not exhausted.
 */
export const FRESH = 0.5;

/**
 * The parent a climbing step should ask about (see the module comment), and whether it is
 * on the top (the best or a close relative still yielding) or the climb had to descend
 * because the top is exhausted. `best` is the selectable best.
 */
export function climbingParent(best: Program, yields: YieldView, island?: number): { parent: Program; descended: boolean } {
  const top = yields.top(island).filter(isSelectable);
  const tied = [best, ...top.filter((program) => program.id !== best.id && yields.tied(program.objective as number, best.objective as number))];
  // Parsimony: of programs equal within the noise, the shortest are climbed from first. The
  // leftovers of a partial idea (a helper nothing calls any more, a check made redundant) cost
  // nothing measurable, but they are where the next edit no longer fits; a search that does
  // not prefer the shorter of two ties lets such bloat pile up along its best lineage.
  const shortest = Math.min(...tied.map(codeLines));
  const band = tied.filter((program) => codeLines(program) <= shortest);
  for (const group of [band, tied]) {
    const freshest = freshestOf(group, yields);
    if (yields.novelty(freshest.id) >= EXHAUSTED) return { parent: freshest, descended: false };
  }
  // Down the ranking, a fresh program first: of a descent's calls, only the new answers can
  // pay, and a program half-exhausted by earlier descents (an ancestor of the best, typically)
  // buys a new child per 2-5 calls where one never asked buys one per call.
  const below = top.filter((program) => !tied.some((relative) => relative.id === program.id));
  const next = below.find((program) => yields.novelty(program.id) >= FRESH) ?? below.find((program) => yields.novelty(program.id) >= EXHAUSTED);
  return { parent: next ?? freshestOf([...band, ...top], yields), descended: true };
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

/** Non-blank lines of a program: what parsimony compares (layout and blank lines do not count). */
function codeLines(program: Program): number {
  let lines = 0;
  for (const line of toDocument(program.code).lines) if (!isBlank(line)) lines++;
  return lines;
}
