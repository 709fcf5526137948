/**
 * The long-running daemon: one engine, served to the editor that spawned it (over its
 * IPC pipe or stdio) and to everyone else over the token-guarded local socket.
 */
import * as path from 'node:path';
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
import { Engine } from './engine/Engine';
import { formatAddress, parseAddress } from './rpc/address';
import { isAlive } from './platform/processes';
import { createToken, ensureStateDir, removeRecord, SOCKET_FILE, writeRecord } from './rpc/discovery';
import { GuardedMessageReader } from './rpc/guardedReader';
import { type DaemonInfo, serveConnection } from './rpc/serveConnection';
import { listen, type SocketServer } from './rpc/socketServer';
import { VERSION } from './version';

export interface DaemonOptions {
  config: PeagenConfig;
  stateDir: string;
  /** The spawning editor's channel, if any. The daemon exits when it closes. */
  pipe?: 'ipc' | 'stdio';
  /** Address for the shared socket; default from config or the state directory; false: none. */
  listen?: string | false;
  oneShotEntry?: string;
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

export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const { log } = options;
  const engine = await Engine.create(options.config, { log, ...(options.oneShotEntry && { oneShotEntry: options.oneShotEntry }) });
  let server: SocketServer | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let stopping: Promise<void> | undefined;

  const stop = (drain: boolean): Promise<void> => {
    stopping ??= (async () => {
      log(`stopping (${drain ? 'draining running tasks' : 'handing running tasks back'})`);
      const drained = engine.stop({ drain });
      const limit = setTimeout(() => void engine.stop({ drain: false }), DRAIN_LIMIT_MS);
      await drained;
      clearTimeout(limit);
      removeRecord(options.stateDir, process.pid);
      await server?.close();
      log('stopped');
      resolveStopped();
    })();
    return stopping;
  };

  const info: DaemonInfo = { version: VERSION, startedAt: Date.now(), requestShutdown: (drain) => void stop(drain) };

  if (options.listen !== false) {
    ensureStateDir(options.stateDir);
    const requested = options.listen ?? options.config.daemon.listen ?? `unix:${path.join(options.stateDir, SOCKET_FILE)}`;
    try {
      const token = createToken(options.stateDir);
      const bound = await listen(parseAddress(requested), engine, info, token, log);
      server = bound;
      info.listen = formatAddress(bound.address);
      writeRecord(options.stateDir, {
        pid: process.pid,
        address: info.listen,
        version: VERSION,
        startedAt: new Date(info.startedAt).toISOString(),
      });
    } catch (error) {
      if (!options.pipe) {
        await engine.stop({ drain: false });
        throw error;
      }
      // An editor's private daemon still works without the shared socket.
      log(`not listening for other clients: ${(error as Error).message}`);
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
    // The editor went away without saying goodbye (crash, kill -9): follow it.
    if (options.pipe === 'ipc') process.once('disconnect', () => void stop(false));
    if (options.editorPid !== undefined) watchEditor(options.editorPid, () => void stop(false));
  }

  log(
    `daemon ${VERSION} ready (pid ${process.pid}, queue ${engine.queue.url}, ${engine.config.worker.concurrency} ${engine.config.worker.mode} workers with caps [${engine.caps.join(', ')}], sandbox: ${(await engine.status()).sandbox.reason})`,
  );
  return { engine, address: info.listen, stopped, stop };
}

function watchEditor(pid: number, onGone: () => void): void {
  const timer = setInterval(() => {
    if (isAlive(pid)) return;
    clearInterval(timer);
    onGone();
  }, 3_000);
  timer.unref();
}
