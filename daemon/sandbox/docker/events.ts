/**
 * The engine's event stream for one container (exec_die, die, oom), parsed line by line and
 * handed to whoever waits for the run's end. Events that come before anyone waits are kept.
 */
import type { Readable } from 'node:stream';

interface EngineEvent {
  Action?: string;
  status?: string;
  Actor?: { Attributes?: Record<string, string> };
}

/** The events a run subscribes to (see ContainerEvents). */
export const WATCHED_EVENTS = ['exec_die', 'die', 'oom'];

export class ContainerEvents {
  oom = false;
  /** exec ids that died before anyone waited for them, with their exit codes. */
  readonly execDied = new Map<string, number | null>();
  onExecDie: ((execId: string, exitCode: number | null) => void) | undefined;
  onDie: (() => void) | undefined;
  onOom: (() => void) | undefined;
  onClose: (() => void) | undefined;
  private buffer = '';

  attach(stream: Readable): void {
    stream.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline).trim();
        this.buffer = this.buffer.slice(newline + 1);
        if (line) this.handle(line);
      }
    });
    stream.on('error', () => undefined);
    stream.on('close', () => this.onClose?.());
  }

  private handle(line: string): void {
    let event: EngineEvent;
    try {
      event = JSON.parse(line) as EngineEvent;
    } catch {
      return;
    }
    const action = event.Action ?? event.status ?? '';
    const attributes = event.Actor?.Attributes ?? {};
    if (action === 'exec_die') {
      const execId = attributes.execID ?? '';
      const code = attributes.exitCode !== undefined && attributes.exitCode !== '' ? Number(attributes.exitCode) : null;
      this.execDied.set(execId, Number.isFinite(code) ? code : null);
      this.onExecDie?.(execId, Number.isFinite(code) ? code : null);
    } else if (action === 'oom') {
      this.oom = true;
      this.onOom?.();
    } else if (action === 'die') {
      this.onDie?.();
    }
  }
}
