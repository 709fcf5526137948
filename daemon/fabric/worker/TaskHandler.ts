/**
 * A handler runs one kind of task. It declares the capabilities it needs from the host
 * (`provides`), and a worker offers it only when the worker has all of them, so the rule
 * `task.requires ⊆ handler.provides ⊆ worker caps` holds for every task that runs.
 */
import type { ZodType } from 'zod';
import type { Task, TaskError } from '../../../shared/task';

export interface HandlerContext {
  workerId: string;
  /** Aborted when the task is cancelled, its deadline passes or the worker stops. */
  signal: AbortSignal;
  log(message: string): void;
}

export type HandlerOutput =
  | { status: 'ok' | 'skip'; data?: unknown }
  /** A final failure that still has data to report (e.g. an evaluation that failed). */
  | { status: 'error'; error: TaskError; data?: unknown };

export interface TaskHandler<Payload = unknown> {
  readonly kind: string;
  readonly provides: readonly string[];
  /** Checked before `handle`; a payload that fails it becomes an `invalid_payload` error. */
  readonly payloadSchema: ZodType<Payload>;
  /**
   * The handler runs code the task supplies (a command, a candidate program): a worker then
   * runs such tasks from a shared queue only in an isolating sandbox, unless its own
   * configuration allows otherwise (see taskAdmission.ts). A plugin handler that runs
   * anything a task names must say so.
   */
  readonly runsTaskCode?: boolean;
  handle(task: Task & { payload: Payload }, context: HandlerContext): Promise<HandlerOutput>;
}

/** A failure the handler understands; anything else thrown is treated as a crash. */
export class HandlerError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'HandlerError';
  }

  /**
   * Recognises a HandlerError by shape, not class: a plugin's copy of this class is not the
   * daemon bundle's copy, so `instanceof` would call every plugin failure a crash.
   */
  static is(error: unknown): error is HandlerError {
    const candidate = error as { name?: unknown; code?: unknown; retryable?: unknown } | null;
    return (
      error instanceof Error &&
      candidate?.name === 'HandlerError' &&
      typeof candidate.code === 'string' &&
      typeof candidate.retryable === 'boolean'
    );
  }

}
