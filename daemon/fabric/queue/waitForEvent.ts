import type { EventEmitter } from 'node:events';

/**
 * Resolves at the first of: `emitter` emitting `event`, `ms` passing (at least 1 ms), or
 * `signal` aborting. Never rejects; listeners and the timer are removed whichever comes first.
 */
export function waitForEvent(emitter: EventEmitter, event: string, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      emitter.off(event, done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(1, ms));
    emitter.once(event, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
