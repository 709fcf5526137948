/**
 * Minimal-diff reduction of a run's best program. The best is usually the seed plus several
 * edits, some of which buy nothing (a comment rewritten, a helper renamed, a no-op statement):
 * a reviewer should be offered the smallest diff that keeps the gain. The best's changes from
 * the seed are dropped one at a time, the largest first; each trial is measured in the sandbox
 * as the run measures its children (the same seeds as the best's own measurements, so the
 * comparison is like for like), and a drop is kept when the trial is correct on every
 * measurement and keeps at least `keepShare` of the best's gain over the seed. It stops at
 * `budget` evaluations.
 *
 * With `confirmTrial` (what a run does), a drop is kept only when the test that confirmed the
 * best's gain (confirm/confirmGain.ts: the trial and the seed measured again, interleaved)
 * says the trial's gain over the seed is measurable too, and its estimate keeps `keepShare` of
 * the best's confirmed estimate (on the same scale: the log of a ratio, or a difference).
 */
import type { Evaluation } from '../../../shared/evaluation';
import { GAIN, type GainConfirmation, type Measurement, type Program } from '../../../shared/evolution';
import type { ConfirmOutcome } from '../confirm/confirmGain';
import { MIN_PAIRS } from '../confirm/interval';
import { programId } from '../../../shared/programId';
import { changedLines, dropOrder, lineDiff, withChanges } from './minimalDiff';

/** Share of the best's gain a reduced program must keep (the 90%). */
export const KEEP_SHARE = 0.9;
/** Evaluations a run spends on reducing its best unless told otherwise (0: no reduction). */
export const DEFAULT_REDUCE_BUDGET = 12;

export interface ReduceInput {
  seed: Pick<Program, 'code' | 'objective'>;
  best: Pick<Program, 'id' | 'code' | 'objective' | 'measurements'>;
  direction: 'maximize' | 'minimize';
  /** Evaluations to spend at most. */
  budget: number;
  keepShare?: number;
  /** Measures a candidate in the sandbox with one seed; undefined when the task gave no evaluation. */
  evaluate(code: string, seed: number): Promise<Evaluation | undefined>;
  /**
   * The gain test of the run's confirmation, for a trial against the seed, with at most
   * `maxPairs` pairs; with it, `bestConfirmation` (the best's own, a gain) is what a trial
   * must keep `keepShare` of.
   */
  confirmTrial?(code: string, maxPairs: number): Promise<ConfirmOutcome>;
  bestConfirmation?: GainConfirmation;
}

/** One program tried: the best without change `drop` (and without the drops kept before it). */
export interface ReductionTrial {
  drop: number;
  childId: string;
  /** Its measurements' less favourable objective; null when it failed one. */
  objective: number | null;
  /** Whether the drop was kept. */
  kept: boolean;
}

export interface Reduction {
  /** Changes of the seed → best diff that the reduced program keeps (indices, ascending). */
  keep: number[];
  changes: number;
  changedLines: { reduced: number; best: number };
  trials: ReductionTrial[];
  evaluations: number;
  /** The reduced program: absent when no change could be dropped. */
  reduced?: { code: string; objective: number; evaluation: Evaluation; measurements: Measurement[]; confirmation?: GainConfirmation };
}

export async function reduceBest(input: ReduceInput): Promise<Reduction> {
  const { seed, best, direction, budget } = input;
  const keepShare = input.keepShare ?? KEEP_SHARE;
  const diff = lineDiff(seed.code, best.code);
  const all = diff.changes.map((_, index) => index);
  const result: Reduction = { keep: all, changes: all.length, changedLines: { reduced: changedLines(diff, all), best: changedLines(diff, all) }, trials: [], evaluations: 0 };
  if (seed.objective === null || best.objective === null || budget <= 0 || all.length < 2) return result;
  if (!(gainOf(best.objective, seed.objective, direction) > 0)) return result;
  const keepsGain = (objective: number): boolean => keepsShare(objective, seed.objective!, best.objective!, direction, keepShare);
  // The best's own measurement seeds: each trial is measured as the best was.
  const seeds = best.measurements.length > 0 ? best.measurements.map((m) => m.seed) : [1];
  const keep = new Set(all);
  for (const index of dropOrder(diff)) {
    const confirming = input.confirmTrial !== undefined && input.bestConfirmation !== undefined;
    if (result.evaluations + (confirming ? 2 * MIN_PAIRS : seeds.length) > budget) break;
    keep.delete(index);
    // Dropping the last change gives the seed back: no gain, nothing to measure.
    if (keep.size === 0) {
      keep.add(index);
      continue;
    }
    const code = withChanges(diff, keep);
    const trial = confirming ? await confirmed(code, input, result, budget) : await measure(code, seeds, input, result, keepsGain);
    const kept = trial.objective !== null && (trial.confirmation ? keepsConfirmedShare(trial.confirmation, input.bestConfirmation!, keepShare) : keepsGain(trial.objective));
    result.trials.push({ drop: index, childId: programId(code), objective: trial.objective, kept });
    if (!kept) {
      keep.add(index);
      continue;
    }
    result.reduced = { code, objective: trial.objective!, evaluation: trial.evaluations[0]!, measurements: trial.measurements, ...(trial.confirmation && { confirmation: trial.confirmation }) };
  }
  result.keep = [...keep].sort((a, b) => a - b);
  result.changedLines.reduced = changedLines(diff, keep);
  return result;
}

/** A trial measured by the gain test: its objective is its less favourable measurement, absent a gain. */
async function confirmed(
  code: string,
  input: ReduceInput,
  result: Reduction,
  budget: number,
): Promise<{ objective: number | null; evaluations: Evaluation[]; measurements: Measurement[]; confirmation: GainConfirmation }> {
  const maxPairs = Math.floor((budget - result.evaluations) / 2);
  const outcome = await input.confirmTrial!(code, maxPairs);
  result.evaluations += outcome.evaluations;
  const values = outcome.measurements.map((m) => m.objective).filter((value): value is number => value !== null);
  const worst = values.length === 0 ? null : input.direction === 'maximize' ? Math.min(...values) : Math.max(...values);
  const objective = outcome.confirmation.verdict === GAIN && outcome.firstEvaluation ? worst : null;
  return { objective, evaluations: outcome.firstEvaluation ? [outcome.firstEvaluation] : [], measurements: outcome.measurements, confirmation: outcome.confirmation };
}

/** A confirmed trial keeps `share` of the best's confirmed gain, on the test's own scale (ln of a ratio, or a difference). */
function keepsConfirmedShare(trial: GainConfirmation, best: GainConfirmation, share: number): boolean {
  if (trial.verdict !== GAIN) return false;
  if (trial.measure !== best.measure) return true; // scales differ (a value ≤ 0 turned one into differences): the verdict alone
  const scale = (x: number): number => (trial.measure === 'ratio' ? Math.log(x) : x);
  const wanted = share * scale(best.value);
  return scale(trial.value) >= wanted - 1e-9 * Math.abs(wanted);
}

/**
 * Measures a trial with each seed, stopping at the first measurement that fails or falls short
 * (no confirmation is spent on a trial already out); its objective is the less favourable one.
 */
async function measure(
  code: string,
  seeds: readonly number[],
  input: ReduceInput,
  result: Reduction,
  keepsGain: (objective: number) => boolean,
): Promise<{ objective: number | null; evaluations: Evaluation[]; measurements: Measurement[]; confirmation?: GainConfirmation }> {
  const evaluations: Evaluation[] = [];
  const measurements: Measurement[] = [];
  let objective: number | null = null;
  const direction = input.direction;
  for (const seed of seeds) {
    const evaluation = await input.evaluate(code, seed);
    result.evaluations++;
    if (!evaluation?.correct || evaluation.objective === null) return { objective: null, evaluations, measurements };
    evaluations.push(evaluation);
    measurements.push({ seed, objective: evaluation.objective, wallMs: evaluation.wallMs });
    const value = evaluation.objective;
    objective = objective === null ? value : direction === 'maximize' ? Math.min(objective, value) : Math.max(objective, value);
    if (!keepsGain(value)) break;
  }
  return { objective, evaluations, measurements };
}

function gainOf(objective: number, seed: number, direction: 'maximize' | 'minimize'): number {
  return direction === 'maximize' ? objective - seed : seed - objective;
}

/** Whether `objective` keeps `share` of the best's gain over the seed (up to rounding: 2.8 of 1 → 3 keeps 90%). */
function keepsShare(objective: number, seed: number, best: number, direction: 'maximize' | 'minimize', share: number): boolean {
  const wanted = share * gainOf(best, seed, direction);
  return gainOf(objective, seed, direction) >= wanted - 1e-9 * Math.abs(wanted);
}
