/**
 * Runs one task with its handler and always returns an outcome: validation failures,
 * handler errors and crashes become error results, never exceptions that escape the worker.
 */
import * as z from 'zod';
import { parseTask, type Result, type TaskError } from '../../../shared/task';
import type { HandlerRegistry } from './HandlerRegistry';
import { HandlerError } from './TaskHandler';

export type TaskOutcome =
  /** Final: publish this result (ok, skip, or a non-retryable error). */
  | { kind: 'result'; result: Result }
  /** Worth another delivery: hand to `queue.fail`. */
  | { kind: 'retry'; error: TaskError };

/**
 * Watches each task the fabric runs, for a layer above it that the fabric does not know:
 * observability's trace span per task (observability/tracing.ts `taskTracer`), handed in by
 * the composition root. Without one, tasks run the same, untraced.
 */
export interface TaskTracer {
  /** A task is about to run; `raw` is the task as delivered, before validation. */
  start(raw: unknown, workerId: string): TaskTrace;
}

export interface TaskTrace {
  end(outcome: TaskOutcome): void;
  /** The run threw (a bug: runTask turns every failure it knows into an outcome). */
  fail(error: unknown): void;
}

export async function runTask(
  raw: unknown,
  registry: HandlerRegistry,
  workerId: string,
  signal: AbortSignal,
  log: (message: string) => void = () => {},
  tracer?: TaskTracer,
): Promise<TaskOutcome> {
  const trace = tracer?.start(raw, workerId);
  let outcome: TaskOutcome;
  try {
    outcome = await runTaskUntraced(raw, registry, workerId, signal, log);
  } catch (error) {
    trace?.fail(error);
    throw error;
  }
  trace?.end(outcome);
  return outcome;
}

async function runTaskUntraced(
  raw: unknown,
  registry: HandlerRegistry,
  workerId: string,
  signal: AbortSignal,
  log: (message: string) => void,
): Promise<TaskOutcome> {
  const startedAt = new Date();
  const parsed = parseTask(raw);
  const attemptsOf = (value: unknown): number =>
    typeof (value as { attempts?: unknown })?.attempts === 'number' ? (value as { attempts: number }).attempts + 1 : 1;
  const finish = (partial: Pick<Result, 'status'> & Partial<Result>): TaskOutcome => {
    const finishedAt = new Date();
    return {
      kind: 'result',
      result: {
        taskId: parsed.ok ? parsed.task.id : (parsed.taskId ?? 'unknown'),
        attempts: attemptsOf(raw),
        startedAt: startedAt.toISOString(),
        finishedAt: finishedAt.toISOString(),
        durationMs: finishedAt.getTime() - startedAt.getTime(),
        workerId,
        ...partial,
      },
    };
  };

  if (!parsed.ok) return finish({ status: 'error', error: parsed.error });
  const task = parsed.task;
  const handler = registry.get(task.kind);
  if (!handler) {
    return finish({
      status: 'error',
      error: { code: 'no_handler', message: `this worker has no handler for task kind "${task.kind}"`, retryable: false },
    });
  }
  if (task.deadline !== undefined && task.deadline <= Date.now()) {
    return finish({
      status: 'skip',
      error: { code: 'deadline_passed', message: 'the task deadline passed before it started', retryable: false },
    });
  }
  const payload = handler.payloadSchema.safeParse(task.payload);
  if (!payload.success) {
    return finish({
      status: 'error',
      error: {
        code: 'invalid_payload',
        message: `invalid ${task.kind} payload: ${z.prettifyError(payload.error)}`,
        retryable: false,
      },
    });
  }

  const deadlineSignal =
    task.deadline !== undefined ? AbortSignal.any([signal, AbortSignal.timeout(task.deadline - Date.now())]) : signal;
  try {
    const output = await handler.handle({ ...task, payload: payload.data }, { workerId, signal: deadlineSignal, log });
    return finish({
      status: output.status,
      ...(output.data !== undefined && { data: output.data }),
      ...(output.status === 'error' && { error: output.error }),
    });
  } catch (error) {
    if (signal.aborted) {
      return finish({
        status: 'skip',
        error: { code: 'cancelled', message: String(signal.reason ?? 'cancelled'), retryable: false },
      });
    }
    if (deadlineSignal.aborted) {
      return finish({
        status: 'error',
        error: { code: 'timeout', message: 'the task ran past its deadline and was stopped', retryable: false },
      });
    }
    if (HandlerError.is(error)) {
      const taskError: TaskError = { code: error.code, message: error.message, retryable: error.retryable };
      return taskError.retryable ? { kind: 'retry', error: taskError } : finish({ status: 'error', error: taskError });
    }
    // An unexpected exception may be transient (a full disk, a flaky socket): retry, bounded
    // by the queue's max attempts.
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { kind: 'retry', error: { code: 'handler_crash', message, retryable: true } };
  }
}
