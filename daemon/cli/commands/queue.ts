import type { Command } from 'commander';
import { type ClusterStatus, DeadLetters, Status } from '../../../shared/protocol';
import { CliContext, CliError, ExitCode } from '../context';

export function describeStatus(status: Status.Response): string {
  const { queue, workers } = status;
  return [
    `queue: ${queue.backend} (${queue.url}) — ${queue.pending} pending, ${queue.inFlight} in flight, ${queue.delayed} waiting to retry, ${queue.dead} dead`,
    ...describeDepth(status.cluster),
    workers.count > 0
      ? `workers here: ${workers.count} ${workers.mode} (${workers.busy} busy), caps [${workers.caps.join(', ')}]`
      : 'workers here: none (tasks are served by `peagen worker start` on the cluster)',
    ...describeWorkers(status.cluster),
    `sandbox: ${status.sandbox.executor}${status.sandbox.isolates ? '' : ' (NOT isolated)'} — ${status.sandbox.reason}`,
  ].join('\n');
}

/** Pending work per requirement set: which kind of worker the queue is waiting for. */
function describeDepth(cluster: ClusterStatus): string[] {
  const busy = cluster.depth.filter((entry) => entry.pending + entry.inFlight + entry.delayed > 0);
  if (busy.length === 0) return [];
  return [
    'by requirement set:',
    ...busy.map(
      (entry) =>
        `  ${entry.kind} [${entry.requires.join(', ')}]: ${entry.pending} pending, ${entry.inFlight} in flight, ${entry.delayed} waiting to retry`,
    ),
  ];
}

/** Every worker that announced itself to this queue, by host. */
function describeWorkers(cluster: ClusterStatus, now = Date.now()): string[] {
  if (cluster.workers.length === 0) return ['cluster: no worker is serving this queue'];
  const hosts = new Set(cluster.workers.map((worker) => worker.host));
  return [
    `cluster: ${cluster.workers.length} worker pool(s) on ${hosts.size} host(s)`,
    ...cluster.workers.map((worker) => {
      const processes = worker.processes !== undefined ? `, ${worker.processes} process(es)` : '';
      const seen = Math.max(0, Math.round((now - worker.seenAt) / 1000));
      return `  ${worker.host}  ${worker.id} (pid ${worker.pid})  ${worker.mode} ${worker.busy}/${worker.slots} busy${processes}  caps [${worker.caps.join(', ')}]  serves ${worker.kinds.join(', ') || 'nothing'}  (seen ${seen} s ago)`;
    }),
  ];
}

export function registerQueueCommands(program: Command): void {
  const queue = program.command('queue').description('inspect the task queue of the running daemon');

  queue
    .command('stats')
    .description('pending, in-flight, retrying and dead-lettered task counts')
    .action(async (_options: unknown, command: Command) => {
      const ctx = CliContext.of(command);
      // A QUEUE_URL here that the daemon does not use means these are not the counts asked for.
      const status = await ctx.withDaemon((client) => client.request(Status.type), { settings: {} });
      ctx.output({ ...status.queue, workers: status.workers, cluster: status.cluster }, () => describeStatus(status));
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
