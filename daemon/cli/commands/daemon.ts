import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Command } from 'commander';
import { type PluginStatus, Shutdown, Status } from '../../../shared/protocol';
import { DaemonAlreadyRunningError, type RunningDaemon, startDaemon } from '../../Daemon';
import { parseAddress } from '../../../shared/address';
import { DaemonUnavailableError } from '../../rpc/client';
import { isAlive } from '../../../shared/processes';
import { type DaemonRecord, LOG_FILE, readLiveRecord } from '../../../shared/discovery';
import { ensureStateDir } from '../../rpc/discovery';
import { lockHolder } from '../../rpc/stateLock';
import { CliContext, CliError, ExitCode } from '../context';
import { describeStatus } from '../statusText';
import { describeMetricsEndpoint, parseMetricsListen } from './metrics';

const START_TIMEOUT_MS = 15_000;

export function registerDaemonCommands(program: Command): void {
  const daemon = program.command('daemon').description('run the background daemon that owns the queue and the workers');

  daemon
    .command('start')
    .description('start the daemon in the background (or in this terminal with --foreground)')
    .option('--listen <address>', 'unix:/path/to.sock or tcp:127.0.0.1:PORT (default: a socket in ~/.peagen)')
    .option('--foreground', 'run in this process until interrupted')
    .option('--no-workers', 'run no worker slots here: tasks are served by `peagen worker start` on other hosts sharing a Redis queue')
    .option('--metrics-listen <address>', 'host:port of /metrics, /healthz and /readyz, or "off" (default observability.metricsListen, 127.0.0.1:9464)', parseMetricsListen)
    .action(async (options: { listen?: string; foreground?: boolean; workers: boolean; metricsListen?: string }, command: Command) => {
      const ctx = CliContext.of(command);
      const config = options.workers ? ctx.config : { ...ctx.config, daemon: { ...ctx.config.daemon, workers: false } };
      if (!config.daemon.workers && config.queue.url.startsWith('memory:')) {
        throw new CliError(
          'a daemon without workers needs a shared queue: set QUEUE_URL=redis://host:port (or queue.url in peagen.json) so that `peagen worker start` elsewhere can serve it',
          ExitCode.Usage,
        );
      }
      checkListenAddress(ctx, options.listen);
      const running = await runningDaemon(ctx.stateDir);
      if (running) return reportRunning(ctx, running);
      if (options.foreground) {
        let started: RunningDaemon;
        try {
          started = await startDaemon({
            config,
            stateDir: ctx.stateDir,
            ...(options.listen && { listen: options.listen }),
            ...(options.metricsListen && { metricsListen: options.metricsListen }),
            oneShotEntry: path.join(__dirname, 'daemon.js'),
            log: (line) => ctx.info(line),
          });
        } catch (error) {
          // Another `daemon start` got there first.
          const winner = error instanceof DaemonAlreadyRunningError ? await runningDaemon(ctx.stateDir) : undefined;
          if (winner) return reportRunning(ctx, winner);
          throw error;
        }
        for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void started.stop(true));
        await started.stopped;
        return;
      }
      ensureStateDir(ctx.stateDir);
      const logFile = path.join(ctx.stateDir, LOG_FILE);
      const logFd = fs.openSync(logFile, 'a', 0o600);
      const args = [path.join(__dirname, 'daemon.js')];
      if (options.listen) args.push('--listen', options.listen);
      if (!config.daemon.workers) args.push('--no-workers');
      if (options.metricsListen) args.push('--metrics-listen', options.metricsListen);
      if (ctx.configFile) args.push('--config', ctx.configFile);
      const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', logFd, logFd] });
      child.unref();
      fs.closeSync(logFd);
      const pid = child.pid;
      for (const giveUpAt = Date.now() + START_TIMEOUT_MS; Date.now() < giveUpAt; ) {
        const record = readLiveRecord(ctx.stateDir);
        if (record && record.pid === pid) {
          ctx.output({ started: true, ...record, log: logFile }, `daemon started (pid ${record.pid}) on ${record.address}\nlog: ${logFile}`);
          return;
        }
        // Only the holder of the state directory writes the record: another start won.
        if (record) return reportRunning(ctx, record);
        // Ours gave up (or failed); wait for the one holding the directory, if any.
        if ((pid === undefined || !isAlive(pid)) && lockHolder(ctx.stateDir) === undefined) break;
        await delay(50);
      }
      const tail = fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-5).join('\n');
      throw new CliError(`the daemon did not start; last lines of ${logFile}:\n${tail}`, ExitCode.Failed);
    });

  daemon
    .command('stop')
    .description('stop the daemon, letting running tasks finish (or hand them back with --no-drain)')
    .option('--no-drain', 'do not wait for running tasks; return them to the queue')
    .action(async (options: { drain: boolean }, command: Command) => {
      const ctx = CliContext.of(command);
      const record = readLiveRecord(ctx.stateDir);
      if (!record) {
        ctx.output({ stopped: false, running: false }, 'no daemon is running');
        return;
      }
      await ctx.withDaemon((client) => client.request(Shutdown.type, { drain: options.drain })).catch((error: unknown) => {
        // Gone before its answer arrived: that is what we asked for.
        if (!(error instanceof DaemonUnavailableError)) throw error;
      });
      for (const giveUpAt = Date.now() + 60_000; isAlive(record.pid); ) {
        if (Date.now() > giveUpAt) throw new CliError(`the daemon (pid ${record.pid}) did not stop within 60 s`, ExitCode.Failed);
        await delay(50);
      }
      ctx.output({ stopped: true, pid: record.pid }, `daemon stopped (pid ${record.pid})`);
    });

  daemon
    .command('status')
    .description('show whether the daemon runs, its queue and its workers (by caps and host)')
    .option('--workers', 'also list every worker pool, one line each (--json always has them all)')
    .action(async (options: { workers?: boolean }, command: Command) => {
      const ctx = CliContext.of(command);
      const status = await ctx.withDaemon((client) => client.request(Status.type));
      ctx.output({ running: true, ...status }, () =>
        [
          `daemon ${status.daemonVersion} running (pid ${status.pid}, up ${Math.round(status.uptimeMs / 1000)} s)`,
          ...(status.listen ? [`address: ${status.listen}`] : []),
          ...(status.metrics ? [describeMetricsEndpoint(status.metrics)] : []),
          describeStatus(status, { allWorkers: options.workers === true, command: 'peagen daemon status' }),
          ...(status.plugins ? describePlugins(status.plugins) : []),
        ].join('\n'),
      );
    });
}

function reportRunning(ctx: CliContext, running: DaemonRecord): void {
  ctx.output({ started: false, alreadyRunning: true, ...running }, `the daemon is already running (pid ${running.pid}, ${running.address})`);
}

/** A bad address is a usage error found here, not a daemon that dies in the background. */
function checkListenAddress(ctx: CliContext, listen: string | undefined): void {
  const [text, source] = listen !== undefined ? [listen, '--listen'] : [ctx.config.daemon.listen, `daemon.listen in ${ctx.configFile}`];
  if (text === undefined) return;
  try {
    parseAddress(text);
  } catch (error) {
    throw new CliError(`${source}: ${(error as Error).message}`, ExitCode.Usage);
  }
}

/**
 * The daemon that holds the state directory, once it has written its record (it may be
 * starting right now); undefined if no daemon holds it.
 */
async function runningDaemon(stateDir: string): Promise<DaemonRecord | undefined> {
  for (const giveUpAt = Date.now() + START_TIMEOUT_MS; ; await delay(50)) {
    const record = readLiveRecord(stateDir);
    if (record) return record;
    const holder = lockHolder(stateDir);
    if (holder === undefined) return undefined;
    if (Date.now() > giveUpAt) {
      throw new CliError(`the daemon with pid ${holder} holds ${stateDir} but has not come up; see ${path.join(stateDir, LOG_FILE)}`, ExitCode.Failed);
    }
  }
}

/** One line per allowed plugin: what it gives, or why it was skipped. */
function describePlugins(plugins: readonly PluginStatus[]): string[] {
  return [
    'plugins:',
    ...plugins.map((plugin) => {
      const provided = Object.entries(plugin.provided)
        .filter(([, names]) => names.length > 0)
        .map(([point, names]) => `${point} ${names.join(', ')}`)
        .join('; ');
      return plugin.loaded ? `  ${plugin.name}${plugin.version ? `@${plugin.version}` : ''}: ${provided || 'nothing'}` : `  ${plugin.name}: skipped: ${plugin.error ?? 'not loaded'}`;
    }),
  ];
}
