/**
 * Reads a Redis queue address. One node: `redis://[user[:password]@]host[:port][/db][?prefix=NAME]`,
 * `rediss://` for TLS. A Redis Cluster: `redis+cluster://[user[:password]@]host:port[,host:port...][?prefix=NAME]`
 * (`rediss+cluster://` for TLS): the nodes listed are where discovery starts, any reachable one
 * will do (ioredis learns the rest from CLUSTER SLOTS); a cluster has database 0 only. The
 * password comes from the URL or, preferably, from the environment (`PEAGEN_REDIS_PASSWORD`,
 * which wins); it is kept out of every URL shown to users.
 *
 * Every key of a workspace starts with `{NAME}:` (`{peagen}:` by default): the braces make NAME
 * the key's hash tag, so on a cluster all of a workspace's keys live in one hash slot, on one
 * node, and the queue's scripts can touch several of them atomically. One scheme for single
 * nodes and clusters alike.
 */
import type { RedisOptions } from 'ioredis';

export const REDIS_PASSWORD_VARIABLE = 'PEAGEN_REDIS_PASSWORD';
export const DEFAULT_KEY_PREFIX = 'peagen';

export interface RedisNode {
  host: string;
  port: number;
}

export interface RedisAddress {
  /** The address without its password: safe to log and show. */
  url: string;
  /** The workspace's name (`?prefix=NAME`). */
  prefix: string;
  /** What every key of the workspace starts with: `{NAME}`, a hash tag (see {@link queueKeyPrefix}). */
  keyPrefix: string;
  /**
   * Connection options for ioredis, the password included. For a cluster: what every node
   * connection gets (credentials, TLS), with the first listed node as host and port.
   */
  connection: RedisOptions;
  /** Present for a `redis+cluster://` address: the nodes to start discovery from. */
  cluster?: { nodes: RedisNode[] };
}

/** Bad queue address (the caller reports it as a configuration error). */
export class RedisAddressError extends Error {
  override name = 'RedisAddressError';
}

const PREFIX_FORM = /^[A-Za-z0-9._-]+$/;
const CLUSTER_FORM = /^(rediss?)\+cluster:\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/i;
const EXPECTED = 'expected redis://host[:port][/db] (rediss:// for TLS) or redis+cluster://host:port[,host:port...]';

/** `{NAME}`: the start of every key of workspace NAME, its braces making NAME the hash tag. */
export function queueKeyPrefix(prefix: string): string {
  return `{${prefix}}`;
}

export function parseRedisAddress(address: string, env: NodeJS.ProcessEnv = process.env): RedisAddress {
  if (/^rediss?\+cluster:/i.test(address)) return parseClusterAddress(address, env);
  let parsed: URL;
  try {
    parsed = new URL(address);
  } catch {
    throw new RedisAddressError(`"${redactRedisUrl(address)}" is not a Redis address: ${EXPECTED}`);
  }
  const tls = parsed.protocol === 'rediss:';
  if (!tls && parsed.protocol !== 'redis:') throw new RedisAddressError(`"${redactRedisUrl(address)}" is not a Redis address: ${EXPECTED}`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new RedisAddressError(`the Redis address ${redactRedisUrl(address)} names no host`);
  const port = parsed.port ? Number(parsed.port) : 6379;
  const dbText = parsed.pathname.replace(/^\/|\/$/g, '');
  if (dbText && !/^\d+$/.test(dbText)) throw new RedisAddressError(`the Redis database in ${redactRedisUrl(address)} must be a number (redis://host:port/DB)`);
  const prefix = readPrefix(parsed.searchParams);
  const username = decodeURIComponent(parsed.username) || undefined;
  const password = env[REDIS_PASSWORD_VARIABLE] || decodeURIComponent(parsed.password) || undefined;

  const shown = new URL(parsed.href);
  shown.password = '';
  return {
    url: shown.href.replace(/\/$/, ''),
    prefix,
    keyPrefix: queueKeyPrefix(prefix),
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

/**
 * `redis+cluster://[user[:password]@]host:port[,host:port...][/0][?prefix=NAME]`: several hosts
 * in one authority, which WHATWG URL does not parse, so each host is read on its own.
 */
function parseClusterAddress(address: string, env: NodeJS.ProcessEnv): RedisAddress {
  const shownInput = redactRedisUrl(address);
  const match = CLUSTER_FORM.exec(address);
  if (!match) throw new RedisAddressError(`"${shownInput}" is not a Redis Cluster address: expected redis+cluster://host:port[,host:port...][?prefix=NAME]`);
  const [, scheme = 'redis', userInfo, hostList = '', path = '', query = ''] = match;
  const tls = scheme.toLowerCase() === 'rediss';
  if (hostList.trim() === '') throw new RedisAddressError(`the Redis Cluster address ${shownInput} names no node: redis+cluster://host:port[,host:port...]`);
  const nodes = hostList.split(',').map((text) => readNode(text.trim(), shownInput));
  const dbText = path.replace(/^\/|\/$/g, '');
  if (dbText && dbText !== '0') {
    throw new RedisAddressError(`the Redis Cluster address ${shownInput} names database ${dbText}: a cluster has database 0 only (use ?prefix=NAME to keep workspaces apart)`);
  }
  const prefix = readPrefix(new URLSearchParams(query));
  const [userText = '', ...passwordParts] = (userInfo ?? '').split(':');
  const username = safeDecode(userText) || undefined;
  const password = env[REDIS_PASSWORD_VARIABLE] || safeDecode(passwordParts.join(':')) || undefined;
  const first = nodes[0]!;
  return {
    url: `${scheme.toLowerCase()}+cluster://${userText ? `${userText}@` : ''}${hostList}${dbText ? `/${dbText}` : ''}${query}`,
    prefix,
    keyPrefix: queueKeyPrefix(prefix),
    connection: {
      host: first.host,
      port: first.port,
      ...(username && { username }),
      ...(password && { password }),
      // Nodes are reached by the addresses the cluster announces: TLS checks the name asked for.
      ...(tls && { tls: {} }),
    },
    cluster: { nodes },
  };
}

function readNode(text: string, shownInput: string): RedisNode {
  let parsed: URL;
  try {
    parsed = new URL(`redis://${text}`);
  } catch {
    throw new RedisAddressError(`"${text}" in ${shownInput} is not a host[:port] of a cluster node`);
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host || parsed.username || parsed.pathname.replace(/^\//, '') || parsed.search) {
    throw new RedisAddressError(`"${text}" in ${shownInput} is not a host[:port] of a cluster node`);
  }
  return { host, port: parsed.port ? Number(parsed.port) : 6379 };
}

function readPrefix(params: URLSearchParams): string {
  const prefix = params.get('prefix') ?? DEFAULT_KEY_PREFIX;
  if (!PREFIX_FORM.test(prefix)) throw new RedisAddressError(`the key prefix "${prefix}" may hold only letters, digits, '.', '_' and '-'`);
  return prefix;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The address with any password replaced, for messages (works on malformed input too). */
export function redactRedisUrl(address: string): string {
  return address.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/@]*)@/i, (_, scheme: string, credentials: string) => {
    const user = credentials.split(':')[0] ?? '';
    return `${scheme}${user}${credentials.includes(':') ? ':***' : ''}@`;
  });
}
