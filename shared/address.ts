/**
 * Daemon addresses, as users write them and as every client parses them: `unix:/path/to.sock`
 * or `tcp:HOST:PORT` with a loopback host (`127.x.x.x`, `localhost`, `[::1]`).
 */
import type * as net from 'node:net';

export type DaemonAddress = { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number };

export function parseAddress(text: string): DaemonAddress {
  if (text.startsWith('unix:')) {
    const path = text.slice('unix:'.length);
    if (!path) throw new Error(`"${text}" names no socket path (expected unix:/path/to.sock)`);
    return { kind: 'unix', path };
  }
  const tcp = /^tcp:(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\]):(\d{1,5})$/.exec(text);
  const port = Number(tcp?.[2]);
  if (tcp?.[1] && port <= 65_535) return { kind: 'tcp', host: tcp[1].replace(/^\[|\]$/g, ''), port };
  throw new Error(`"${text}" is not a daemon address: expected unix:/path/to.sock or tcp:127.0.0.1:PORT (loopback only)`);
}

export function formatAddress(address: DaemonAddress): string {
  if (address.kind === 'unix') return `unix:${address.path}`;
  // An IPv6 host is bracketed, or its colons would run into the port's.
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `tcp:${host}:${address.port}`;
}

export function connectOptions(address: DaemonAddress): net.NetConnectOpts {
  return address.kind === 'unix' ? { path: address.path } : { host: address.host, port: address.port };
}
