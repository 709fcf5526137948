/**
 * The evolution model shared by the daemon, the CLI and the extension: a program with its
 * lineage, a run's progress, and the summaries the RPC messages carry. Checkpoints store
 * programs in this shape too, so what a client sees is what the archive holds.
 */
import * as z from 'zod';
import { DirectionSchema, EvaluationSchema } from './evaluation';

/** Content hash of a program's source (sha256, hex): the program's identity everywhere. */
export const ProgramIdSchema = z.string().regex(/^[0-9a-f]{64}$/, 'a program id is the sha256 of its source');
export type ProgramId = z.infer<typeof ProgramIdSchema>;

/** Content address of a recorded LLM exchange (sha256, hex): the name of its file in a run's llm/. */
export const ExchangeHashSchema = z.string().regex(/^[0-9a-f]{64}$/, 'an exchange address is the sha256 of its record');

/**
 * A run's id: the name of its directory under .peagen/runs (`20261123-154356-bad_sort-073d`).
 * Checked before any path is built from it, so an id from a client or a run file can never
 * name another directory (`../x`, `/abs`).
 */
export const RunIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, 'a run id is the name of a directory under .peagen/runs: letters, digits, - and _');

export const LlmUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
});
export type LlmUsage = z.infer<typeof LlmUsageSchema>;

/** How a program came to be: enough to re-derive it from its parents (replay, P-6). */
export const LineageSchema = z.object({
  /** Empty for the seed; [parent] for a patch; [a, b] for a crossover. */
  parents: z.array(ProgramIdSchema),
  generation: z.number().int().nonnegative(),
  /** `seed`, `llm-patch`, `offline`, or a plugin's name. */
  mutator: z.string().min(1),
  /** `backend/model` of the LLM that wrote the patch. */
  model: z.string().optional(),
  template: z.object({ name: z.string(), hash: z.string() }).optional(),
  /** Unified diff parent → program. */
  patch: z.string().optional(),
  /** Content addresses of the recorded LLM exchanges (first try, then each repair). */
  exchanges: z.array(ExchangeHashSchema).default([]),
  /** Seed the mutator used for this child. */
  seed: z.number().int().nonnegative(),
  /** Repair rounds it took (0: applied at the first answer). */
  repairs: z.number().int().nonnegative().default(0),
  island: z.number().int().nonnegative().default(0),
  createdAt: z.string(),
});
export type Lineage = z.infer<typeof LineageSchema>;

/** One measurement of a program (the first, and the confirmations of a would-be best). */
export const MeasurementSchema = z.object({
  seed: z.number().int(),
  objective: z.number().nullable(),
  wallMs: z.number(),
});
export type Measurement = z.infer<typeof MeasurementSchema>;

export const ProgramSchema = z.object({
  id: ProgramIdSchema,
  code: z.string(),
  lineage: LineageSchema,
  /** The full evaluation; absent while it is being evaluated. */
  evaluation: EvaluationSchema.optional(),
  /** The score that ranks it: null when it failed. With confirmations, their median. */
  objective: z.number().nullable(),
  correct: z.boolean(),
  measurements: z.array(MeasurementSchema).default([]),
  /** Feature values that place it in a niche (by descriptor name). */
  features: z.record(z.string(), z.number()).default({}),
  /** Niche key, e.g. `speedup=3|length=1`. */
  niche: z.string().optional(),
});
export type Program = z.infer<typeof ProgramSchema>;

export type RunState = 'running' | 'stopping' | 'finished' | 'interrupted' | 'failed';

/** Why a run ended. */
export type StopReason =
  | 'generations'
  | 'evaluations'
  | 'wall_time'
  | 'target'
  | 'no_improvement'
  | 'budget_tokens'
  | 'budget_usd'
  | 'max_llm_calls'
  /** Every task of the last several jobs failed (e.g. no worker has the mutator the run asks for). */
  | 'tasks_failing'
  /** The last several proposals gave nothing new to evaluate: the mutator keeps repeating itself. */
  | 'proposals_exhausted'
  /** The model failed in a way that will not go away (key refused, no such model, unreachable): the run log names the server. */
  | 'model_unusable'
  | 'interrupted'
  | 'error';

/**
 * The best program reduced to its smallest diff from the seed that keeps most of its gain
 * (what a reviewer is offered), beside the full best: "2.6x with 3 changed lines, 2.7x with
 * all 14". Figures as measured in the sandbox.
 */
export interface BestReduction {
  bestId: string;
  bestObjective: number;
  /** Lines the full best changes from the seed. */
  bestChangedLines: number;
  /** Separate changes (runs of changed lines) of the full best's diff from the seed: one leaves nothing to drop. */
  changes: number;
  /** Evaluations the reduction spent. */
  evaluations: number;
  /** The reduced program; absent when no change of the best could be dropped. */
  reduced?: {
    id: string;
    objective: number;
    changedLines: number;
    /** Its objective on each measurement it passed (each: the evaluator's correctness checks and every timed output checked), one per seed. */
    measured: number[];
    /** The evaluator's counts of what it checked (metrics such as `inputs_checked`, `tests_passed`), from its first measurement. */
    checks: Record<string, number>;
    /** Its own gain test against the seed (interleaved re-measures), when the run confirmed it. */
    confirmation?: GainConfirmation;
  };
}

/** The verdict of a gain's confirmation, in the words every client shows. */
export const GAIN = 'gain' as const;
export const NO_MEASURABLE_IMPROVEMENT = 'no measurable improvement' as const;

/**
 * The best measured again against the seed as the run ended, interleaved (seed, best, seed,
 * best, ...) in the run's own sandbox, until a 95% interval on their ratio (a score: their
 * difference) excluded "no change" or a small budget ended (daemon/evolution/confirm/). Only a
 * `gain` is offered to accept; its interval is shown beside the figure everywhere.
 */
export const GainConfirmationSchema = z.object({
  /** The program confirmed against the seed (the run's best). */
  programId: ProgramIdSchema,
  /** `ratio`: times better (1 = no change, oriented so that more is better); `difference`: a score's difference (0 = no change). */
  measure: z.enum(['ratio', 'difference']),
  /** The point estimate on that scale (the geometric mean ratio, or the mean difference). */
  value: z.number(),
  low: z.number(),
  high: z.number(),
  /** Seed/best pairs measured. */
  pairs: z.number().int().nonnegative(),
  verdict: z.enum([GAIN, NO_MEASURABLE_IMPROVEMENT]),
  /** Every pair gave the same difference: a deterministic objective, a gain only when it reproduced on each. */
  zeroSpread: z.boolean().default(false),
  /** Why no interval could be had (a re-measure failed, the budget ran out first, the run was stopped). */
  reason: z.string().max(2000).optional(),
  /** Each pair's objectives, in the order measured. */
  measured: z.array(z.object({ seed: z.number(), best: z.number() })).default([]),
  elapsedMs: z.number().nonnegative(),
});
export type GainConfirmation = z.infer<typeof GainConfirmationSchema>;

export interface RunProgress {
  runId: string;
  example: string;
  state: RunState;
  direction: z.infer<typeof DirectionSchema>;
  objectiveName: string;
  /** The objective's unit (`x`, `%`, `ms`), when the example declares one: how values and gains are worded. */
  objectiveUnit?: string;
  /** The seed's objective (first measurement). */
  seedObjective: number | null;
  best: { id: string; objective: number; generation: number; confirmed: boolean } | null;
  generation: number;
  evaluations: number;
  failedEvaluations: number;
  llmCalls: number;
  tokens: LlmUsage;
  costUsd: number;
  /** Applied, evaluable children per LLM answer: at the first try, and after repair. */
  patchYield: { firstTry: number; afterRepair: number; answers: number };
  evaluationsPerMinute: number;
  elapsedMs: number;
  /** Estimated time to the stop condition, when one bounds the run (never less than the evaluations in flight typically still need). */
  etaMs?: number;
  /** The longest the run may still take when an evaluation in flight runs to its time limit; absent when that is no longer than etaMs. */
  etaMaxMs?: number;
  /** The evaluations running as the snapshot was taken, the longest-running first: `#19` (a job), `seed` or `reduce`. */
  inFlight?: { label: string; elapsedMs: number; limitMs: number }[];
  stopReason?: StopReason;
  /** The mutator at work and, when no LLM is configured, that it is the offline one. */
  mutator: string;
  /** Why the run failed (state `failed`). */
  error?: string;
  /** Why the run waits, when it waits for something nobody provides now (a daemon without workers, and no worker on the queue serving a kind of its tasks). */
  notice?: string;
  /** The ended run's best reduced to its smallest diff from the seed (absent before the end, or when not reduced). */
  reduction?: BestReduction;
  /** Whether the ended run's best is measurably better than the seed (absent before the end, when not confirmed, and in runs made before confirmation). */
  confirmation?: GainConfirmation;
}

export interface RunSummary {
  runId: string;
  example: string;
  dir: string;
  state: RunState;
  startedAt: string;
  best: number | null;
  evaluations: number;
}

export interface NicheElite {
  niche: string;
  island: number;
  program: Omit<Program, 'code' | 'evaluation'>;
}
