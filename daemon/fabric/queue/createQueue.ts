import { MemoryQueue } from './MemoryQueue';
import { RedisAddressError, redactRedisUrl } from '../../../shared/redisAddress';
import { RedisStreamsQueue } from './redis/RedisStreamsQueue';
import type { QueueOptions, TaskQueue } from './TaskQueue';

/**
 * Picks the adapter from QUEUE_URL-style addresses: `memory://` (default), or
 * `redis://[user@]host[:port][/db][?prefix=NAME]` (`rediss://` for TLS; the password from
 * PEAGEN_REDIS_PASSWORD or the URL). An address this version cannot serve is a
 * QueueAddressError: bad configuration, which the CLI reports with exit code 2.
 * The Redis adapter connects on first use.
 */
export class QueueAddressError extends Error {
  override name = 'QueueAddressError';
}

export function createQueue(url: string, options: QueueOptions = {}): TaskQueue {
  const scheme = url.split(':')[0]?.toLowerCase();
  switch (scheme) {
    case 'memory':
      return new MemoryQueue(options);
    case 'redis':
    case 'rediss':
      try {
        return new RedisStreamsQueue(url, options);
      } catch (error) {
        if (error instanceof RedisAddressError) throw new QueueAddressError(error.message);
        throw error;
      }
    default:
      throw new QueueAddressError(`unknown queue address "${redactRedisUrl(url)}": expected memory:// or redis://host:port`);
  }
}
