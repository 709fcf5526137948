/**
 * The daemon's shared door: a Unix socket (mode 0600) or a loopback TCP port on which the
 * CLI, other editors and remote-pointed extensions connect. Every client must present the
 * token before anything else is served.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import { createProtocolConnection, SocketMessageReader, SocketMessageWriter } from 'vscode-languageserver-protocol/node';
import type { Engine } from '../engine/Engine';
import { type DaemonAddress, formatAddress } from './address';
import { GuardedMessageReader } from './guardedReader';
import { type DaemonInfo, serveConnection } from './serveConnection';

export async function listen(
  address: DaemonAddress,
  engine: Engine,
  daemon: DaemonInfo,
  token: string,
  log: (line: string) => void,
): Promise<{ server: net.Server; address: DaemonAddress }> {
  if (address.kind === 'unix') await removeDeadSocket(address.path);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const writer = new SocketMessageWriter(socket);
    const reader = new GuardedMessageReader(new SocketMessageReader(socket), writer);
    const connection = createProtocolConnection(reader, writer);
    serveConnection(connection, engine, daemon, {
      token,
      onExit: () => socket.end(),
      log,
    });
    connection.listen();
  });
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
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
  return { server, address: actual };
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
