/**
 * Reads a Redis queue address: `redis://[user[:password]@]host[:port][/db][?prefix=NAME]`,
 * `rediss://` for TLS. The password comes from the URL or, preferably, from the environment
 * (`PEAGEN_REDIS_PASSWORD`, which wins); it is kept out of every URL shown to users.
 */
import type { RedisOptions } from 'ioredis';

export const REDIS_PASSWORD_VARIABLE = 'PEAGEN_REDIS_PASSWORD';
export const DEFAULT_KEY_PREFIX = 'peagen';

export interface RedisAddress {
  /** The address without its password: safe to log and show. */
  url: string;
  /** Key prefix of every key the queue uses. */
  prefix: string;
  /** Connection options for ioredis, the password included. */
  connection: RedisOptions;
}

/** Bad queue address (the caller reports it as a configuration error). */
export class RedisAddressError extends Error {
  override name = 'RedisAddressError';
}

const PREFIX_FORM = /^[A-Za-z0-9._-]+$/;

export function parseRedisAddress(address: string, env: NodeJS.ProcessEnv = process.env): RedisAddress {
  let parsed: URL;
  try {
    parsed = new URL(address);
  } catch {
    throw new RedisAddressError(`"${redactRedisUrl(address)}" is not a Redis address: expected redis://host[:port][/db] (rediss:// for TLS)`);
  }
  const tls = parsed.protocol === 'rediss:';
  if (!tls && parsed.protocol !== 'redis:') throw new RedisAddressError(`"${redactRedisUrl(address)}" is not a redis:// or rediss:// address`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new RedisAddressError(`the Redis address ${redactRedisUrl(address)} names no host`);
  const port = parsed.port ? Number(parsed.port) : 6379;
  const dbText = parsed.pathname.replace(/^\/|\/$/g, '');
  if (dbText && !/^\d+$/.test(dbText)) throw new RedisAddressError(`the Redis database in ${redactRedisUrl(address)} must be a number (redis://host:port/DB)`);
  const prefix = parsed.searchParams.get('prefix') ?? DEFAULT_KEY_PREFIX;
  if (!PREFIX_FORM.test(prefix)) throw new RedisAddressError(`the key prefix "${prefix}" may hold only letters, digits, '.', '_' and '-'`);
  const username = decodeURIComponent(parsed.username) || undefined;
  const password = env[REDIS_PASSWORD_VARIABLE] || decodeURIComponent(parsed.password) || undefined;

  const shown = new URL(parsed.href);
  shown.password = '';
  return {
    url: shown.href.replace(/\/$/, ''),
    prefix,
    connection: {
      host,
      port,
      ...(dbText && { db: Number(dbText) }),
      ...(username && { username }),
      ...(password && { password }),
      ...(tls && { tls: { servername: host } }),
    },
  };
}

/** The address with any password replaced, for messages (works on malformed input too). */
export function redactRedisUrl(address: string): string {
  return address.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/@]*)@/i, (_, scheme: string, credentials: string) => {
    const user = credentials.split(':')[0] ?? '';
    return `${scheme}${user}${credentials.includes(':') ? ':***' : ''}@`;
  });
}
