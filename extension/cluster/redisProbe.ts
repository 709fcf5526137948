/**
 * Finds out why a daemon on a Redis queue could not start, from the extension's side: one
 * connection to the configured Redis, `AUTH` with the stored password when there is one, then
 * `PING`. The daemon's own error goes to its log; this gives the status bar the same answer in
 * terms of the settings and commands that fix it. Plain RESP over node:net/tls (no client
 * library in the extension bundle); the password is sent to Redis only, never shown.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import { parseRedisAddress, REDIS_PASSWORD_VARIABLE } from '../../shared/redisAddress';
import type { ConnectionProblem } from './clusterTarget';

const PROBE_TIMEOUT_MS = 5_000;

/** RESP encoding of one command. */
function command(...parts: string[]): string {
  return `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`;
}

/**
 * Undefined when Redis answers `PING` with the password given (the problem is elsewhere: see
 * the daemon's log); otherwise what is wrong. `password`: the stored secret, which wins over
 * one in the URL, as in the daemon.
 */
export async function probeRedis(url: string, password: string | undefined, timeoutMs = PROBE_TIMEOUT_MS): Promise<ConnectionProblem | undefined> {
  let address: ReturnType<typeof parseRedisAddress>;
  try {
    address = parseRedisAddress(url, password ? { [REDIS_PASSWORD_VARIABLE]: password } : {});
  } catch (error) {
    return { kind: 'queue-url-invalid', detail: (error as Error).message };
  }
  const { host, port, username } = address.connection;
  const secret = address.connection.password;
  const where = `${host}:${port}`;
  const replies = await exchange(
    { host: host ?? '127.0.0.1', port: port ?? 6379, tls: address.connection.tls !== undefined },
    [...(secret ? [username ? command('AUTH', username, secret) : command('AUTH', secret)] : []), command('PING')],
    timeoutMs,
  );
  if ('error' in replies) return { kind: 'redis-unreachable', where, detail: replies.error };
  for (const reply of replies.lines) {
    if (/^-(WRONGPASS|ERR invalid password)/i.test(reply)) return { kind: 'redis-password-refused', where, detail: firstWord(reply) };
    if (/^-NOAUTH/i.test(reply)) return { kind: 'redis-password-required', where };
  }
  return undefined;
}

function firstWord(reply: string): string {
  return reply.slice(1).split(' ')[0] ?? reply;
}

/** Sends `requests`, collects one reply line per request; an error when it cannot. */
function exchange(
  target: { host: string; port: number; tls: boolean },
  requests: string[],
  timeoutMs: number,
): Promise<{ lines: string[] } | { error: string }> {
  return new Promise((resolve) => {
    const socket = target.tls ? tls.connect({ host: target.host, port: target.port, servername: target.host }) : net.connect({ host: target.host, port: target.port });
    let buffered = '';
    const lines: string[] = [];
    const finish = (result: { lines: string[] } | { error: string }): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.once(target.tls ? 'secureConnect' : 'connect', () => socket.write(requests.join('')));
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        lines.push(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
      }
      if (lines.length >= requests.length) finish({ lines });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ error: error.code ?? error.message }));
    socket.once('close', () => finish(lines.length ? { lines } : { error: 'the connection was closed' }));
  });
}
