/** Daemon addresses: `unix:/path/to.sock` or `tcp:127.0.0.1:PORT` (loopback only). */
import type * as net from 'node:net';

export type DaemonAddress = { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number };

export function parseAddress(text: string): DaemonAddress {
  if (text.startsWith('unix:')) {
    const path = text.slice('unix:'.length);
    if (!path) throw new Error(`"${text}" names no socket path (expected unix:/path/to.sock)`);
    return { kind: 'unix', path };
  }
  const tcp = /^tcp:(127\.\d+\.\d+\.\d+|localhost|\[::1\]):(\d{1,5})$/.exec(text);
  if (tcp?.[1] && tcp[2]) return { kind: 'tcp', host: tcp[1].replace(/^\[|\]$/g, ''), port: Number(tcp[2]) };
  throw new Error(`"${text}" is not a daemon address: expected unix:/path/to.sock or tcp:127.0.0.1:PORT (loopback only)`);
}

export function formatAddress(address: DaemonAddress): string {
  return address.kind === 'unix' ? `unix:${address.path}` : `tcp:${address.host}:${address.port}`;
}

export function connectOptions(address: DaemonAddress): net.NetConnectOpts {
  return address.kind === 'unix' ? { path: address.path } : { host: address.host, port: address.port };
}
