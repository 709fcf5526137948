import { MemoryQueue } from './MemoryQueue';
import { RedisAddressError, redactRedisUrl } from '../../../shared/redisAddress';
import type { QueueOptions, TaskQueue } from './TaskQueue';

/**
 * Picks the adapter from QUEUE_URL-style addresses: `memory://` (default), or
 * `redis://[user@]host[:port][/db][?prefix=NAME]` (`rediss://` for TLS; the password from
 * PEAGEN_REDIS_PASSWORD or the URL), or a Redis Cluster,
 * `redis+cluster://[user@]host:port[,host:port...][?prefix=NAME]` (`rediss+cluster://`). An address this version cannot serve is a
 * QueueAddressError: bad configuration, which the CLI reports with exit code 2.
 * The Redis adapter (and ioredis with it) is loaded only for a redis:// address, and connects
 * on first use.
 */
export class QueueAddressError extends Error {
  override name = 'QueueAddressError';
}

export async function createQueue(url: string, options: QueueOptions = {}): Promise<TaskQueue> {
  const scheme = url.split(':')[0]?.toLowerCase();
  switch (scheme) {
    case 'memory':
      return new MemoryQueue(options);
    case 'redis':
    case 'rediss':
    case 'redis+cluster':
    case 'rediss+cluster': {
      const { RedisStreamsQueue } = await import('./redis/RedisStreamsQueue');
      try {
        return new RedisStreamsQueue(url, options);
      } catch (error) {
        if (error instanceof RedisAddressError) throw new QueueAddressError(error.message);
        throw error;
      }
    }
    default:
      throw new QueueAddressError(`unknown queue address "${redactRedisUrl(url)}": expected memory://, redis://host:port or redis+cluster://host:port[,host:port...]`);
  }
}
