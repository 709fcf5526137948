/**
 * The title of the proposal a run ends with (its best reduced to the smallest diff from the
 * seed): the gain with both programs' figures, the checks passed, the size of the diff.
 */
import * as assert from 'node:assert/strict';
import type { BestReduction } from '../../shared/evolution';
import { reviewTitle } from '../../extension/evolve/reviewTitle';

const REDUCTION = {
  bestId: 'b'.repeat(64),
  bestObjective: 2.7,
  bestChangedLines: 14,
  changes: 4,
  evaluations: 6,
  reduced: { id: 'r'.repeat(64), objective: 2.6, changedLines: 3, measured: [2.6, 2.65], checks: { inputs_checked: 120, correctness_inputs: 20 } },
} satisfies BestReduction;

describe('the review title of a reduced best', () => {
  it('says the speedup of both programs, the reduced one\'s measurements, the checks it passed and the size of the diff', () => {
    assert.equal(
      reviewTitle({ objectiveName: 'speedup', direction: 'maximize', seedObjective: 1 }, REDUCTION),
      "speedup 2.6x with 3 changed lines (measured 2.60x, 2.65x); 2.7x with all 14 · passed the evaluator's checks on both measurements: inputs_checked 120, correctness_inputs 20",
    );
  });

  it('gives factors over the seed in the objective\'s direction, and values when there is no factor', () => {
    const minimize = { ...REDUCTION, bestObjective: 10, reduced: { ...REDUCTION.reduced, objective: 20, measured: [20], checks: {} } };
    assert.equal(
      reviewTitle({ objectiveName: 'ms', direction: 'minimize', seedObjective: 100 }, minimize),
      "ms 5.0x with 3 changed lines (measured 5.00x); 10.0x with all 14 · passed the evaluator's checks on its measurement",
    );
    const score = { ...REDUCTION, bestObjective: 0.93, reduced: { ...REDUCTION.reduced, objective: 0.91, measured: [0.91, 0.92, 0.915], changedLines: 1, checks: { tests_passed: 12 } } };
    assert.equal(
      reviewTitle({ objectiveName: 'score', direction: 'maximize', seedObjective: -1 }, score),
      "score 0.910 with 1 changed line (measured 0.910, 0.920, 0.915); 0.930 with all 14 · passed the evaluator's checks on all 3 measurements: tests_passed 12",
    );
    // A score above a positive seed is still a score: its value in its unit, never '1.1x'.
    const percent = { ...score, bestObjective: 67.7, reduced: { ...score.reduced, objective: 66.9, measured: [66.9, 67.2] } };
    assert.equal(
      reviewTitle({ objectiveName: 'score', direction: 'maximize', seedObjective: 61.5, objectiveUnit: '%' }, percent),
      "score 66.90% with 1 changed line (measured 66.900%, 67.200%); 67.70% with all 14 · passed the evaluator's checks on both measurements: tests_passed 12",
    );
  });
});
