import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import type { Evaluation } from '../../../shared/evaluation';
import { type SandboxStatus, Status } from '../../../shared/protocol';
import type { Result } from '../../../shared/task';
import { describeEnvironmentUse } from '../../evaluation/environment/environmentAccess';
import { isEnvironmentCached } from '../../evaluation/environment/environmentCache';
import { environmentSpecsOf } from '../../evaluation/environment/environmentSpec';
import { objectiveValue } from '../../../shared/objectiveText';
import { testsPassedText } from '../../../shared/testsPassed';
import { type Example, isMultiFile, loadExample } from '../../evaluation/example';
import { bundleProgram } from '../../../shared/programFiles';
import { ENVIRONMENT_FAILED } from '../../handlers/evaluate';
import { readLiveRecord } from '../../../shared/discovery';
import type { ExecutorChoice } from '../../sandbox/Executor';
import { reclaimOwnSandboxes } from '../../sandbox/liveSandboxes';
import { CliContext, CliError, createEngine, ExitCode, parsePositiveInt, watchInterrupt } from '../context';
import { submitAndFollow } from '../followTask';

interface EvalOptions {
  program?: string;
  executor?: ExecutorChoice;
  seed?: number;
  quick?: boolean;
  sync?: boolean;
}

const EXECUTORS: readonly ExecutorChoice[] = ['auto', 'docker', 'bwrap', 'process'];
const WAIT_MS = 3_600_000;

/** The executor that ran the evaluation, where, and why it was chosen (JSON: the `sandbox` object). */
export interface SandboxUsed extends SandboxStatus {
  via: 'daemon' | 'this process';
}

function describe(name: string, objective: { name: string; unit?: string | undefined }, evaluation: Evaluation, sandbox: SandboxUsed, verbose: boolean): string {
  const tests = testsPassedText(evaluation.metrics);
  const value = `${objective.name} ${objectiveValue(evaluation.objective, objective, tests ? 4 : 3)}`;
  const lines = evaluation.correct
    ? [`${name}: correct — ${tests ? `${tests} (${value}, ${evaluation.direction})` : `${value} (${evaluation.direction})`}`]
    : [`${name}: FAILED (${evaluation.failure?.reason}) — ${evaluation.failure?.message}`];
  // A correct verdict with failing tests (objective: tests) names them.
  if (evaluation.correct && tests && evaluation.errorText) lines.push(evaluation.errorText.split('\n')[0]!);
  const executor = `${sandbox.executor}${sandbox.isolates ? '' : ' (NOT isolated)'}${sandbox.via === 'daemon' ? ', via the daemon' : ''}`;
  lines.push(`executor: ${executor}; wall ${(evaluation.wallMs / 1000).toFixed(1)} s${evaluation.stoppedBy ? `; stopped by ${evaluation.stoppedBy}` : ''}`);
  // The long why-this-executor story belongs to `peagen daemon status`; here only on request.
  if (verbose) lines.push(`sandbox: ${sandbox.reason}`);
  for (const use of evaluation.environments ?? []) lines.push(`environment: ${describeEnvironmentUse(use)}`);
  const metrics = Object.entries(evaluation.metrics).map(([key, value]) => `${key}=${value}`);
  if (metrics.length > 0) lines.push(`metrics: ${metrics.join(', ')}`);
  const detail = !evaluation.correct && evaluation.errorText ? beyondHeadline(evaluation.errorText, evaluation.failure?.message ?? '') : '';
  if (detail) lines.push(detail);
  return lines.join('\n');
}

/**
 * The failing candidate's text, less what the FAILED line already printed: the evaluator often
 * makes its message out of that very text, and the user would read it twice.
 */
function beyondHeadline(errorText: string, message: string): string {
  const text = errorText.trim();
  const headline = message.trim();
  if (!headline) return text;
  if (text === headline) return '';
  return text.startsWith(headline) ? text.slice(headline.length).trim() : text;
}

export function registerEvalCommand(program: Command): void {
  program
    .command('eval <example-dir>')
    .description("evaluate one program with an example's evaluator in a fresh sandbox")
    .option('--program <file>', "the candidate to evaluate (default: the example's own program); for a multi-file example, a directory holding its files")
    .option('--executor <name>', `sandbox: ${EXECUTORS.join(', ')} or an allowed plugin's executor (default: the configured one, auto; runs here, not in the daemon)`)
    .option('--seed <n>', 'seed for the held-out inputs', parsePositiveInt('--seed'))
    .option('--quick', 'smaller inputs (the evaluator must support --quick)')
    .option('--sync', 'run here with an embedded engine even when a daemon is running')
    .action(async (exampleDir: string, options: EvalOptions, command: Command) => {
      const ctx = CliContext.of(command);
      // Plugin executors are known only once plugins load: selectExecutor names what is offered.
      if (options.executor && !/^[a-z][\w@./-]*$/.test(options.executor)) {
        throw new CliError(`--executor must be one of ${EXECUTORS.join(', ')} or an allowed plugin's executor name`, ExitCode.Usage);
      }
      let example;
      try {
        example = loadExample(exampleDir);
      } catch (error) {
        throw new CliError((error as Error).message, ExitCode.Usage);
      }
      for (const note of example.notes) ctx.info(note);
      for (const caution of example.cautions) ctx.info(`warning: ${caution}`);
      let program: string | undefined;
      if (options.program) {
        try {
          program = isMultiFile(example) ? programFromDirectory(example.programFiles, options.program) : fs.readFileSync(options.program, 'utf8');
        } catch (error) {
          throw new CliError(`cannot read --program: ${(error as Error).message}`, ExitCode.Usage);
        }
      }
      const { evaluation, sandbox } = await evaluateExample(ctx, example, {
        ...(program !== undefined && { program }),
        ...(options.seed !== undefined && { seed: options.seed }),
        ...(options.quick && { quick: true }),
        ...(options.executor && { executor: options.executor }),
        ...(options.sync && { sync: true }),
      });
      ctx.output({ example: example.config.name, objectiveName: example.config.objective.name, sandbox, ...evaluation }, () =>
        describe(example.config.name, example.config.objective, evaluation, sandbox, ctx.verbose),
      );
      if (!evaluation.correct) process.exitCode = ExitCode.Failed;
    });
}

/**
 * One evaluation of an example's program (or `options.program`) with its evaluator, as
 * `peagen eval` runs it: through the running daemon when there is one and nothing asks for
 * this process, otherwise an embedded engine (in-memory queue, in-process worker). `peagen
 * init` uses it to check that the seed evaluates before it says OK.
 */
export async function evaluateExample(
  ctx: CliContext,
  example: Example,
  options: { program?: string; seed?: number; quick?: boolean; executor?: ExecutorChoice; sync?: boolean; label?: string },
): Promise<{ evaluation: Evaluation; sandbox: SandboxUsed }> {
  // Installing takes a while the first time: say so before it starts (this host's cache).
  try {
    for (const environment of environmentSpecsOf(example.dir)) {
      if (!(await isEnvironmentCached(environment))) ctx.info(`installing ${environment.file} of ${example.config.name} (once; later evaluations reuse it) ...`);
    }
  } catch (error) {
    throw new CliError((error as Error).message, ExitCode.Usage);
  }
  const spec = {
    kind: 'evaluate',
    payload: {
      exampleDir: example.dir,
      ...(options.program !== undefined && { program: options.program }),
      ...(options.seed !== undefined && { seed: options.seed }),
      args: options.quick ? ['--quick'] : [],
    },
  };

  let result: Result | null;
  let sandbox: SandboxUsed;
  // Through the running daemon when there is one and nothing asks for this process;
  // otherwise an embedded engine (in-memory queue, in-process worker) runs the same task.
  if (!options.executor && !options.sync && readLiveRecord(ctx.stateDir)) {
    ({ result, sandbox } = await ctx.withDaemon(
      async (client) => {
        const status = (await client.request(Status.type)).sandbox;
        const label = `evaluating ${example.config.name} through the daemon (${status.executor} sandbox)`;
        const { result } = await submitAndFollow(ctx, client, spec, { label, waitMs: WAIT_MS, progress: true });
        return { result, sandbox: { ...status, via: 'daemon' as const } };
      },
      { settings: { alternative: 'add --sync to evaluate here' } },
    ));
  } else {
    const config = { ...ctx.config, sandbox: { ...ctx.config.sandbox, ...(options.executor && { executor: options.executor }) } };
    const engine = await createEngine(ctx, { ...config, worker: { ...config.worker, concurrency: 1 } });
    const interrupt = watchInterrupt();
    try {
      sandbox = { ...(await engine.status()).sandbox, via: 'this process' };
      ctx.info(`${options.label ?? `evaluating ${example.config.name}`} in a ${sandbox.executor} sandbox ...`);
      const task = await engine.submit(spec);
      result = await interrupt.wait(engine.result(task.id, WAIT_MS), async () => {
        await reclaimOwnSandboxes();
        return `interrupted: the evaluation of ${example.config.name} was stopped`;
      });
    } finally {
      interrupt.dispose();
      await engine.stop({ drain: false });
    }
  }
  if (result?.error?.code === ENVIRONMENT_FAILED) throw new CliError(result.error.message, ExitCode.Failed);
  const evaluation = result?.data as Evaluation | undefined;
  if (!result || !evaluation || typeof evaluation !== 'object' || !('correct' in evaluation)) {
    throw new CliError(`the evaluation did not complete: ${result?.error ? `${result.error.code}: ${result.error.message}` : 'no result'}`, ExitCode.Failed);
  }
  return { evaluation, sandbox };
}

/** A multi-file candidate: the example's files, read from `dir` at their paths, bundled. */
function programFromDirectory(files: readonly string[], dir: string): string {
  if (!fs.statSync(dir).isDirectory()) {
    throw new Error(`this example's program spans ${files.length} files (${files.join(', ')}): give --program the directory that holds them`);
  }
  return bundleProgram(files.map((file) => ({ path: file, text: fs.readFileSync(path.join(dir, ...file.split('/')), 'utf8') })));
}
