/**
 * The daemon's shared door: a Unix socket (mode 0600) or a loopback TCP port on which the
 * CLI, other editors and remote-pointed extensions connect. Every client must present the
 * token before anything else is served, within a deadline, and a client's framing is checked
 * (frameGuard.ts) before the JSON-RPC reader sees its bytes, so no client can stall the rest.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import {
  createProtocolConnection,
  ErrorCodes,
  type Message,
  StreamMessageReader,
} from 'vscode-languageserver-protocol/node';
import type { Engine } from '../engine/Engine';
import { type DaemonAddress, formatAddress } from '../../shared/address';
import { BatchedSocketMessageWriter } from './batchedWriter';
import { DEFAULT_FRAME_LIMITS, FrameGuard, type FrameLimits } from './frameGuard';
import { GuardedMessageReader } from './guardedReader';
import { TrackedMessageWriter } from './trackedWriter';
import { type DaemonInfo, serveConnection } from './serveConnection';

export interface ConnectionLimits {
  /** A client that has not completed the handshake by then is disconnected. */
  authTimeoutMs: number;
  frames: FrameLimits;
}

/** Long enough for an editor that starts its language client before the handshake. */
export const DEFAULT_AUTH_TIMEOUT_MS = 10_000;

export async function listen(
  address: DaemonAddress,
  engine: Engine,
  daemon: DaemonInfo,
  token: string,
  log: (line: string) => void,
  limits: Partial<ConnectionLimits> = {},
): Promise<SocketServer> {
  const authTimeoutMs = limits.authTimeoutMs ?? DEFAULT_AUTH_TIMEOUT_MS;
  const frameLimits = limits.frames ?? DEFAULT_FRAME_LIMITS;
  if (address.kind === 'unix') await removeDeadSocket(address.path);
  const connections = new Map<net.Socket, TrackedMessageWriter>();
  const server = net.createServer((socket) => {
    const writer = new TrackedMessageWriter(new BatchedSocketMessageWriter(socket));
    connections.set(socket, writer);
    socket.on('error', () => socket.destroy());

    let refused = false;
    // Says why (where the peer still reads), then cuts the peer off without reading more.
    const refuse = (reason: string): void => {
      if (refused) return;
      refused = true;
      log(`closing a client connection: ${reason}`);
      socket.pause();
      void writer
        .write({ jsonrpc: '2.0', id: null, error: { code: ErrorCodes.InvalidRequest, message: reason } } as Message)
        .catch(() => {})
        .finally(() => socket.end());
      // A peer that does not read lets the answer never leave: cut it off regardless.
      setTimeout(() => socket.destroy(), 1_000).unref();
    };
    const guard = new FrameGuard(frameLimits, refuse);
    const authDeadline = setTimeout(() => refuse(`no successful peagen/handshake within ${authTimeoutMs} ms`), authTimeoutMs);
    socket.on('data', (chunk: Buffer) => guard.push(chunk));
    socket.on('close', () => {
      clearTimeout(authDeadline);
      connections.delete(socket);
      guard.output.destroy();
    });

    const reader = new GuardedMessageReader(new StreamMessageReader(guard.output), writer);
    const connection = createProtocolConnection(reader, writer);
    serveConnection(connection, engine, daemon, {
      token,
      onAuthorized: () => {
        clearTimeout(authDeadline);
        guard.authenticate();
      },
      onExit: () => socket.end(),
      log,
    });
    connection.listen();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (address.kind === 'unix') server.listen(address.path, resolve);
    else server.listen(address.port, address.host, resolve);
  });
  if (address.kind === 'unix') fs.chmodSync(address.path, 0o600);
  const bound = server.address();
  const actual: DaemonAddress =
    address.kind === 'tcp' && typeof bound === 'object' && bound ? { ...address, port: bound.port } : address;
  log(`listening on ${formatAddress(actual)}`);
  return {
    address: actual,
    async close() {
      server.close();
      // end() flushes what is still queued (such as the answer to a shutdown request)
      // before the connection closes; a peer that does not let go is cut off.
      await Promise.race([
        Promise.all(
          [...connections].map(async ([socket, writer]) => {
            await writer.idle();
            await new Promise((resolve) => socket.once('close', resolve).end());
          }),
        ),
        new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
      ]);
      for (const socket of connections.keys()) socket.destroy();
    },
  };
}

export interface SocketServer {
  address: DaemonAddress;
  /** Stops accepting, lets queued answers reach their clients, then closes every connection. */
  close(): Promise<void>;
}

/** A socket file nobody answers on is a leftover of a killed daemon: remove it. */
async function removeDeadSocket(path: string): Promise<void> {
  if (!fs.existsSync(path)) return;
  const alive = await new Promise<boolean>((resolve) => {
    const probe = net.connect({ path }, () => {
      probe.destroy();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
  });
  if (alive) throw new Error(`another daemon is already listening on ${path}; stop it with \`peagen daemon stop\``);
  fs.rmSync(path, { force: true });
}
