/**
 * Evaluates one candidate: the example's trusted evaluator runs in a fresh sandbox with the
 * example directory mounted read-only at /harness (so nothing the candidate does can touch
 * the harness) and the candidate alone in the writable workspace. The libraries the example's
 * requirements.txt / package.json name are installed once per host, in a sandbox of the same
 * executor, and mounted read-only beside it (environment/).
 */
import type { Evaluation } from '../../shared/evaluation';
import { type Executor, type LimitOverrides, WORKSPACE_PATH } from '../sandbox/Executor';
import { environmentAccess } from './environment/environmentAccess';
import { type EnvironmentOptions, ensureEnvironment } from './environment/environmentCache';
import { environmentSpecsOf } from './environment/environmentSpec';
import { candidateFiles, type Example } from './example';
import { harnessLibraryAccess } from './harnessLibrary';
import { interpretRun } from './interpretRun';
import { projectAccess } from './projectAccess';
import { usesOpenEvolveAdapter } from './openEvolveLayout';
import { newVerdictSeal, SEALED_VERDICT_FLAG } from './verdictSeal';

export const HARNESS_PATH = '/harness';

export interface EvaluateOptions {
  seed?: number;
  /** Extra evaluator arguments (e.g. `--quick`). */
  args?: readonly string[];
  signal?: AbortSignal;
  /** Caps the example's own time limit (e.g. by the task's deadline). */
  timeoutMs?: number;
  /** Replaces the example's own time limit (a run's --eval-timeout); `timeoutMs` still caps it. */
  timeLimitMs?: number;
  /** Where the example's requirements.txt / package.json environments are cached and how they are installed. */
  environments?: Omit<EnvironmentOptions, 'signal'>;
}

export function evaluatorCommand(example: Pick<Example, 'config' | 'programFiles'>, options: Pick<EvaluateOptions, 'seed' | 'args'>): string[] {
  const programPath = `${WORKSPACE_PATH}/${example.programFiles[0]!}`;
  return [
    ...example.config.evaluator.map((arg) => arg.replaceAll('{program}', programPath).replaceAll('{workspace}', WORKSPACE_PATH)),
    ...(options.seed !== undefined ? ['--seed', String(options.seed)] : []),
    ...(options.args ?? []),
  ];
}

export async function evaluateProgram(executor: Executor, example: Example, program: string, options: EvaluateOptions = {}): Promise<Evaluation> {
  const limits: LimitOverrides = { ...example.config.limits, ...(options.timeLimitMs !== undefined && { timeoutMs: options.timeLimitMs }) };
  if (options.timeoutMs !== undefined) limits.timeoutMs = Math.min(limits.timeoutMs ?? options.timeoutMs, options.timeoutMs);
  let files: Record<string, string>;
  try {
    files = Object.fromEntries(candidateFiles(example, program).map((file) => [file.path, file.text]));
  } catch (error) {
    // A candidate that is not a bundle of this example's files cannot be run; say so as a crash.
    const message = `the candidate is not a program of this example: ${(error as Error).message}`;
    return { correct: false, objective: null, direction: example.config.objective.direction, metrics: {}, failure: { reason: 'crash', message }, errorText: message, executor: executor.name, exitCode: null, wallMs: 0 };
  }
  const library = harnessLibraryAccess();
  // Installed (once per host, in a sandbox of this executor) before the evaluation's sandbox
  // is made; an install failure or a refused request is an EnvironmentError, which callers
  // report as it is.
  const installed = [];
  for (const spec of environmentSpecsOf(example.dir)) {
    installed.push(await ensureEnvironment(executor, spec, { ...options.environments, ...(options.signal && { signal: options.signal }) }));
  }
  const environment = environmentAccess(installed, library.env);
  const project = projectAccess(example.dir, example.config);
  // The OpenEvolve adapter runs evaluator.py (and, in its in-process mode, the candidate) in
  // the sandbox beside it: its verdict counts only with the seal it alone was given.
  const seal = usesOpenEvolveAdapter(example.config) ? newVerdictSeal() : undefined;
  const run = await executor.run({
    command: [...evaluatorCommand(example, options), ...(seal !== undefined ? [SEALED_VERDICT_FLAG] : [])],
    ...(seal !== undefined && { stdin: `${seal}\n` }),
    // No workspace: it starts empty, the program's files are written in (no host directory
    // to make, share between runs, or leave behind).
    files,
    mounts: [{ hostPath: example.dir, sandboxPath: HARNESS_PATH }, library.mount, ...environment.mounts, ...project.mounts],
    env: { ...environment.env, ...project.env },
    cwd: HARNESS_PATH,
    limits,
    ...(options.signal && { signal: options.signal }),
  });
  const evaluation = interpretRun(run, example.config.objective.direction, seal !== undefined ? { seal } : {});
  return environment.uses.length > 0 ? { ...evaluation, environments: environment.uses } : evaluation;
}
