/**
 * The evaluation protocol. An evaluator is a trusted command, run in a sandbox against one
 * candidate program, that prints one JSON object of metrics as the last line of its stdout.
 * Everything Peagen reports about a candidate (including why it failed) has this shape.
 */
import * as z from 'zod';

export const DirectionSchema = z.enum(['maximize', 'minimize']);
export type Direction = z.infer<typeof DirectionSchema>;

/** What an evaluator prints (last line of stdout). */
export const EvaluatorOutputSchema = z.object({
  correct: z.boolean(),
  objective: z.number().refine(Number.isFinite, 'objective must be a finite number'),
  direction: DirectionSchema,
  metrics: z.record(z.string(), z.number()).default({}),
  /** Why the candidate failed, in words an LLM can act on. */
  error: z.string().optional(),
  /** The ids of the project's tests that failed, as their runner reported them (the harness's tests gate). */
  failed_tests: z.array(z.string()).optional(),
  /** For the original only: the tests it passes (behind the boundary when correct; when not, in the tests' own process, failed_tests being those it fails only behind the boundary). */
  original_passed_tests: z.array(z.string()).optional(),
  artifacts: z.record(z.string(), z.string()).optional(),
});
export type EvaluatorOutput = z.infer<typeof EvaluatorOutputSchema>;

/** At most this many failing tests' ids are kept with an evaluation (the harness's verdicts list no more). */
export const FAILED_TESTS_LIMIT = 1_000;

/** Why a candidate has no valid score. */
export const FailureReasonSchema = z.enum([
  'incorrect', // the evaluator ran and the correctness gate failed
  'timeout',
  'memory',
  'pids',
  'output',
  'cancelled',
  'crash', // the evaluator exited non-zero without a metrics line
  'invalid_output', // no parseable metrics line
]);
export type FailureReason = z.infer<typeof FailureReasonSchema>;

/**
 * The installed libraries an evaluation ran with: the environment built from the example's
 * `requirements.txt` (a venv) or `package.json` (a node_modules), cached on the worker's host
 * by the file's hash and mounted read-only into the sandbox.
 */
export const EnvironmentUseSchema = z.object({
  kind: z.enum(['python', 'node']),
  /** The file it is installed from, relative to the example directory. */
  file: z.string(),
  /** sha256 of what the environment is keyed by (the file, and the lock file beside it). */
  sha256: z.string(),
  /** Where it is cached on the host that ran the evaluation. */
  dir: z.string(),
  /** True when it was installed for this evaluation; false when it was already cached. */
  installed: z.boolean(),
});
export type EnvironmentUse = z.infer<typeof EnvironmentUseSchema>;

export const EvaluationSchema = z.object({
  correct: z.boolean(),
  /** Null when there is no valid score. */
  objective: z.number().nullable(),
  direction: DirectionSchema,
  metrics: z.record(z.string(), z.number()),
  failure: z.object({ reason: FailureReasonSchema, message: z.string() }).optional(),
  /** Tail of the evaluator's stderr and its `error` text: what feedback to a mutator quotes. */
  errorText: z.string().optional(),
  /**
   * The project's tests that failed, by id (at most FAILED_TESTS_LIMIT): `peagen init` leaves
   * out those that fail on the user's own code only in the sandbox.
   */
  failedTests: z.array(z.string()).optional(),
  /** For the user's own code only: the tests it passes (as original_passed_tests), which `peagen init` lists as expected. */
  originalPassedTests: z.array(z.string()).optional(),
  executor: z.string(),
  exitCode: z.number().nullable(),
  stoppedBy: z.string().optional(),
  wallMs: z.number(),
  peakMemoryKb: z.number().optional(),
  /** The example's installed libraries, when it ships a requirements.txt or package.json. */
  environments: z.array(EnvironmentUseSchema).optional(),
});
export type Evaluation = z.infer<typeof EvaluationSchema>;

/** The languages whose program text Peagen reads structure from (`structure:*` axes). */
export const StructureLanguageSchema = z.enum(['python', 'javascript']);

/**
 * One axis of the MAP-Elites grid. `from`: `objective`, `metric:NAME` (a metric the evaluator
 * prints), `codeLength` (characters), `lines`, or the program's structure read from its text:
 * `structure:loops` (deepest loop nesting), `structure:builtins` (distinct native built-ins
 * called), `structure:recursion` (1 when a function calls itself), `structure:containers` (the
 * hashed containers built: 1 a map, 2 a set, 3 both, 0 neither); see
 * daemon/evolution/evodb/structure.ts. `bins`: ascending edges; a value's bin is the number of
 * edges at or below it. `language`: what a structure axis reads the program as; filled in from
 * the example when a run starts, so an example need not write it.
 */
export const FeatureDescriptorSchema = z.object({
  name: z.string().min(1),
  from: z
    .string()
    .regex(
      /^(objective|codeLength|lines|metric:.+|structure:(loops|builtins|recursion|containers))$/,
      'expected objective, codeLength, lines, metric:NAME, structure:loops, structure:builtins, structure:recursion or structure:containers',
    ),
  bins: z.array(z.number()).min(1),
  language: StructureLanguageSchema.optional(),
});
export type FeatureDescriptor = z.infer<typeof FeatureDescriptorSchema>;

/** Folders of a project root that hold what its tests import, never its own code. */
export const PROJECT_DEPENDENCY_DIRS = ['node_modules', '.venv', 'venv'] as const;

export const ProjectEnvironmentSchema = z.object({
  /** The project's root, relative to the example directory: only `..` steps (an ancestor). */
  root: z.string().regex(/^\.\.(\/\.\.)*$/, 'root must be an ancestor of the example directory: ../.. and so on'),
  /** Dependency folders in that root, each one of PROJECT_DEPENDENCY_DIRS. */
  dependencies: z.array(z.enum(PROJECT_DEPENDENCY_DIRS)).default([]),
  /**
   * Interpreter installations outside the system directories (a pyenv Python: its prefix,
   * holding bin/python3) the tests run with: mounted read-only at the same path, their bin
   * first on the tests' PATH.
   */
  toolchains: z.array(z.string().regex(/^\/[^\0]*[^/]$/, 'a toolchain is an absolute path')).default([]),
});
export type ProjectEnvironment = z.infer<typeof ProjectEnvironmentSchema>;

/** `peagen.example.json`: how to evaluate one benchmark. */
export const ExampleConfigSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  language: z.string().optional(),
  /**
   * The file the mutator edits, relative to the example directory; or several files (paths or
   * globs, resolved in order at load: daemon/evaluation/programGlobs.ts), which the mutator
   * edits together as one program (shared/programFiles.ts).
   */
  program: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  entry: z.string().optional(),
  /**
   * argv run with the example directory as cwd (read-only); `{program}` is the candidate's path
   * (a multi-file program's first file), `{workspace}` the folder that holds its files.
   */
  evaluator: z.array(z.string().min(1)).min(1),
  /** `unit`: what the objective is counted in (`x` for a speedup, `ms`); niche labels show ranges in it. */
  objective: z.object({ name: z.string().min(1), direction: DirectionSchema, unit: z.string().min(1).optional() }),
  limits: z
    .object({
      timeoutMs: z.number().int().positive(),
      memoryMb: z.number().int().positive(),
      pids: z.number().int().positive(),
    })
    .partial()
    .default({}),
  /**
   * The MAP-Elites feature descriptors: each places a program in a bin by one value. Default,
   * for a Python or JavaScript program: the objective (log-spaced bins), loop nesting, native
   * built-ins called, recursion and the hashed containers built; for another language the objective and the code length.
   * See daemon/evolution/evodb/features.ts.
   */
  features: z.array(FeatureDescriptorSchema).optional(),
  /**
   * What the project's tests need from the user's machine, which init found (peagen init
   * --tests): the project's installed dependency folders and the interpreters its test
   * command runs with. The sandbox sees them read-only; the project's copy in the example
   * links to them (harness project_tests). See docs/evolve-your-code.md.
   */
  project: ProjectEnvironmentSchema.optional(),
});
export type ExampleConfig = z.infer<typeof ExampleConfigSchema>;

export const EXAMPLE_CONFIG_FILE = 'peagen.example.json';

/** The example's program entries as written (one path, or the list of paths and globs). */
export function programEntries(config: Pick<ExampleConfig, 'program'>): string[] {
  return typeof config.program === 'string' ? [config.program] : [...config.program];
}
