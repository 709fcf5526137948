import type { Command } from 'commander';
import { CancelTask, GetResult } from '../../../shared/protocol';
import type { Result } from '../../../shared/task';
import { reclaimOwnSandboxes } from '../../sandbox/liveSandboxes';
import { CliContext, CliError, createEngine, ExitCode, parseCaps, parsePositiveInt, watchInterrupt } from '../context';
import { submitAndFollow } from '../followTask';

function describeResult(result: Result): string {
  const head = `task ${result.taskId}: ${result.status} after ${result.attempts} attempt(s)${result.durationMs !== undefined ? ` in ${result.durationMs} ms` : ''}`;
  const error = result.error ? `\n${result.error.code}: ${result.error.message}` : '';
  const data = result.data !== undefined ? `\n${JSON.stringify(result.data, null, 2)}` : '';
  return head + error + data;
}

export function registerTaskCommands(program: Command): void {
  const task = program.command('task').description('submit tasks to the fabric and read their results');

  task
    .command('submit <kind>')
    .description('queue one task (through the daemon, or run it here with --sync)')
    .option('--payload <json>', 'the task payload as JSON', '{}')
    .option('--requires <caps>', 'capabilities the task needs, comma-separated', parseCaps)
    .option('--wait <seconds>', 'wait this long for the result', parsePositiveInt('--wait'))
    .option('--sync', 'run the task in this process with an embedded queue and worker (no daemon)')
    .action(async (kind: string, options: { payload: string; requires?: string[]; wait?: number; sync?: boolean }, command: Command) => {
      const ctx = CliContext.of(command);
      let payload: unknown;
      try {
        payload = JSON.parse(options.payload);
      } catch (error) {
        throw new CliError(`--payload is not valid JSON: ${(error as Error).message}`, ExitCode.Usage);
      }
      const spec = { kind, payload, ...(options.requires && { requires: options.requires }) };
      const waitMs = (options.wait ?? (options.sync ? 3600 : 0)) * 1000;
      let taskId: string;
      let result: Result | null = null;
      if (options.sync) {
        const engine = await createEngine(ctx, ctx.config);
        const interrupt = watchInterrupt();
        try {
          const id = (await engine.submit(spec)).id;
          taskId = id;
          ctx.info(`task ${id} running here (--sync; Ctrl-C stops it)`);
          result = await interrupt.wait(engine.result(id, waitMs), async () => {
            await reclaimOwnSandboxes();
            return `interrupted: task ${id} stopped (it ran in this process)`;
          });
        } finally {
          interrupt.dispose();
          await engine.stop({ drain: false });
        }
      } else {
        ({ taskId, result } = await ctx.withDaemon((client) => submitAndFollow(ctx, client, spec, { label: `submitted ${kind}`, waitMs, progress: ctx.verbose }), {
          settings: { alternative: 'add --sync to run it here' },
        }));
      }
      ctx.output({ taskId, result }, result ? describeResult(result) : `queued task ${taskId}`);
      if (result && result.status === 'error') process.exitCode = ExitCode.Failed;
      if (!result && waitMs > 0) throw new CliError(`no result for task ${taskId} within ${waitMs / 1000} s`, ExitCode.Failed);
    });

  task
    .command('result <taskId>')
    .description('show the result of a task, optionally waiting for it')
    .option('--wait <seconds>', 'wait this long for the result', parsePositiveInt('--wait'), 0)
    .action(async (taskId: string, options: { wait: number }, command: Command) => {
      const ctx = CliContext.of(command);
      const { result, known } = await ctx.withDaemon((client) => client.request(GetResult.type, { taskId, waitMs: options.wait * 1000 }));
      if (!result && known === false) {
        throw new CliError(
          `unknown task ${taskId}: the daemon's queue holds no task by that id, nor its result (a mistyped id, or a result that expired); \`peagen task submit\` prints the id of each task it queues, \`peagen queue stats\` counts the queued and running ones and \`peagen queue dlq list\` lists those that failed for good`,
          ExitCode.Failed,
        );
      }
      if (!result) throw new CliError(`task ${taskId} has no result yet: it is queued or running; wait for it with \`peagen task result ${taskId} --wait SECONDS\``, ExitCode.Failed);
      ctx.output(result, describeResult(result));
      if (result.status === 'error') process.exitCode = ExitCode.Failed;
    });

  task
    .command('cancel <taskId>')
    .description('withdraw a queued task or stop a running one')
    .action(async (taskId: string, _options: unknown, command: Command) => {
      const ctx = CliContext.of(command);
      const { cancelled } = await ctx.withDaemon((client) => client.request(CancelTask.type, { taskId }));
      ctx.output({ taskId, cancelled }, cancelled ? `task ${taskId} cancelled` : `task ${taskId} was not queued or running`);
      if (!cancelled) process.exitCode = ExitCode.Failed;
    });
}
