import type { Command } from 'commander';
import { DeadLetters, Status } from '../../../shared/protocol';
import { CliContext, CliError, ExitCode } from '../context';
import { describeStatus } from '../statusText';

export function registerQueueCommands(program: Command): void {
  const queue = program.command('queue').description('inspect the task queue of the running daemon');

  queue
    .command('stats')
    .description('pending, in-flight, retrying and dead-lettered task counts, and the worker pools by caps and host')
    .option('--workers', 'also list every worker pool, one line each (--json always has them all)')
    .action(async (options: { workers?: boolean }, command: Command) => {
      const ctx = CliContext.of(command);
      // A QUEUE_URL here that the daemon does not use means these are not the counts asked for.
      const status = await ctx.withDaemon((client) => client.request(Status.type), { settings: {} });
      ctx.output({ ...status.queue, workers: status.workers, cluster: status.cluster }, () =>
        describeStatus(status, { allWorkers: options.workers === true, command: 'peagen queue stats' }),
      );
    });

  const dlq = queue.command('dlq').description('the dead-letter list: tasks that failed for good');

  dlq
    .command('list')
    .description('list dead-lettered tasks with the reason each failed')
    .action(async (_options: unknown, command: Command) => {
      const ctx = CliContext.of(command);
      const { entries } = await ctx.withDaemon((client) => client.request(DeadLetters.list));
      ctx.output(entries, () =>
        entries.length === 0
          ? 'the dead-letter list is empty'
          : entries.map((entry) => `${entry.task.id}  ${entry.task.kind}  attempts=${entry.task.attempts}  ${entry.reason}`).join('\n'),
      );
    });

  dlq
    .command('inspect <taskId>')
    .description('show one dead-lettered task in full')
    .action(async (taskId: string, _options: unknown, command: Command) => {
      const ctx = CliContext.of(command);
      const { entries } = await ctx.withDaemon((client) => client.request(DeadLetters.list));
      const entry = entries.find((candidate) => candidate.task.id === taskId);
      if (!entry) throw new CliError(`task ${taskId} is not in the dead-letter list`, ExitCode.Failed);
      ctx.output(entry, JSON.stringify(entry, null, 2));
    });

  dlq
    .command('retry <taskId>')
    .description('put a dead-lettered task back in the queue with its attempts reset')
    .action(async (taskId: string, _options: unknown, command: Command) => {
      const ctx = CliContext.of(command);
      const { retried } = await ctx.withDaemon((client) => client.request(DeadLetters.retry, { taskId }));
      if (!retried) throw new CliError(`task ${taskId} is not in the dead-letter list`, ExitCode.Failed);
      ctx.output({ retried, taskId }, `task ${taskId} is queued again`);
    });
}
