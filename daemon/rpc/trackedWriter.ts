/**
 * A MessageWriter that knows when everything handed to it has been written, so the daemon
 * can close a connection without cutting off its last answer (e.g. to a shutdown request).
 */
import type { Event, Message, MessageWriter } from 'vscode-languageserver-protocol/node';

export class TrackedMessageWriter implements MessageWriter {
  private pending = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly inner: MessageWriter) {}

  get onError(): Event<[Error, Message | undefined, number | undefined]> {
    return this.inner.onError;
  }
  get onClose(): Event<void> {
    return this.inner.onClose;
  }

  write(message: Message): Promise<void> {
    this.pending++;
    return this.inner.write(message).finally(() => {
      if (--this.pending > 0) return;
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Resolves once no write is under way. */
  idle(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  end(): void {
    this.inner.end();
  }

  dispose(): void {
    this.inner.dispose();
  }
}
