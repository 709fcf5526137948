import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Command } from 'commander';
import { type PluginStatus, Shutdown, Status } from '../../../shared/protocol';
import { DaemonAlreadyRunningError, type RunningDaemon, startDaemon } from '../../Daemon';
import { parseAddress } from '../../../shared/address';
import { DaemonClient, DaemonUnavailableError } from '../../rpc/client';
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
      // What the new daemon writes starts here: an older daemon's lines are not its reason.
      const logStart = fs.fstatSync(logFd).size;
      const args = [path.join(__dirname, 'daemon.js')];
      if (options.listen) args.push('--listen', options.listen);
      if (!config.daemon.workers) args.push('--no-workers');
      if (options.metricsListen) args.push('--metrics-listen', options.metricsListen);
      if (ctx.configFile) args.push('--config', ctx.configFile);
      const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', logFd, logFd] });
      let exited = false;
      child.once('exit', () => (exited = true));
      child.unref();
      fs.closeSync(logFd);
      const outcome = await waitUntilReady(ctx.stateDir, child.pid, () => exited);
      if (outcome.kind === 'ready') {
        const { record } = outcome;
        ctx.output({ started: true, ...record, log: logFile }, `daemon started (pid ${record.pid}) on ${record.address}\nlog: ${logFile}`);
        return;
      }
      // Only the holder of the state directory writes the record: another start won.
      if (outcome.kind === 'other') return reportRunning(ctx, outcome.record);
      if (outcome.kind === 'timeout') {
        throw new CliError(
          `the daemon (pid ${child.pid}) is not ready after ${START_TIMEOUT_MS / 1000} s and may still be starting: \`peagen daemon status\` says when it answers; its log is ${logFile}`,
          ExitCode.Failed,
        );
      }
      throw new CliError(`the daemon did not start: ${startFailure(logFile, logStart)}\n(log: ${logFile})`, ExitCode.Failed);
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
      // A broken peagen.json or environment is an error here too, not ignored: the next
      // `daemon start` or `evolve run` would refuse it.
      const status = await ctx.withDaemon((client) => client.request(Status.type), { settings: {} });
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

type StartOutcome = { kind: 'ready' | 'other'; record: DaemonRecord } | { kind: 'failed' | 'timeout' };

/**
 * Waits, at most START_TIMEOUT_MS, until the daemon just spawned (`pid`) is ready: its record
 * names it and it answers a status request over its socket, which also asks its queue. The
 * daemon writes its record only once its queue has answered (Daemon.ts), so a daemon that
 * cannot start exits instead, and that is 'failed'.
 */
async function waitUntilReady(stateDir: string, pid: number | undefined, exited: () => boolean): Promise<StartOutcome> {
  const giveUpAt = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < giveUpAt) {
    const record = readLiveRecord(stateDir);
    if (record && record.pid !== pid) return { kind: 'other', record };
    if (record && (await answersStatus(stateDir, giveUpAt - Date.now()))) return { kind: 'ready', record };
    // Ours gave up (or failed); wait for the one holding the directory, if any.
    if ((pid === undefined || exited()) && lockHolder(stateDir) === undefined) {
      const late = readLiveRecord(stateDir);
      return late ? { kind: 'other', record: late } : { kind: 'failed' };
    }
    await delay(50);
  }
  return { kind: 'timeout' };
}

/** Whether the recorded daemon answers a status request within `withinMs`. */
async function answersStatus(stateDir: string, withinMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, withinMs))));
  const asked = (async () => {
    const client = await DaemonClient.connectToRunning(stateDir);
    if (!client) return false;
    try {
      await client.request(Status.type);
      return true;
    } finally {
      client.close();
    }
  })().catch(() => false);
  try {
    return await Promise.race([asked, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Why the daemon spawned by this start exited, in its own words: the reason it logged
 * ("daemon failed to start: ...") among the lines it appended to the log, else its last lines.
 */
function startFailure(logFile: string, from: number): string {
  let text = '';
  try {
    text = fs.readFileSync(logFile).subarray(from).toString('utf8');
  } catch {
    // The log is gone: say so below.
  }
  const lines = text
    .split('\n')
    .map((line) => line.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /, '').trimEnd())
    .filter(Boolean);
  const reason = lines.find((line) => line.startsWith('daemon failed to start: '));
  if (reason) return reason.slice('daemon failed to start: '.length);
  return lines.length > 0 ? `it exited; its last lines:\n${lines.slice(-5).join('\n')}` : 'it exited without a word';
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
