/**
 * The title of the proposal a run ends with, its best reduced to the smallest diff from the
 * seed that keeps the gain: what a reviewer needs before opening it. The gain with both
 * programs' figures (the reduced one's measurements, the full best's), what the evaluator
 * checked on every measurement, and the size of the diff. vscode-free, so it is unit-tested.
 */
import type { BestReduction, RunProgress } from '../../shared/evolution';
import { comparesByFactor, objectiveValue } from '../../shared/objectiveText';
import { measuredGain } from '../../shared/gainText';

type Run = Pick<RunProgress, 'objectiveName' | 'direction' | 'seedObjective' | 'objectiveUnit'>;

/**
 * e.g. "speedup 2.6x with 3 changed lines (measured 2.60x, 2.65x); 2.7x with all 14 · passed
 * the evaluator's checks on both measurements: inputs_checked 120, correctness_inputs 20".
 */
export function reviewTitle(run: Run, reduction: BestReduction & { reduced: NonNullable<BestReduction['reduced']> }): string {
  const { reduced } = reduction;
  const terms = { name: run.objectiveName, direction: run.direction, unit: run.objectiveUnit };
  const factor = (value: number): number | null => {
    const seed = run.seedObjective;
    // A score reads as its value in its unit (67.688%), not as a factor over the seed.
    if (!comparesByFactor(terms)) return null;
    if (seed === null || seed <= 0 || value <= 0) return null;
    return run.direction === 'maximize' ? value / seed : seed / value;
  };
  const figure = (value: number, digits: number): string => {
    const times = factor(value);
    return times !== null ? `${times.toFixed(digits)}x` : terms.unit !== undefined ? objectiveValue(value, terms, digits + 1) : formatValue(value);
  };
  const lines = (n: number): string => `${n} changed line${n === 1 ? '' : 's'}`;
  const measured = reduced.measured.map((value) => figure(value, 2)).join(', ');
  const count = reduced.measured.length;
  const on = count === 1 ? 'its measurement' : count === 2 ? 'both measurements' : `all ${count} measurements`;
  const checks = Object.entries(reduced.checks).map(([name, value]) => `${name} ${value}`);
  return (
    `${run.objectiveName} ${figure(reduced.objective, 1)} with ${lines(reduced.changedLines)} (measured ${measured}); ` +
    `${figure(reduction.bestObjective, 1)} with all ${reduction.bestChangedLines} · ` +
    `passed the evaluator's checks on ${on}${checks.length > 0 ? `: ${checks.join(', ')}` : ''}` +
    (reduced.confirmation ? ` · ${measuredTitle(reduced.confirmation)}` : '')
  );
}

/** The measured interval a proposal's title ends with: "measured again against the seed: 1.42x [95% CI 1.30-1.55]". */
export function measuredTitle(confirmation: Parameters<typeof measuredGain>[0]): string {
  return `measured again against the seed: ${measuredGain(confirmation)}`;
}

function formatValue(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 1 ? value.toFixed(2) : value.toPrecision(3);
}
