/**
 * Confirms a gain before anyone is offered it: the seed and a candidate (the run's best, or a
 * trial of the reduction) are measured again, interleaved (seed, candidate, seed, candidate,
 * ...) through the run's own evaluation path, each pair with an evaluation seed of its own
 * shared by both programs, until the interval (interval.ts) says gain or no gain, or the budget
 * (pairs, time) ends. A candidate or seed that fails a re-measure ends it with no gain: a
 * program that is not correct every time is not offered.
 */
import type { Evaluation } from '../../../shared/evaluation';
import { GAIN, NO_MEASURABLE_IMPROVEMENT, type GainConfirmation, type Measurement } from '../../../shared/evolution';
import { gainInterval, type Direction, type MeasuredPair, MIN_PAIRS, stopDecision } from './interval';

/** Pairs measured at most unless the run says otherwise. */
export const DEFAULT_CONFIRM_PAIRS = 5;
/** Time the confirmation may take unless the run says otherwise: no pair beyond the first two is begun that would end past it. */
export const DEFAULT_CONFIRM_MS = 120_000;
/** Evaluation seeds of the pairs start here after the run's seed: different inputs from the run's own measurements. */
const PAIR_SEED_OFFSET = 100_003;

export interface ConfirmInput {
  seedCode: string;
  code: string;
  programId: string;
  direction: Direction;
  /** The objective compares by factor (shared/objectiveText.ts `comparesByFactor`). */
  byFactor: boolean;
  /** The run's seed: the pairs' evaluation seeds follow from it, so a re-run measures the same inputs. */
  runSeed: number;
  maxPairs?: number;
  maxMs?: number;
  /** Measures a program with one evaluation seed, as the run measures its children. */
  evaluate(code: string, seed: number): Promise<Evaluation | undefined>;
  now?: () => number;
}

export interface ConfirmOutcome {
  confirmation: GainConfirmation;
  /** Evaluations spent (both programs). */
  evaluations: number;
  /** The candidate's measurements (one per pair it passed) and its first evaluation. */
  measurements: Measurement[];
  firstEvaluation?: Evaluation;
}

/** The evaluation seed of pair `index` (0-based). */
export function pairSeed(runSeed: number, index: number): number {
  return (runSeed + PAIR_SEED_OFFSET + index) % 2_147_483_647;
}

export async function confirmGain(input: ConfirmInput): Promise<ConfirmOutcome> {
  const now = input.now ?? (() => performance.now());
  // An interval needs two pairs: a smaller budget could only ever say "no measurable improvement".
  const maxPairs = Math.max(MIN_PAIRS, input.maxPairs ?? DEFAULT_CONFIRM_PAIRS);
  const maxMs = input.maxMs ?? DEFAULT_CONFIRM_MS;
  const started = now();
  const pairs: MeasuredPair[] = [];
  const measurements: Measurement[] = [];
  let firstEvaluation: Evaluation | undefined;
  let evaluations = 0;
  let reason: string | undefined;
  let decision = stopDecision(pairs, input.direction, input.byFactor, maxPairs);
  while (decision === 'continue') {
    const elapsed = now() - started;
    // Beyond the two pairs any interval needs, no pair is begun that the time left cannot hold
    // (judged by the pairs so far): slow evaluations get their interval, just not a narrow one.
    const perPair = pairs.length > 0 ? elapsed / pairs.length : 0;
    if (pairs.length >= MIN_PAIRS && elapsed + perPair > maxMs) {
      reason = `the confirmation's time (${Math.round(maxMs / 1000)} s) ran out after ${pairs.length} pair${pairs.length === 1 ? '' : 's'}`;
      break;
    }
    const seed = pairSeed(input.runSeed, pairs.length);
    const seedRun = await input.evaluate(input.seedCode, seed);
    evaluations++;
    const seedValue = valueOf(seedRun);
    if (seedValue === undefined) {
      reason = `the seed failed its re-measure (${whyFailed(seedRun)})`;
      break;
    }
    const bestRun = await input.evaluate(input.code, seed);
    evaluations++;
    const bestValue = valueOf(bestRun);
    if (bestValue === undefined) {
      reason = `the candidate failed a re-measure (${whyFailed(bestRun)})`;
      break;
    }
    firstEvaluation ??= bestRun;
    measurements.push({ seed, objective: bestValue, wallMs: bestRun!.wallMs });
    pairs.push({ seed: seedValue, best: bestValue });
    decision = stopDecision(pairs, input.direction, input.byFactor, maxPairs);
  }
  const elapsedMs = Math.max(0, now() - started);
  const measured = pairs.map((pair) => ({ ...pair }));
  const common = { programId: input.programId, measured, elapsedMs, ...(reason !== undefined && { reason }) };
  if (pairs.length < 2) {
    const confirmation: GainConfirmation = {
      ...common,
      measure: 'ratio',
      // No interval could be had: zeros (JSON has no NaN), with the reason.
      value: 0,
      low: 0,
      high: 0,
      pairs: pairs.length,
      verdict: NO_MEASURABLE_IMPROVEMENT,
      zeroSpread: false,
      reason: reason ?? 'fewer than 2 pairs were measured: no interval',
    };
    return { confirmation, evaluations, measurements, ...(firstEvaluation && { firstEvaluation }) };
  }
  const interval = gainInterval(pairs, input.direction, input.byFactor);
  // A failed re-measure is no gain, whatever the pairs before it said.
  const verdict = reason === undefined && decision === 'gain' ? GAIN : NO_MEASURABLE_IMPROVEMENT;
  const confirmation: GainConfirmation = { ...common, measure: interval.measure, value: interval.value, low: interval.low, high: interval.high, pairs: interval.pairs, zeroSpread: interval.zeroSpread, verdict };
  return { confirmation, evaluations, measurements, ...(firstEvaluation && { firstEvaluation }) };
}

function valueOf(evaluation: Evaluation | undefined): number | undefined {
  return evaluation?.correct && evaluation.objective !== null && Number.isFinite(evaluation.objective) ? evaluation.objective : undefined;
}

function whyFailed(evaluation: Evaluation | undefined): string {
  if (!evaluation) return 'the evaluation did not complete';
  return evaluation.failure?.message?.slice(0, 300) ?? (evaluation.correct ? 'no objective' : 'incorrect');
}
