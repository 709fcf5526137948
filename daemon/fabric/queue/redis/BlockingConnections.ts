/**
 * Connections for blocking reads. A blocked XREAD holds its connection, so each concurrent
 * claim borrows one of its own; idle ones are kept for the next claim, up to `maxIdle`. On a
 * cluster each is a Cluster client of its own: the read goes to the node owning the streams' slot.
 */
import type { RedisConnection } from './connect';

export class BlockingConnections {
  private readonly idle: RedisConnection[] = [];
  private readonly busy = new Set<RedisConnection>();
  private closed = false;

  constructor(
    private readonly open: () => Promise<RedisConnection>,
    private readonly maxIdle = 8,
  ) {}

  async acquire(): Promise<RedisConnection> {
    if (this.closed) throw new Error('the queue is closed');
    const connection = this.idle.pop() ?? (await this.open());
    if (this.closed) {
      connection.disconnect();
      throw new Error('the queue is closed');
    }
    this.busy.add(connection);
    return connection;
  }

  /** Returns a connection whose command finished; a broken one is dropped. */
  release(connection: RedisConnection): void {
    this.busy.delete(connection);
    if (this.closed || connection.status !== 'ready' || this.idle.length >= this.maxIdle) connection.disconnect();
    else this.idle.push(connection);
  }

  /** Ends a blocked read at once (its command rejects) by closing its connection. */
  interrupt(connection: RedisConnection): void {
    this.busy.delete(connection);
    connection.disconnect();
  }

  close(): void {
    this.closed = true;
    for (const connection of [...this.idle, ...this.busy]) connection.disconnect();
    this.idle.length = 0;
    this.busy.clear();
  }
}
