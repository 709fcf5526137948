import * as path from 'node:path';
import type { Command } from 'commander';
import { assembleEngine, assembleWarmSpawner } from '../../composition';
import type { PeagenConfig } from '../../config';
import { CliContext, CliError, ExitCode, parseCaps, parsePositiveInt } from '../context';
import { serveWorkerObservability } from '../../observability/serveObservability';
import { shutdownTracing, startTracing } from '../../observability/tracing';
import { parseMetricsListen } from './metrics';

interface WorkerStartOptions {
  caps?: string[];
  plugins?: string[];
  kinds?: string[];
  concurrency?: number;
  mode?: 'in-process' | 'one-shot';
  warmPool?: number;
  maxWorkers?: number;
  exitAfterIdle?: number;
  metricsListen?: string;
  allowUnisolated?: boolean;
}

const WARM_HELP = `
Warm spawner (--warm-pool N):
  Keeps N one-shot worker processes ready, each with its handlers loaded and its sandbox
  made, so a task starts without a fork or a sandbox build. While work is in sight it keeps
  min(M, running + pending + N) processes (--max-workers M, default max(N, concurrency));
  after --exit-after-idle S seconds with nothing pending or running it retires them all
  (scale to zero) and claims nothing until work is queued again. This command stays running
  (holding no sandbox) and prints how every worker process ended when stopped (--json).

Without --warm-pool, --exit-after-idle S stops this worker after S seconds idle (a scaler
such as KEDA starts it again).`;

export function registerWorkerCommands(program: Command): void {
  const worker = program.command('worker').description('run worker pools against the configured queue');

  worker
    .command('start')
    .description('claim and run tasks whose required capabilities this worker has (env: QUEUE_URL, WORKER_CAPS, ...)')
    .option('--caps <caps>', 'capabilities of this host, comma-separated (e.g. cpu,llm,docker)', parseCaps)
    .option('--plugins <modules>', 'handler plugin modules to load, comma-separated', parseCaps)
    .option('--kinds <kinds>', 'serve only these task kinds, comma-separated (e.g. mutate: LLM calls only; default: every kind this worker can serve)', parseCaps)
    .option('--concurrency <n>', 'tasks run at once', parsePositiveInt('--concurrency'))
    .option('--mode <mode>', 'in-process, or one-shot (a fresh process per task)')
    .option('--warm-pool <n>', 'keep n one-shot worker processes ready, sandbox made (the warm spawner)', parsePositiveInt('--warm-pool'))
    .option('--max-workers <m>', 'with --warm-pool: worker processes at most (default max(n, concurrency))', parsePositiveInt('--max-workers'))
    .option('--exit-after-idle <seconds>', 'stop after this long with nothing to do (with --warm-pool: scale to zero)', parsePositiveInt('--exit-after-idle'))
    .option(
      '--metrics-listen <address>',
      'host:port of this pool\'s /metrics, /healthz and /readyz, or "off" (default observability.workerMetricsListen, 127.0.0.1:9465; the next free port when taken)',
      parseMetricsListen,
    )
    .option(
      '--allow-unisolated',
      'run execute and evaluate tasks queued by other processes even on the process executor (no isolation: only when everyone who can write to the queue is trusted; sandbox.allowUnisolated, PEAGEN_ALLOW_UNISOLATED=1)',
    )
    .addHelpText('after', WARM_HELP)
    .action(async (options: WorkerStartOptions, command: Command) => {
      const ctx = CliContext.of(command);
      checkWarmFlags(options);
      const base = ctx.config;
      const config: PeagenConfig = {
        ...base,
        ...(options.allowUnisolated && { sandbox: { ...base.sandbox, allowUnisolated: true } }),
        worker: {
          ...base.worker,
          ...(options.caps && { caps: options.caps }),
          ...(options.plugins && { plugins: options.plugins }),
          ...(options.kinds && { kinds: options.kinds }),
          ...(options.concurrency !== undefined && { concurrency: Math.max(1, options.concurrency) }),
          ...(options.mode && { mode: options.mode }),
          ...(options.exitAfterIdle !== undefined && { exitAfterIdleMs: options.exitAfterIdle * 1000 }),
        },
      };
      if (config.queue.url.startsWith('memory:')) {
        ctx.info(
          'warning: the queue is memory:// — private to this process, so this worker only sees tasks submitted to it here. ' +
            'Workers for the daemon run inside it (`peagen daemon start`); separate workers need a shared queue (QUEUE_URL=redis://...).',
        );
      }
      await startTracing(config.observability, 'peagen-worker', { log: (line) => ctx.info(line) });
      const entry = path.join(__dirname, 'daemon.js');
      const metricsListen = options.metricsListen ?? config.observability.workerMetricsListen;
      const interrupted = new Promise<string>((resolve) => {
        process.once('SIGINT', () => resolve('interrupted'));
        process.once('SIGTERM', () => resolve('terminated'));
      });

      if (options.warmPool !== undefined) {
        const warmPool = options.warmPool;
        const maxWorkers = options.maxWorkers ?? Math.max(warmPool, config.worker.concurrency);
        if (maxWorkers < warmPool) {
          throw new CliError(`--max-workers (${maxWorkers}) must be at least --warm-pool (${warmPool})`, ExitCode.Usage);
        }
        // Without --exit-after-idle the warm pool never scales to zero (about 24 days).
        const exitAfterIdleMs = config.worker.exitAfterIdleMs ?? 2 ** 31 - 1;
        const assembled = await assembleWarmSpawner(config, { warmPool, maxWorkers, exitAfterIdleMs, entry, log: (line) => ctx.info(line) });
        const { spawner } = assembled;
        const observability = await serveWorkerObservability({
          listen: metricsListen,
          queue: assembled.queue,
          workers: spawner,
          executor: () => assembled.executor,
          log: (line) => ctx.info(line),
        });
        ctx.info(
          `spawner ${spawner.id} started: ${warmPool} warm, at most ${maxWorkers} one-shot worker process(es)` +
            `${config.worker.exitAfterIdleMs !== undefined ? `, zero after ${config.worker.exitAfterIdleMs / 1000} s idle` : ''}` +
            `, caps [${assembled.caps.join(', ')}], serving ${spawner.kinds.join(', ') || 'no task kinds'}`,
        );
        const reason = await interrupted;
        const record = await assembled.close({ drain: true });
        await observability.close();
        await shutdownTracing();
        ctx.output({ stopped: true, reason, ...record }, `spawner stopped (${reason}); worker process exits: ${describeCounts(record.exitReasons)}`);
        return;
      }

      const engine = await assembleEngine(config, {
        oneShotEntry: entry,
        log: (line) => ctx.info(line),
        ...(config.worker.exitAfterIdleMs !== undefined && { exitAfterIdleMs: config.worker.exitAfterIdleMs }),
      });
      const observability = await serveWorkerObservability({
        listen: metricsListen,
        queue: engine.queue,
        workers: engine.pool,
        executor: () => engine.executor?.executor,
        log: (line) => ctx.info(line),
      });
      ctx.info(
        `worker ${engine.pool?.id} started: ${config.worker.concurrency} ${config.worker.mode} slot(s), caps [${engine.caps.join(', ')}], serving ${engine.pool?.kinds.join(', ') || 'no task kinds'}`,
      );
      const stopped = Promise.race([interrupted, new Promise<string>((resolve) => engine.pool?.once('idleExit', () => resolve('idle')))]);
      const reason = await stopped;
      await engine.stop({ drain: true });
      await observability.close();
      await shutdownTracing();
      ctx.output({ stopped: true, reason, exitReasons: engine.pool?.exitReasons ?? {} }, `worker stopped (${reason})`);
    });
}

/** Counts the design forbids are usage errors (exit code 2), never a spawner that waits forever. */
function checkWarmFlags(options: WorkerStartOptions): void {
  const usage = (message: string): never => {
    throw new CliError(message, ExitCode.Usage);
  };
  if (options.warmPool === 0) usage('--warm-pool must be at least 1 (for no warm workers leave it out)');
  if (options.maxWorkers === 0) usage('--max-workers must be at least 1');
  if (options.exitAfterIdle === 0) usage('--exit-after-idle must be at least 1 second');
  if (options.concurrency === 0) usage('--concurrency must be at least 1');
  if (options.warmPool === undefined && options.maxWorkers !== undefined) {
    usage('--max-workers applies to the warm spawner: use it with --warm-pool (without it, --concurrency sets the slots)');
  }
  if (options.warmPool !== undefined && options.mode === 'in-process') {
    usage('--warm-pool keeps one-shot worker processes ready; it cannot be combined with --mode in-process');
  }
  if (options.warmPool !== undefined && options.maxWorkers !== undefined && options.maxWorkers < options.warmPool) {
    usage(`--max-workers (${options.maxWorkers}) must be at least --warm-pool (${options.warmPool})`);
  }
}

function describeCounts(counts: Partial<Record<string, number>>): string {
  const entries = Object.entries(counts).filter(([, count]) => (count ?? 0) > 0);
  return entries.length > 0 ? entries.map(([reason, count]) => `${reason} ${count}`).join(', ') : 'none';
}
