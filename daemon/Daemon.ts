/**
 * The long-running daemon: one engine, served to the editor that spawned it (over its
 * IPC pipe or stdio) and to everyone else over the token-guarded local socket.
 *
 * Only one daemon per state directory listens there (stateLock.ts). A daemon started while
 * another holds the directory refuses to start, unless an editor spawned it: then it serves
 * that editor over its pipe and leaves the token, the record and the socket alone.
 */
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import {
  createProtocolConnection,
  IPCMessageReader,
  IPCMessageWriter,
  type MessageReader,
  type MessageWriter,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import type { PeagenConfig } from './config';
import { assembleEngine } from './composition';
import type { Engine } from './engine/Engine';
import { RunManager } from './evolution/controller/RunManager';
import { processEvolutionMetrics } from './observability/evolutionMetrics';
import { activePlugins } from './plugins/activePlugins';
import { type DaemonAddress, formatAddress, parseAddress } from '../shared/address';
import { isAlive } from '../shared/processes';
import {
  ensureStateDir,
  newToken,
  removeRecord,
  writeRecord,
  writeToken,
} from './rpc/discovery';
import { type DaemonRecord, readLiveRecord, SOCKET_FILE } from '../shared/discovery';
import { GuardedMessageReader } from './rpc/guardedReader';
import { type DaemonInfo, serveConnection } from './rpc/serveConnection';
import { listen, type SocketServer } from './rpc/socketServer';
import { acquireStateLock, type StateLock } from './rpc/stateLock';
import { VERSION } from './version';
import { type Observability, serveDaemonObservability } from './observability/serveObservability';

export interface DaemonOptions {
  config: PeagenConfig;
  stateDir: string;
  /** The spawning editor's channel, if any. The daemon exits when it closes. */
  pipe?: 'ipc' | 'stdio';
  /** Address for the shared socket; default from config or the state directory; false: none. */
  listen?: string | false;
  oneShotEntry?: string;
  /** The metrics endpoint's `host:port` or `off`; default observability.metricsListen. */
  metricsListen?: string;
  /** Deadline for socket clients to complete the handshake (default in socketServer.ts). */
  authTimeoutMs?: number;
  /** The spawning editor's process (`--clientProcessId`); the daemon stops when it is gone. */
  editorPid?: number;
  log(line: string): void;
}

export interface RunningDaemon {
  engine: Engine;
  /** The shared socket's address, when listening. */
  address: string | undefined;
  /** Resolves when the daemon has stopped (by request, signal or its editor going away). */
  stopped: Promise<void>;
  stop(drain: boolean): Promise<void>;
}

/** How long a draining shutdown waits for running tasks before handing them back. */
const DRAIN_LIMIT_MS = 30_000;

/** How long a daemon that failed to start waits for its engine to stop before it reports why. */
const FAILED_START_STOP_MS = 2_000;

export class DaemonAlreadyRunningError extends Error {
  override name = 'DaemonAlreadyRunningError';
  constructor(
    readonly pid: number,
    readonly record: DaemonRecord | undefined,
    readonly stateDir: string,
  ) {
    super(`the daemon is already running (pid ${pid}${record ? `, ${record.address}` : ''})`);
  }
}

/** This daemon holds the state directory: it alone writes the token, record and socket there. */
interface Ownership {
  lock: StateLock;
  address: DaemonAddress;
}

export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const { log } = options;
  let owner: Ownership | undefined;
  if (options.listen !== false) {
    try {
      owner = claimStateDir(options);
    } catch (error) {
      if (!options.pipe) throw error;
      // An editor's private daemon still serves its editor without the shared socket.
      log(
        error instanceof DaemonAlreadyRunningError
          ? `serving this editor only, not listening for other clients: the state directory ${error.stateDir} belongs to the daemon with pid ${error.pid}${error.record ? ` on ${error.record.address}` : ''}`
          : `serving this editor only, not listening for other clients: ${(error as Error).message}`,
      );
    }
  }
  let assembled: Engine | undefined;
  let sandboxReason: string;
  try {
    assembled = await assembleEngine(options.config, {
      log,
      ...(options.oneShotEntry && { oneShotEntry: options.oneShotEntry }),
      withoutWorkers: !options.config.daemon.workers,
    });
    // The queue answers before anyone is told that this daemon is ready: a daemon whose Redis
    // is down would otherwise listen, write its record and die moments later, after
    // `peagen daemon start` had said "started".
    sandboxReason = (await assembled.status()).sandbox.reason;
  } catch (error) {
    // Nothing ran yet; an engine whose queue is unreachable can take many seconds to stop,
    // and the reason must reach `peagen daemon start` while it still waits for it.
    if (assembled) await Promise.race([assembled.stop({ drain: false }).catch(() => undefined), delay(FAILED_START_STOP_MS)]);
    owner?.lock.release();
    throw error;
  }
  const engine = assembled;
  let server: SocketServer | undefined;
  const observability: Observability = await serveDaemonObservability({
    listen: options.metricsListen ?? options.config.observability.metricsListen,
    queue: engine.queue,
    workers: engine.pool,
    executor: () => engine.executor?.executor,
    log,
  });
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let stopping: Promise<void> | undefined;

  const stop = (drain: boolean): Promise<void> => {
    stopping ??= (async () => {
      log(`stopping (${drain ? 'draining running tasks' : 'handing running tasks back'})`);
      // Runs first: each checkpoints, so `evolve run --resume` continues it later.
      await runs.stopAll();
      const drained = engine.stop({ drain });
      const limit = setTimeout(() => void engine.stop({ drain: false }), DRAIN_LIMIT_MS);
      await drained;
      clearTimeout(limit);
      if (owner) removeRecord(options.stateDir, process.pid);
      await server?.close();
      await observability.close();
      owner?.lock.release();
      log('stopped');
      resolveStopped();
    })();
    return stopping;
  };

  // The composition root hands the runs what they use: the allowed plugins (loaded once, their
  // skips logged here) and the evolution metrics that listen to them.
  const plugins = activePlugins(options.config, log);
  const runs = new RunManager(engine, log, options.stateDir, { plugins, metrics: processEvolutionMetrics() });
  const info: DaemonInfo = {
    version: VERSION,
    startedAt: Date.now(),
    runs,
    plugins,
    metrics: observability.endpoint.status,
    requestShutdown: (drain) => void stop(drain),
  };

  if (owner) {
    try {
      // The token is written only once the socket is ours, so a failed start changes nothing.
      const token = newToken();
      const bound = await listen(owner.address, engine, info, token, log, {
        ...(options.authTimeoutMs !== undefined && { authTimeoutMs: options.authTimeoutMs }),
      });
      server = bound;
      info.listen = formatAddress(bound.address);
      writeToken(options.stateDir, token);
      writeRecord(options.stateDir, {
        pid: process.pid,
        address: info.listen,
        version: VERSION,
        startedAt: new Date(info.startedAt).toISOString(),
      });
    } catch (error) {
      await server?.close();
      server = undefined;
      delete info.listen;
      owner.lock.release();
      owner = undefined;
      if (!options.pipe) {
        await engine.stop({ drain: false });
        await observability.close();
        throw error;
      }
      log(`serving this editor only, not listening for other clients: ${(error as Error).message}`);
    }
  }

  if (options.pipe) {
    const [reader, writer]: [MessageReader, MessageWriter] =
      options.pipe === 'ipc'
        ? [new IPCMessageReader(process), new IPCMessageWriter(process)]
        : [new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout)];
    const connection = createProtocolConnection(new GuardedMessageReader(reader, writer), writer);
    serveConnection(connection, engine, info, { onExit: () => void stop(false), log });
    connection.listen();
    // The editor went away without saying goodbye (crash, kill -9): follow it, also when it
    // went while the engine was starting, before anyone listened for 'disconnect'.
    if (options.pipe === 'ipc') {
      if (process.connected) process.once('disconnect', () => void stop(false));
      else void stop(false);
    }
    if (options.editorPid !== undefined) watchEditor(options.editorPid, () => void stop(false));
  }

  log(
    `daemon ${VERSION} ready (pid ${process.pid}, queue ${engine.queue.url}, ${engine.pool ? `${engine.config.worker.concurrency} ${engine.config.worker.mode} workers with caps [${engine.caps.join(', ')}]` : 'no workers: its tasks are served by `peagen worker start` on hosts sharing the queue'}, sandbox: ${sandboxReason})`,
  );
  return { engine, address: info.listen, stopped, stop };
}

/** Takes the state directory's lock, or says which daemon has it. */
function claimStateDir(options: DaemonOptions): Ownership {
  const requested =
    (typeof options.listen === 'string' ? options.listen : undefined) ?? options.config.daemon.listen ?? `unix:${path.join(options.stateDir, SOCKET_FILE)}`;
  const address = parseAddress(requested);
  ensureStateDir(options.stateDir);
  const attempt = acquireStateLock(options.stateDir);
  if (!attempt.acquired) throw new DaemonAlreadyRunningError(attempt.holder, readLiveRecord(options.stateDir), options.stateDir);
  // A daemon of a version without the lock may still be running: it owns the directory.
  const unlocked = readLiveRecord(options.stateDir);
  if (unlocked && unlocked.pid !== process.pid) {
    attempt.lock.release();
    throw new DaemonAlreadyRunningError(unlocked.pid, unlocked, options.stateDir);
  }
  return { lock: attempt.lock, address };
}

function watchEditor(pid: number, onGone: () => void): void {
  const timer = setInterval(() => {
    if (isAlive(pid)) return;
    clearInterval(timer);
    onGone();
  }, 3_000);
  timer.unref();
}
