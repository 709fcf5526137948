/**
 * A run's run.json, the manifest of `.peagen/runs/<id>/`: what the run is (the example, its
 * settings, its stop conditions). The daemon writes and reads it (daemon/evolution/controller/
 * runDir.ts); the extension reads it to place a run's programs in the workspace; StartRun asks
 * for the same stop conditions. Runs written by older versions must keep loading: fields are
 * only ever added, optional or with a default.
 */
import * as z from 'zod';
import { DirectionSchema, StructureLanguageSchema } from './evaluation';
import { MAX_CHOICES } from './payloads';
import { SafeRelativePathSchema } from './relativePath';

/** The manifest's name in a run's directory. */
export const RUN_MANIFEST_FILE = 'run.json';

/** When a run stops (any that is reached first); none: it runs until stopped. */
export const StopConditionsSchema = z.object({
  generations: z.number().int().positive().optional(),
  evaluations: z.number().int().positive().optional(),
  wallMs: z.number().int().positive().optional(),
  target: z.number().optional(),
  /** Stop after this many evaluations without a new best. */
  noImprovement: z.number().int().positive().optional(),
  budgetTokens: z.number().int().positive().optional(),
  budgetUsd: z.number().positive().optional(),
  maxLlmCalls: z.number().int().positive().optional(),
  /** Keep asking the model to the end of the budget even when its answers bring nothing new. */
  spendAll: z.boolean().optional(),
});
export type StopConditions = z.infer<typeof StopConditionsSchema>;

/**
 * Search mechanisms a run can switch off (PEAGEN_ABLATE, for the bench's per-mechanism rows):
 * `budget` (stop at the first job whose whole worst case does not fit), `credit` (every job
 * gets all its repairs and re-asks, evaluation repairs half the time), `climb` (exploit is
 * always the best), `normalize` (no compile check, no normal forms: exact duplicates only),
 * `split` (children with several edits are not split), `revert` (no edit of the best's
 * lineage is undone), `transplant` (no improving edit is tried on the best), `families`
 * (parents are not chosen per family), `exhaustion` (no early stop when the model has nothing
 * new), `known-elsewhere` (a parent's novelty counts only its own repeats, not answers the run
 * had from another parent), `founders` (a family founded by a first idea starts without that
 * idea's credit), `gain-weight` (every improvement credits its family as one, whatever it gained).
 */
export const ABLATIONS = ['budget', 'credit', 'climb', 'normalize', 'split', 'revert', 'transplant', 'families', 'exhaustion', 'known-elsewhere', 'founders', 'gain-weight'] as const;
export type Ablation = (typeof ABLATIONS)[number];

/** What a run is, fixed at its start: replay rebuilds the run's state from it. */
export const RunSettingsSchema = z.object({
  direction: DirectionSchema,
  objectiveName: z.string(),
  /** The example's objective unit (`x`), for labels; absent when it declares none. */
  objectiveUnit: z.string().optional(),
  /**
   * The archive's axes (as FeatureDescriptor, read leniently: the example checked them when the
   * run began). Absent: the grid of runs made before structural axes, objective x code length
   * (a run records the grid it was made with, so a new default never changes an old run).
   */
  features: z.array(z.object({ name: z.string(), from: z.string(), bins: z.array(z.number()), language: StructureLanguageSchema.optional() })).optional(),
  islands: z.number().int().positive(),
  selector: z.string(),
  /** `llm-patch`, `offline`, ... */
  mutator: z.string(),
  usesLlm: z.boolean(),
  backends: z.array(z.object({ name: z.string(), weight: z.number() })),
  routing: z.enum(['weighted', 'bandit']),
  /** Children per generation (`evolve step` runs one generation). */
  childrenPerGeneration: z.number().int().positive(),
  inspirations: z.number().int().nonnegative(),
  /** Send a child that failed evaluation back to the model once, with the error text. */
  repairFailedChildren: z.boolean(),
  /** Measure a would-be best again (another seed) before it counts as best. */
  confirmBest: z.boolean(),
  seed: z.number().int().nonnegative(),
  /**
   * The planning policy the run was made with (absent: 1, before call credit). A journal
   * replays only under the policy that wrote it.
   */
  policy: z.number().int().positive().optional(),
  /** Search mechanisms switched off (ABLATIONS). */
  ablate: z.array(z.enum(ABLATIONS)).optional(),
});
export type RunSettings = z.infer<typeof RunSettingsSchema>;

export const RunManifestSchema = z.object({
  version: z.literal(1),
  runId: z.string(),
  createdAt: z.string(),
  /** Absolute path of the example directory (peagen.example.json). */
  exampleDir: z.string(),
  exampleName: z.string(),
  /**
   * The example's program file, relative to exampleDir (a multi-file program's first file).
   * Paths in run.json are read back from disk: a run's files are written from them
   * (best/), so only safe relative paths are accepted (shared/relativePath.ts).
   */
  program: SafeRelativePathSchema,
  /**
   * A multi-file program's files, relative to exampleDir, in their fixed order (its code is
   * their bundle: shared/programFiles.ts); absent for a single-file program.
   */
  programFiles: z.array(SafeRelativePathSchema).min(2).optional(),
  settings: RunSettingsSchema,
  stop: StopConditionsSchema,
  evaluatorArgs: z.array(z.string()),
  /** The time limit of each evaluation (`--eval-timeout`), replacing the example's; absent: the example's own. */
  evalTimeoutMs: z.number().int().positive().optional(),
  llm: z.object({
    temperature: z.number(),
    maxTokens: z.number().int().positive(),
    repairAttempts: z.number().int().nonnegative(),
    allowRewrite: z.boolean().default(false),
    promptDir: z.string().optional(),
    /** Answers per call (runs made before there was a choice asked for one). */
    choices: z.number().int().min(1).max(MAX_CHOICES).default(1),
  }),
  workers: z.number().int().positive(),
  /**
   * Minimal-diff reduction of the best as the run ends: at most `budget` evaluations (0: none).
   * Absent: the default budget (runs made before there was a choice get it too on resume).
   */
  reduce: z.object({ budget: z.number().int().nonnegative() }).optional(),
  /**
   * The best measured again against the seed as the run ends (daemon/evolution/confirm/): at
   * most `pairs` interleaved pairs (0: none) and about `maxMs`. Absent: the defaults.
   */
  confirm: z.object({ pairs: z.number().int().nonnegative(), maxMs: z.number().int().positive().optional() }).optional(),
  /**
   * What the user must know about how the example's programs were judged (an evaluator that
   * is not hardened against its candidate); the report repeats it. Absent: nothing to say.
   */
  cautions: z.array(z.string()).optional(),
});
export type RunManifest = z.infer<typeof RunManifestSchema>;
