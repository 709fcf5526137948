import type { Acceptor } from '../queue/TaskQueue';
import type { TaskHandler } from './TaskHandler';

export class HandlerRegistry {
  private readonly byKind = new Map<string, TaskHandler<unknown>>();

  register<P>(handler: TaskHandler<P>): this {
    if (this.byKind.has(handler.kind)) {
      throw new Error(`a handler for task kind "${handler.kind}" is already registered`);
    }
    this.byKind.set(handler.kind, handler);
    return this;
  }

  get(kind: string): TaskHandler<unknown> | undefined {
    return this.byKind.get(kind);
  }

  list(): TaskHandler<unknown>[] {
    return [...this.byKind.values()];
  }

  /** Every capability some registered handler provides. */
  provides(): string[] {
    return [...new Set(this.list().flatMap((handler) => handler.provides))];
  }

  /** The handlers a worker with `caps` may run, as the queue's claim filter. */
  acceptorsFor(caps: readonly string[]): Acceptor[] {
    return this.list()
      .filter((handler) => handler.provides.every((cap) => caps.includes(cap)))
      .map((handler) => ({ kind: handler.kind, provides: handler.provides }));
  }
}
