/**
 * Finds out why a daemon on a Redis queue could not start, from the extension's side: one
 * connection to the configured Redis, `AUTH` with the stored password when there is one, then
 * `PING`. The daemon's own error goes to its log; this gives the status bar the same answer in
 * terms of the settings and commands that fix it. Plain RESP over node:net/tls (no client
 * library in the extension bundle); the password is sent to Redis only, never shown.
 *
 * A Redis Cluster is probed as the daemon will use it, not by its first listed node alone:
 * the first listed node that answers says whether the cluster serves (`CLUSTER INFO`) and which
 * masters it announces (`CLUSTER NODES`); the daemon's client connects to those announced
 * addresses, so each of them must answer `PING` from here too (a cluster that announces
 * addresses of a private network is the usual reason a daemon reaches the seed node and no
 * other).
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import { parseRedisAddress, REDIS_PASSWORD_VARIABLE, type RedisAddress } from '../../shared/redisAddress';
import type { ConnectionProblem } from './clusterTarget';

const PROBE_TIMEOUT_MS = 5_000;

/** RESP encoding of one command. */
function command(...parts: string[]): string {
  return `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`;
}

/** One RESP reply: a status (`+OK`), an error (`-ERR ...`), an integer or a bulk string. */
type Reply = { status: string } | { error: string } | { integer: number } | { bulk: string | null };

/** Where a probe connects, and how it authenticates. */
interface Target {
  host: string;
  port: number;
  tls: boolean;
  auth: string[];
}

/**
 * Undefined when Redis answers `PING` with the password given (the problem is elsewhere: see
 * the daemon's log); otherwise what is wrong. `password`: the stored secret, which wins over
 * one in the URL, as in the daemon.
 */
export async function probeRedis(url: string, password: string | undefined, timeoutMs = PROBE_TIMEOUT_MS): Promise<ConnectionProblem | undefined> {
  let address: RedisAddress;
  try {
    address = parseRedisAddress(url, password ? { [REDIS_PASSWORD_VARIABLE]: password } : {});
  } catch (error) {
    return { kind: 'queue-url-invalid', detail: (error as Error).message };
  }
  const { host, port, username } = address.connection;
  const secret = address.connection.password;
  const auth = secret ? (username ? command('AUTH', username, secret) : command('AUTH', secret)) : undefined;
  const target = (node: { host?: string | undefined; port?: number | undefined }): Target => ({
    host: node.host ?? '127.0.0.1',
    port: node.port ?? 6379,
    tls: address.connection.tls !== undefined,
    auth: auth ? [auth] : [],
  });
  if (!address.cluster) return ping(target({ host, port }), timeoutMs);
  return probeCluster(address.cluster.nodes.map(target), timeoutMs);
}

/** `AUTH` (when there is a password) and `PING` on one node: what is wrong, or undefined. */
async function ping(target: Target, timeoutMs: number): Promise<ConnectionProblem | undefined> {
  const where = `${target.host}:${target.port}`;
  const replies = await exchange(target, [...target.auth, command('PING')], timeoutMs);
  if ('failure' in replies) return { kind: 'redis-unreachable', where, detail: replies.failure };
  return authProblem(replies.replies, where);
}

/**
 * The first listed node that answers describes the cluster; every master it announces must
 * answer too. Listed nodes that do not answer are fine while one does (the daemon's client
 * starts its discovery from any of them).
 */
async function probeCluster(seeds: Target[], timeoutMs: number): Promise<ConnectionProblem | undefined> {
  const failures: string[] = [];
  for (const seed of seeds) {
    const where = `${seed.host}:${seed.port}`;
    const replies = await exchange(seed, [...seed.auth, command('CLUSTER', 'INFO'), command('CLUSTER', 'NODES')], timeoutMs);
    if ('failure' in replies) {
      failures.push(`${where}: ${replies.failure}`);
      continue;
    }
    const refused = authProblem(replies.replies, where);
    if (refused) return refused;
    const [info, nodes] = replies.replies.slice(seed.auth.length);
    if (info && 'error' in info) return { kind: 'redis-not-cluster', where, detail: info.error };
    const infoText = info && 'bulk' in info ? (info.bulk ?? '') : '';
    const state = /cluster_state:(\w+)/.exec(infoText)?.[1];
    if (state !== 'ok') {
      const assigned = /cluster_slots_assigned:(\d+)/.exec(infoText)?.[1];
      return { kind: 'redis-cluster-down', where, detail: `cluster_state:${state ?? 'unknown'}${assigned !== undefined ? `, ${assigned} of 16384 slots assigned` : ''}` };
    }
    for (const master of announcedMasters(nodes && 'bulk' in nodes ? (nodes.bulk ?? '') : '')) {
      if (master.host === seed.host && master.port === seed.port) continue;
      const problem = await ping({ ...seed, ...master }, timeoutMs);
      if (problem?.kind === 'redis-unreachable') return { kind: 'redis-node-unreachable', where: problem.where, detail: problem.detail, seed: where };
      if (problem) return problem;
    }
    return undefined;
  }
  return { kind: 'redis-unreachable', where: seeds.map((seed) => `${seed.host}:${seed.port}`).join(','), detail: failures.join('; ') };
}

/**
 * The masters of `CLUSTER NODES` (`<id> <ip:port@cport[,hostname]> <flags> ...` per line) that
 * serve: not failed, with an address.
 */
function announcedMasters(text: string): { host: string; port: number }[] {
  const masters: { host: string; port: number }[] = [];
  for (const line of text.split('\n')) {
    const [, addressField, flagsField] = line.trim().split(' ');
    if (!addressField || !flagsField) continue;
    const flags = flagsField.split(',');
    if (!flags.includes('master') || flags.some((flag) => flag === 'fail' || flag === 'noaddr' || flag === 'handshake')) continue;
    const hostPort = addressField.split(/[@,]/)[0] ?? '';
    const colon = hostPort.lastIndexOf(':');
    const port = Number(hostPort.slice(colon + 1));
    const host = hostPort.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
    if (colon > 0 && host && Number.isInteger(port) && port > 0) masters.push({ host, port });
  }
  return masters;
}

/** A refused or missing password among the replies, or undefined. */
function authProblem(replies: Reply[], where: string): ConnectionProblem | undefined {
  for (const reply of replies) {
    if (!('error' in reply)) continue;
    if (/^(WRONGPASS|ERR invalid password)/i.test(reply.error)) return { kind: 'redis-password-refused', where, detail: reply.error.split(' ')[0] ?? reply.error };
    if (/^NOAUTH/i.test(reply.error)) return { kind: 'redis-password-required', where };
  }
  return undefined;
}

/**
 * Reads as many complete replies as `buffer` holds from `offset` on; `next` is where the
 * first incomplete one starts. Arrays are not read: no command the probe sends answers one.
 */
function readReplies(buffer: Buffer, offset: number): { replies: Reply[]; next: number } {
  const replies: Reply[] = [];
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const type = String.fromCharCode(buffer[offset]!);
    const line = buffer.toString('utf8', offset + 1, lineEnd);
    if (type === '$') {
      const length = Number(line);
      if (length < 0) {
        replies.push({ bulk: null });
        offset = lineEnd + 2;
        continue;
      }
      if (buffer.length < lineEnd + 2 + length + 2) break;
      replies.push({ bulk: buffer.toString('utf8', lineEnd + 2, lineEnd + 2 + length) });
      offset = lineEnd + 2 + length + 2;
      continue;
    }
    replies.push(type === '-' ? { error: line } : type === ':' ? { integer: Number(line) } : { status: line });
    offset = lineEnd + 2;
  }
  return { replies, next: offset };
}

/** Sends `requests`, collects one reply per request; the failure when it cannot. */
function exchange(target: Target, requests: string[], timeoutMs: number): Promise<{ replies: Reply[] } | { failure: string }> {
  return new Promise((resolve) => {
    const socket = target.tls ? tls.connect({ host: target.host, port: target.port, servername: target.host }) : net.connect({ host: target.host, port: target.port });
    let buffered = Buffer.alloc(0);
    let offset = 0;
    const replies: Reply[] = [];
    const finish = (result: { replies: Reply[] } | { failure: string }): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ failure: `no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.once(target.tls ? 'secureConnect' : 'connect', () => socket.write(requests.join('')));
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const read = readReplies(buffered, offset);
      replies.push(...read.replies);
      offset = read.next;
      if (replies.length >= requests.length) finish({ replies });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ failure: error.code ?? error.message }));
    socket.once('close', () => finish(replies.length ? { replies } : { failure: 'the connection was closed' }));
  });
}
