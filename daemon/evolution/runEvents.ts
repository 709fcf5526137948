/**
 * The run journal's events. The live run, resume and replay all feed these same events
 * through RunState, so a resumed or replayed run makes exactly the choices the live one made.
 */
import * as z from 'zod';
import { EvaluationSchema } from '../../shared/evaluation';
import { ExchangeHashSchema, GainConfirmationSchema, LlmUsageSchema, ProgramIdSchema, ProgramSchema } from '../../shared/evolution';

/** The evaluated seed program: the first event of every run. */
export const SeedEventSchema = z.object({ type: z.literal('seed'), program: ProgramSchema });

/**
 * A job was planned: breed from `parent` (improve), repair a failed child (repair), or make a
 * child with no LLM call: another new child of the same call as an earlier job's (sibling), or
 * (edits.ts) a child of `parent` without one of its edits (split), `parent` without an edit of
 * its lineage (revert), or with an improving edit of another lineage (transplant).
 */
export const PlanEventSchema = z.object({
  type: z.literal('plan'),
  job: z.number().int().nonnegative(),
  kind: z.enum(['improve', 'repair', 'split', 'revert', 'transplant', 'sibling']),
  parent: z.string(),
  inspirations: z.array(z.string()),
  /** Children the parent already had when planned (the mutator is asked for another). */
  avoid: z.array(z.string()).default([]),
  arm: z.string(),
  island: z.number().int().nonnegative(),
  seed: z.number().int().nonnegative(),
  backend: z.string().optional(),
  /**
   * A split job: the child of the parent it tries without its edit `edit` (0-based); with
   * `keepDeletions`, the lines that edit only deleted stay deleted.
   */
  split: z.object({ source: z.string(), edit: z.number().int().nonnegative(), keepDeletions: z.literal(true).optional() }).optional(),
  /** A revert job: the ancestor of the parent whose edit (from its own parent) it undoes. */
  revert: z.object({ from: z.string() }).optional(),
  /** A transplant job: the program whose edit (from its own parent) is made on the parent. */
  transplant: z.object({ from: z.string() }).optional(),
  /** A sibling job: the code of another new child that job `from`'s call gave (by `model`, when one answered). */
  sibling: z.object({ from: z.number().int().nonnegative(), code: z.string(), model: z.string().optional() }).optional(),
  /** Follow-up calls the job may make (format repairs, re-asks after a known child); absent without an LLM. */
  calls: z.object({ format: z.number().int().nonnegative(), known: z.number().int().nonnegative() }).optional(),
});

/** The mutator's answer for a job: a child (its code) or why there is none. */
export const ProposalEventSchema = z.object({
  type: z.literal('proposal'),
  job: z.number().int().nonnegative(),
  ok: z.boolean(),
  childId: z.string().optional(),
  /** The child's normal form id: equal for children that differ only in comments or layout. */
  normalizedId: z.string().optional(),
  code: z.string().optional(),
  patch: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  mutator: z.string(),
  model: z.string().optional(),
  template: z.object({ name: z.string(), hash: z.string() }).optional(),
  /** Content addresses of the recorded exchanges (records of llm.pack in the run directory). */
  exchanges: z.array(ExchangeHashSchema),
  repairs: z.number().int().nonnegative(),
  /** Each LLM call: its kind and what it gave (see Mutator.ts CallAttempt). */
  attempts: z.array(z.object({ kind: z.enum(['first', 'format', 'known']), result: z.string(), child: z.string().optional(), also: z.array(z.string()).optional() })).optional(),
  /** Other new children of the call that gave this one (several answers per call): each becomes a sibling job. */
  siblings: z.array(z.object({ childId: z.string(), normalizedId: z.string().optional(), code: z.string(), patch: z.string() })).optional(),
  usage: LlmUsageSchema,
  costUsd: z.number().nonnegative(),
});

/** One measurement of a child: the first (`first`) or the confirmation of a would-be best. */
export const EvaluationEventSchema = z.object({
  type: z.literal('evaluation'),
  job: z.number().int().nonnegative(),
  childId: z.string(),
  round: z.enum(['first', 'confirm']),
  seed: z.number().int(),
  evaluation: EvaluationSchema,
});

/** The job ended without an evaluation result (task error, cancelled by a stop). */
export const AbandonEventSchema = z.object({
  type: z.literal('abandon'),
  job: z.number().int().nonnegative(),
  reason: z.string(),
});

/**
 * Programs of other runs of the same example were merged in (`peagen evolve merge`). The
 * event carries them whole, as measured in their runs, so resume and replay rebuild the
 * merge from this journal alone, whatever became of the other runs.
 */
export const MergeEventSchema = z.object({
  type: z.literal('merge'),
  /** The runs merged, in the order given, each with how many of its programs were new here. */
  sources: z.array(z.object({ runId: z.string(), dir: z.string(), programs: z.number().int().nonnegative() })).min(1),
  /** The programs new to this run, in the order they join its archive. */
  programs: z.array(ProgramSchema),
});

/**
 * The best program reduced to its smallest diff from the seed that keeps most of its gain
 * (reduce/reduceBest.ts), as the run ended. `keep` names the changes of the seed → best line
 * diff that the reduced program keeps, so replay derives its code again from the two programs
 * alone; the trials' measurements are not replayed (they are summarised here). `program` (its
 * lineage: mutator `reduce`, parent the best) is absent when no change could be dropped.
 */
export const ReduceEventSchema = z.object({
  type: z.literal('reduce'),
  best: ProgramIdSchema,
  keep: z.array(z.number().int().nonnegative()),
  changes: z.number().int().nonnegative(),
  changedLines: z.object({ reduced: z.number().int().nonnegative(), best: z.number().int().nonnegative() }),
  trials: z.array(z.object({ drop: z.number().int().nonnegative(), childId: z.string(), objective: z.number().nullable(), kept: z.boolean() })),
  evaluations: z.number().int().nonnegative(),
  budget: z.number().int().nonnegative(),
  program: ProgramSchema.optional(),
  /** The reduced program's own gain test against the seed (confirm/), when the run confirmed its trials. */
  confirmation: GainConfirmationSchema.optional(),
});

/**
 * The best measured again against the seed, interleaved, as the run ended (confirm/): whether
 * its gain is measurable. Not replayed (measurements are not reproducible); kept as recorded.
 */
export const ConfirmEventSchema = z.object({ type: z.literal('confirm'), confirmation: GainConfirmationSchema });

export const StopEventSchema = z.object({ type: z.literal('stop'), reason: z.string() });
export const ResumeEventSchema = z.object({ type: z.literal('resume'), at: z.string() });

export const RunEventSchema = z.discriminatedUnion('type', [
  SeedEventSchema,
  PlanEventSchema,
  ProposalEventSchema,
  EvaluationEventSchema,
  AbandonEventSchema,
  MergeEventSchema,
  ReduceEventSchema,
  ConfirmEventSchema,
  StopEventSchema,
  ResumeEventSchema,
]);
export type RunEvent = z.infer<typeof RunEventSchema>;
export type PlanEvent = z.infer<typeof PlanEventSchema>;

/**
 * Sibling, split, revert and transplant jobs make no call: their child is one an earlier call
 * gave, or is made from programs the run has. (Their proposal's `mutator` is the plan's kind:
 * replay asks with it.)
 */
export function isFreePlan(plan: { kind: string }): boolean {
  return plan.kind === 'sibling' || plan.kind === 'split' || plan.kind === 'revert' || plan.kind === 'transplant';
}
export type ProposalEvent = z.infer<typeof ProposalEventSchema>;
export type EvaluationEvent = z.infer<typeof EvaluationEventSchema>;
export type MergeEvent = z.infer<typeof MergeEventSchema>;
export type ReduceEvent = z.infer<typeof ReduceEventSchema>;
export type ConfirmEvent = z.infer<typeof ConfirmEventSchema>;
