import * as fs from 'node:fs';
import type { Command } from 'commander';
import type { Evaluation } from '../../../shared/evaluation';
import { GetResult, Status, SubmitTask } from '../../../shared/protocol';
import type { Result } from '../../../shared/task';
import { Engine } from '../../engine/Engine';
import { loadExample } from '../../evaluation/example';
import { readLiveRecord } from '../../rpc/discovery';
import type { ExecutorChoice } from '../../sandbox/selectExecutor';
import { CliContext, CliError, ExitCode, parsePositiveInt } from '../context';

interface EvalOptions {
  program?: string;
  executor?: ExecutorChoice;
  seed?: number;
  quick?: boolean;
}

const EXECUTORS: readonly ExecutorChoice[] = ['auto', 'docker', 'bwrap', 'process'];

function describe(name: string, objectiveName: string, evaluation: Evaluation, sandbox: string): string {
  const lines = evaluation.correct
    ? [`${name}: correct — ${objectiveName} ${evaluation.objective?.toFixed(3)} (${evaluation.direction})`]
    : [`${name}: FAILED (${evaluation.failure?.reason}) — ${evaluation.failure?.message}`];
  lines.push(`executor: ${sandbox}; wall ${(evaluation.wallMs / 1000).toFixed(1)} s${evaluation.stoppedBy ? `; stopped by ${evaluation.stoppedBy}` : ''}`);
  const metrics = Object.entries(evaluation.metrics).map(([key, value]) => `${key}=${value}`);
  if (metrics.length > 0) lines.push(`metrics: ${metrics.join(', ')}`);
  if (!evaluation.correct && evaluation.errorText) lines.push(evaluation.errorText);
  return lines.join('\n');
}

export function registerEvalCommand(program: Command): void {
  program
    .command('eval <example-dir>')
    .description("evaluate one program with an example's evaluator in a fresh sandbox")
    .option('--program <file>', "the candidate to evaluate (default: the example's own program)")
    .option('--executor <name>', `sandbox: ${EXECUTORS.join(', ')} (default: the configured one, auto)`)
    .option('--seed <n>', 'seed for the held-out inputs', parsePositiveInt('--seed'))
    .option('--quick', 'smaller inputs (the evaluator must support --quick)')
    .action(async (exampleDir: string, options: EvalOptions, command: Command) => {
      const ctx = CliContext.of(command);
      if (options.executor && !EXECUTORS.includes(options.executor)) {
        throw new CliError(`--executor must be one of ${EXECUTORS.join(', ')}`, ExitCode.Usage);
      }
      let example;
      try {
        example = loadExample(exampleDir);
      } catch (error) {
        throw new CliError((error as Error).message, ExitCode.Usage);
      }
      let program: string | undefined;
      if (options.program) {
        try {
          program = fs.readFileSync(options.program, 'utf8');
        } catch (error) {
          throw new CliError(`cannot read --program: ${(error as Error).message}`, ExitCode.Usage);
        }
      }
      const spec = {
        kind: 'evaluate',
        payload: {
          exampleDir: example.dir,
          ...(program !== undefined && { program }),
          ...(options.seed !== undefined && { seed: options.seed }),
          args: options.quick ? ['--quick'] : [],
        },
      };

      let result: Result | null;
      let sandbox: string;
      // Through the running daemon when there is one and no executor is forced; otherwise an
      // embedded engine (in-memory queue, in-process worker) runs the same evaluate task.
      if (!options.executor && readLiveRecord(ctx.stateDir)) {
        ({ result, sandbox } = await ctx.withDaemon(async (client) => {
          const status = await client.request(Status.type);
          const { taskId } = await client.request(SubmitTask.type, spec);
          const answer = await client.request(GetResult.type, { taskId, waitMs: 3_600_000 });
          return { result: answer.result, sandbox: `${status.sandbox.executor} (via the daemon: ${status.sandbox.reason})` };
        }));
      } else {
        const config = { ...ctx.config, sandbox: { ...ctx.config.sandbox, ...(options.executor && { executor: options.executor }) } };
        let engine: Engine;
        try {
          engine = await Engine.create({ ...config, worker: { ...config.worker, concurrency: 1 } }, { log: (line) => ctx.info(line) });
        } catch (error) {
          throw new CliError((error as Error).message, ExitCode.Failed);
        }
        try {
          const status = (await engine.status()).sandbox;
          sandbox = status.reason;
          ctx.info(`evaluating ${example.config.name} in a ${status.executor} sandbox ...`);
          const task = await engine.submit(spec);
          result = await engine.result(task.id, 3_600_000);
        } finally {
          await engine.stop({ drain: false });
        }
      }
      const evaluation = result?.data as Evaluation | undefined;
      if (!result || !evaluation || typeof evaluation !== 'object' || !('correct' in evaluation)) {
        throw new CliError(`the evaluation did not complete: ${result?.error ? `${result.error.code}: ${result.error.message}` : 'no result'}`, ExitCode.Failed);
      }
      ctx.output({ example: example.config.name, objectiveName: example.config.objective.name, sandbox, ...evaluation }, () =>
        describe(example.config.name, example.config.objective.name, evaluation, sandbox),
      );
      if (!evaluation.correct) process.exitCode = ExitCode.Failed;
    });
}
