/**
 * Opening ioredis connections for the queue. The first connect is bounded (a wrong address or
 * password is a clear error, never a hang); after that ioredis reconnects on its own, and a
 * command issued during an outage fails after a couple of reconnect attempts instead of
 * waiting: callers (the worker pool) retry, and nothing is sent twice behind their back.
 *
 * A `redis+cluster://` address opens an ioredis Cluster instead: it learns the slot map from
 * the listed nodes and sends each command (each script, by its first key) to the node owning
 * its slot, following MOVED/ASK redirections. A queue's keys share one hash slot, so every
 * multi-key command (MGET, MULTI, the scripts, a blocking XREAD over several streams) goes to
 * one node. Pub/sub needs nothing special: a PUBLISH on any node of a cluster reaches the
 * subscribers of every node (the cluster bus forwards it).
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { REDIS_PASSWORD_VARIABLE, type RedisAddress } from '../../../../shared/redisAddress';
import { RedisConnectError } from './connectError';

/** A connection to one Redis node or to a Redis Cluster: the queue uses both alike. */
export type RedisConnection = Redis | Cluster;

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

export { RedisConnectError } from './connectError';

export function connectionOptions(base: RedisOptions, connectTimeoutMs: number, name: string): RedisOptions & { replyMapping: 'legacy' } {
  return {
    ...base,
    // Replies shaped as in RESP2 (flat arrays), which the scripts' callers expect.
    replyMapping: 'legacy',
    connectionName: name,
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    // Fail commands during an outage quickly; a resent script could run twice.
    maxRetriesPerRequest: 2,
    autoResendUnfulfilledCommands: false,
    retryStrategy: reconnectDelay,
  };
}

/** Delay before the next reconnect attempt (ms), for a node and for a cluster's slot map. */
function reconnectDelay(times: number): number {
  return Math.min(50 * 2 ** times, 1_000);
}

/**
 * Opens (lazily: nothing is sent before {@link connectBounded}) a connection to `address`: one
 * node, or a cluster when the address is a `redis+cluster://` one. `name` is the client name
 * Redis shows (CLIENT LIST).
 */
export function openConnection(
  address: RedisAddress,
  connectTimeoutMs: number,
  name: string,
  extra: Pick<RedisOptions, 'enableAutoPipelining'> = {},
): RedisConnection {
  const options = connectionOptions(address.connection, connectTimeoutMs, name);
  if (!address.cluster) {
    const redis = new Redis({ ...options, ...extra });
    rejectDroppedCommands(redis);
    return redis;
  }
  // The cluster client owns hosts, ports and reconnects; each node gets the rest (credentials, TLS, timeouts).
  const nodeOptions: Partial<typeof options> = { ...options };
  delete nodeOptions.host;
  delete nodeOptions.port;
  delete nodeOptions.db;
  delete nodeOptions.retryStrategy;
  const cluster = new Cluster(address.cluster.nodes, {
    redisOptions: nodeOptions,
    lazyConnect: true,
    ...(extra.enableAutoPipelining !== undefined && { enableAutoPipelining: extra.enableAutoPipelining }),
    clusterRetryStrategy: reconnectDelay,
    // A command caught by a node connection that closed may have run: reject it, as on a single
    // node, instead of sending it again (a second enqueue would read as a duplicate, a second
    // claim lease tasks nobody runs). Redirections (MOVED, ASK, TRYAGAIN) still retry: those ran nowhere.
    retryDelayOnFailover: 0,
    // While the cluster is down, fail commands at once (callers retry) instead of holding them
    // until it is back: a claim or a wait would outlast its own time limit.
    enableOfflineQueue: false,
  });
  // Each node connection is an ioredis Redis, with the same drop problem as a single node's.
  cluster.on('+node', (node: Redis) => rejectDroppedCommands(node));
  return cluster;
}

/**
 * Rejects the commands that were in flight when `redis` lost its connection. With
 * autoResendUnfulfilledCommands off (as above), ioredis 6.0.0 keeps them aside on close and
 * drops them on reconnect without settling them (redis/ioredis#2193, fixed upstream after
 * 6.0.0): their promises never settle and, with auto-pipelining, every later command of the
 * connection waits behind them. After a Redis restart a queue client hung for good (the chaos
 * test: 490 results stored and never read). They are rejected here as the upstream fix does,
 * like any command caught by a dropped connection; callers retry. Still harmless once ioredis
 * settles them itself: whichever rejects them first empties the stash.
 */
export function rejectDroppedCommands(redis: Redis): void {
  // ioredis emits 'close' on the tick after its close handler has put the stash aside.
  redis.on('close', () => {
    const stash = (redis as unknown as { prevCommandQueue?: { shift(): { command: { reject(error: Error): void } } | undefined } | null }).prevCommandQueue;
    for (let item = stash?.shift(); item; item = stash?.shift()) item.command.reject(new Error('Redis connection lost while the command was in flight'));
  });
}

/**
 * Connects `redis` and waits until it is ready, for at most `timeoutMs`. Rejects with a
 * {@link RedisConnectError} naming `shownUrl` (never the password) and what to do.
 */
export async function connectBounded(redis: RedisConnection, shownUrl: string, timeoutMs: number): Promise<void> {
  let lastError: Error | undefined;
  await new Promise<void>((resolve, reject) => {
    const fail = (error: RedisConnectError): void => {
      cleanup();
      redis.disconnect();
      reject(error);
    };
    const onReady = (): void => {
      cleanup();
      resolve();
    };
    const onError = (error: Error): void => {
      lastError = error;
      if (/WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(error.message)) {
        const hint = /NOAUTH/.test(error.message)
          ? `the server requires a password: set ${REDIS_PASSWORD_VARIABLE} (or put it in the queue URL)`
          : `the password was refused: check ${REDIS_PASSWORD_VARIABLE} (and the user name in the queue URL)`;
        fail(new RedisConnectError(`Redis at ${shownUrl} refused to authenticate (${firstLine(error.message)}); ${hint}`));
      }
    };
    const timer = setTimeout(() => {
      fail(
        new RedisConnectError(
          `could not reach Redis at ${shownUrl} within ${timeoutMs} ms${lastError ? ` (${firstLine(lastError.message)})` : ''}; ` +
            'check that redis-server runs there (node scripts/provision/redis.mjs start starts a private one) or fix QUEUE_URL',
        ),
      );
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      redis.off('node error', onError);
    };
    redis.on('ready', onReady);
    redis.on('error', onError);
    // A cluster reports its nodes' errors (a refused password) as 'node error'.
    redis.on('node error', onError);
    redis.connect().catch((error: Error) => {
      lastError = error;
    });
  });
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

export { Redis };
