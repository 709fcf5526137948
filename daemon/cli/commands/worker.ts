import * as path from 'node:path';
import type { Command } from 'commander';
import { assembleEngine } from '../../composition';
import { CliContext, parseCaps, parsePositiveInt } from '../context';
import { notImplemented } from './notYet';

interface WorkerStartOptions {
  caps?: string[];
  plugins?: string[];
  concurrency?: number;
  mode?: 'in-process' | 'one-shot';
  warmPool?: number;
  exitAfterIdle?: number;
}

export function registerWorkerCommands(program: Command): void {
  const worker = program.command('worker').description('run worker pools against the configured queue');

  worker
    .command('start')
    .description('claim and run tasks whose required capabilities this worker has (env: QUEUE_URL, WORKER_CAPS, ...)')
    .option('--caps <caps>', 'capabilities of this host, comma-separated (e.g. cpu,llm,docker)', parseCaps)
    .option('--plugins <modules>', 'handler plugin modules to load, comma-separated', parseCaps)
    .option('--concurrency <n>', 'tasks run at once', parsePositiveInt('--concurrency'))
    .option('--mode <mode>', 'in-process, or one-shot (a fresh process per task)')
    .option('--warm-pool <n>', 'keep n idle one-shot workers ready (needs the warm spawner)', parsePositiveInt('--warm-pool'))
    .option('--exit-after-idle <seconds>', 'stop after this long with nothing to do', parsePositiveInt('--exit-after-idle'))
    .action(async (options: WorkerStartOptions, command: Command) => {
      const ctx = CliContext.of(command);
      if (options.warmPool !== undefined) notImplemented('worker start --warm-pool');
      const base = ctx.config;
      const config = {
        ...base,
        worker: {
          ...base.worker,
          ...(options.caps && { caps: options.caps }),
          ...(options.plugins && { plugins: options.plugins }),
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
      const engine = await assembleEngine(config, { oneShotEntry: path.join(__dirname, 'daemon.js'), log: (line) => ctx.info(line) });
      ctx.info(
        `worker ${engine.pool?.id} started: ${config.worker.concurrency} ${config.worker.mode} slot(s), caps [${engine.caps.join(', ')}], serving ${engine.pool?.kinds.join(', ') || 'no task kinds'}`,
      );
      const stopped = new Promise<string>((resolve) => {
        engine.pool?.once('idleExit', () => resolve('idle'));
        process.once('SIGINT', () => resolve('interrupted'));
        process.once('SIGTERM', () => resolve('terminated'));
      });
      const reason = await stopped;
      await engine.stop({ drain: true });
      ctx.output({ stopped: true, reason, exitReasons: engine.pool?.exitReasons ?? {} }, `worker stopped (${reason})`);
    });
}
