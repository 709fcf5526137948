/**
 * The interval on "how much better is the best than the seed" from paired re-measurements
 * (seed and best measured one after the other with the same evaluation seed), and the rule
 * that says when to stop measuring. Pure: the run, the reduction and the tests share it.
 *
 * The statistic, per objective:
 * - A factor objective (a speedup, a time: shared/objectiveText.ts `comparesByFactor`) whose
 *   values are all positive: a Student t interval on the mean of the paired log-ratios
 *   ln(best/seed) (ln(seed/best) when minimized), reported as a ratio exp(mean ± t·sd/√n).
 *   Timings are multiplicative and skewed; their log is close to symmetric, and pairing
 *   cancels the drift of the machine between pairs (the seed and the best share each pair's
 *   conditions and inputs). bad_sort's speedup is already a ratio to a reference timed inside
 *   the same evaluation; its log-ratio between two programs is a difference of two such logs.
 * - A score (compared by difference), or a factor objective with a value ≤ 0: the same t
 *   interval on the paired differences (best − seed, seed − best when minimized).
 * - Zero spread (every pair gives the same difference: a deterministic objective such as a
 *   count of tests passed): no interval to speak of; a gain only when the strict improvement
 *   reproduced on every pair.
 */

/** Two-sided 95% quantiles of Student's t, by degrees of freedom 1..30. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06,
  2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The 97.5% quantile of Student's t with `df` degrees of freedom (table to 30, then the Cornish-Fisher expansion around the normal's 1.96). */
export function tQuantile975(df: number): number {
  if (!Number.isInteger(df) || df < 1) throw new Error(`degrees of freedom must be a whole number ≥ 1, not ${df}`);
  if (df <= T975.length) return T975[df - 1]!;
  const z = 1.959964;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2);
}

export type Direction = 'maximize' | 'minimize';

/** One pair: the seed's and the best's objective measured back to back with the same evaluation seed. */
export interface MeasuredPair {
  seed: number;
  best: number;
}

export interface GainInterval {
  /** `ratio`: how many times better (1 = no change); `difference`: by how much (0 = no change). */
  measure: 'ratio' | 'difference';
  /** The point estimate: the geometric mean ratio, or the mean difference; oriented so that more is better. */
  value: number;
  low: number;
  high: number;
  pairs: number;
  /** Every pair gave the same difference (a deterministic objective). */
  zeroSpread: boolean;
}

/** Paired differences on the scale the interval is taken on, oriented so that positive is better. */
function pairedDifferences(pairs: readonly MeasuredPair[], direction: Direction, measure: 'ratio' | 'difference'): number[] {
  const sign = direction === 'maximize' ? 1 : -1;
  return pairs.map((pair) => sign * (measure === 'ratio' ? Math.log(pair.best) - Math.log(pair.seed) : pair.best - pair.seed));
}

/** Which scale to use: ratio for a factor objective whose every measured value is positive. */
export function measureFor(pairs: readonly MeasuredPair[], byFactor: boolean): 'ratio' | 'difference' {
  return byFactor && pairs.every((pair) => pair.seed > 0 && pair.best > 0) ? 'ratio' : 'difference';
}

/** The 95% interval on the improvement from at least two pairs. */
export function gainInterval(pairs: readonly MeasuredPair[], direction: Direction, byFactor: boolean): GainInterval {
  if (pairs.length < 2) throw new Error(`an interval needs at least 2 pairs, not ${pairs.length}`);
  const measure = measureFor(pairs, byFactor);
  const d = pairedDifferences(pairs, direction, measure);
  const n = d.length;
  const mean = d.reduce((sum, x) => sum + x, 0) / n;
  const variance = d.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1);
  const sd = Math.sqrt(variance);
  // Floating-point noise on identical differences is no spread.
  const zeroSpread = sd <= 1e-12 * Math.max(1, Math.abs(mean));
  const half = zeroSpread ? 0 : (tQuantile975(n - 1) * sd) / Math.sqrt(n);
  const back = (x: number): number => (measure === 'ratio' ? Math.exp(x) : x);
  return { measure, value: back(mean), low: back(mean - half), high: back(mean + half), pairs: n, zeroSpread };
}

/** The value meaning "no change" on the interval's scale. */
export function noChange(interval: Pick<GainInterval, 'measure'>): number {
  return interval.measure === 'ratio' ? 1 : 0;
}

/** Whether the interval says the best is better: it lies wholly above "no change" (zero spread: the improvement reproduced on every pair). */
export function isGain(interval: GainInterval): boolean {
  return interval.low > noChange(interval);
}

export type StopDecision = 'gain' | 'no_gain' | 'continue';

/** Pairs measured before any decision: the first interval needs two. */
export const MIN_PAIRS = 2;

/**
 * After each pair: stop with a gain as soon as the interval excludes "no change" on the good
 * side; stop without one when it lies wholly on the bad side, when the objective has shown no
 * spread (more pairs of a deterministic objective say the same), or (from 3 pairs, when the
 * spread is estimated at all) when even the remaining pairs could not lift its lower end above
 * "no change" if the mean and spread stayed as measured; and at `maxPairs`, decide on what
 * there is.
 */
export function stopDecision(pairs: readonly MeasuredPair[], direction: Direction, byFactor: boolean, maxPairs: number): StopDecision {
  if (pairs.length < Math.min(MIN_PAIRS, maxPairs)) return 'continue';
  if (pairs.length < 2) return 'no_gain'; // a budget of one pair can show no interval
  const interval = gainInterval(pairs, direction, byFactor);
  if (isGain(interval)) return 'gain';
  if (interval.zeroSpread || pairs.length >= maxPairs) return 'no_gain';
  const zero = noChange(interval);
  if (interval.high < zero) return 'no_gain';
  if (pairs.length >= 3 && !couldShowGain(pairs, direction, interval.measure, maxPairs)) return 'no_gain';
  return 'continue';
}

/** Whether, with the mean and spread measured so far, `maxPairs` pairs would put the interval above "no change". */
function couldShowGain(pairs: readonly MeasuredPair[], direction: Direction, measure: 'ratio' | 'difference', maxPairs: number): boolean {
  const d = pairedDifferences(pairs, direction, measure);
  const n = d.length;
  const mean = d.reduce((sum, x) => sum + x, 0) / n;
  const sd = Math.sqrt(d.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1));
  return mean - (tQuantile975(maxPairs - 1) * sd) / Math.sqrt(maxPairs) > 0;
}
