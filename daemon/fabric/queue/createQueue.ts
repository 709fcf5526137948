import { MemoryQueue } from './MemoryQueue';
import type { QueueOptions, TaskQueue } from './TaskQueue';

/**
 * Picks the adapter from QUEUE_URL-style addresses: `memory://` (default); `redis://` later.
 * An address this version cannot serve is a QueueAddressError: bad configuration, which the
 * CLI reports with exit code 2.
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
      throw new QueueAddressError(
        `the Redis Streams queue is not available in this version; use memory:// (the default) or upgrade Peagen (queue url: ${url.replace(/\/\/[^@]*@/, '//***@')})`,
      );
    default:
      throw new QueueAddressError(`unknown queue address "${url}": expected memory:// or redis://host:port`);
  }
}
