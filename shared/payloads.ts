/**
 * Payload schemas per built-in task kind. Handlers validate their payload with these, so a
 * malformed payload becomes an `invalid_payload` error result instead of an exception.
 * Later issues grow these; unknown fields are ignored.
 */
import * as z from 'zod';
import { DirectionSchema } from './evaluation';
import { filesByRelativePath } from './relativePath';

export const EchoPayloadSchema = z.object({ message: z.unknown().optional() });
export const SleepPayloadSchema = z.object({ ms: z.number().int().nonnegative().max(3_600_000) });

/**
 * Render one file of a template set: the `render` task (requires `cpu` for a COPY record,
 * `llm` for a GENERATE one). Templates are rendered by `peagen render` itself (the user's own
 * templates, run where the user runs them); a task carries only their rendered text, so a
 * worker never evaluates a template (Nunjucks is not a sandbox) and needs no files.
 */
export const RenderPayloadSchema = z.discriminatedUnion('processType', [
  z.object({
    /** The output path, relative to the output directory (for messages and the result). */
    path: z.string().min(1),
    processType: z.literal('COPY'),
    /** The file's text, rendered. */
    content: z.string().max(10_000_000),
  }),
  z.object({
    path: z.string().min(1),
    processType: z.literal('GENERATE'),
    /** The prompt, rendered (with the dependencies' text where the template includes it). */
    prompt: z.string().max(10_000_000),
    seed: z.number().int().nonnegative(),
    maxTokens: z.number().int().positive().optional(),
    systemPrompt: z.string().optional(),
    /** The configured LLM backend to call (chosen by the ensemble); default: the first. */
    backend: z.string().optional(),
  }),
]);
export type RenderPayload = z.infer<typeof RenderPayloadSchema>;
const MutationSubjectSchema = z.object({
  id: z.string().min(1),
  code: z.string().max(4_000_000),
  objective: z.number().nullable(),
  metrics: z.record(z.string(), z.number()).optional(),
});
/**
 * Propose one child of a parent program: the `mutate` task (requires `llm` when an LLM
 * writes the patch). Carries no key and no endpoint secret: the worker's own configuration
 * and environment name the models. The result's data is a MutationProposal.
 */
/** Most answers one LLM call may be asked for (OpenAI's `n` allows more; each answer costs output tokens). */
export const MAX_CHOICES = 8;

export const MutatePayloadSchema = z.object({
  mutator: z.string().min(1).default('llm-patch'),
  parent: MutationSubjectSchema,
  inspirations: z.array(MutationSubjectSchema).max(16).default([]),
  failure: z.object({ code: z.string(), errorText: z.string().max(20_000) }).optional(),
  /** Ids of the children this parent already has (normal form or program ids; a repeat is asked to be replaced). */
  avoid: z.array(z.string().regex(/^[0-9a-f]{64}$/)).max(256).default([]),
  seed: z.number().int().nonnegative(),
  task: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    language: z.string().optional(),
    entry: z.string().optional(),
    objectiveName: z.string().min(1),
    direction: DirectionSchema,
  }),
  /** The configured LLM backend to call (chosen by the run's router); default: the first. */
  backend: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  /** Format repairs allowed (answers that did not apply or did not compile, sent back with the reason). */
  repairAttempts: z.number().int().nonnegative().max(5).optional(),
  /** Re-asks allowed after answers that repeat a known program (default: repairAttempts). */
  reaskAttempts: z.number().int().nonnegative().max(5).optional(),
  /** Accept a whole-EVOLVE-BLOCK rewrite as an answer. */
  allowRewrite: z.boolean().optional(),
  /** Answers asked for per call (default: the worker's `llm.choices`; a backend's `choices` caps it). */
  choices: z.number().int().min(1).max(MAX_CHOICES).optional(),
  /** false: no compile check and no normal forms (a benchmark measuring what they bring). */
  childCheck: z.boolean().optional(),
  /** Prompt template name (searched in the project's .peagen/prompts first). */
  template: z.string().optional(),
  /** Directory searched first for prompt templates. */
  promptDir: z.string().optional(),
});
export type MutatePayload = z.infer<typeof MutatePayloadSchema>;
/** Evaluate one candidate program with an example's trusted evaluator: the `evaluate` task. */
/** The longest `--eval-timeout`: a worker's default ceiling (sandbox.maxLimits.timeoutMs) is the same hour. */
export const MAX_EVAL_TIMEOUT_MS = 60 * 60_000;

export const EvaluatePayloadSchema = z.object({
  /** Absolute path of the example directory (holding peagen.example.json and the evaluator). */
  exampleDir: z.string().min(1),
  /** The candidate's source; default: the example's own program. */
  program: z.string().max(4_000_000).optional(),
  /** Seed for the evaluator's held-out inputs (passed as `--seed N`). */
  seed: z.number().int().optional(),
  /** Extra evaluator arguments, e.g. `--quick`. */
  args: z.array(z.string()).default([]),
  /** The run's time limit per evaluation (`--eval-timeout`): replaces the example's own; the worker's ceiling still caps it. */
  timeoutMs: z.number().int().positive().max(MAX_EVAL_TIMEOUT_MS).optional(),
});
export type EvaluatePayload = z.infer<typeof EvaluatePayloadSchema>;
export const LimitsSchema = z
  .object({
    timeoutMs: z.number().int().positive().max(24 * 3_600_000),
    memoryMb: z.number().int().positive().max(1 << 20),
    pids: z.number().int().positive().max(1 << 16),
    outputBytes: z.number().int().positive().max(1 << 30),
    network: z.boolean(),
  })
  .partial();

/** Files one task may write into a sandbox's workspace (a multi-file program's files, typically). */
export const MAX_WORKSPACE_FILES = 2_000;

/** Run a command in a fresh sandbox: the `execute` task. */
export const ExecutePayloadSchema = z.object({
  command: z.array(z.string()).min(1),
  /** Host directory copied into the sandbox's writable workspace. */
  workspace: z.string().min(1),
  /**
   * Files written into the workspace copy, by relative path (e.g. the candidate program): safe
   * relative paths only, at most MAX_WORKSPACE_FILES, checked before the sandbox is made.
   */
  files: filesByRelativePath(z.string(), MAX_WORKSPACE_FILES).default({}),
  mounts: z.array(z.object({ hostPath: z.string().min(1), sandboxPath: z.string().regex(/^\/./) })).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  stdin: z.string().optional(),
  limits: LimitsSchema.default({}),
});
export type ExecutePayload = z.infer<typeof ExecutePayloadSchema>;
export const EvolvePayloadSchema = z.object({
  targetFile: z.string().min(1),
  generations: z.number().int().positive().optional(),
});

export const BUILTIN_PAYLOAD_SCHEMAS = {
  echo: EchoPayloadSchema,
  sleep: SleepPayloadSchema,
  render: RenderPayloadSchema,
  mutate: MutatePayloadSchema,
  evaluate: EvaluatePayloadSchema,
  execute: ExecutePayloadSchema,
  evolve: EvolvePayloadSchema,
} as const;
export type BuiltinKind = keyof typeof BUILTIN_PAYLOAD_SCHEMAS;
