/**
 * How the run controller reaches the task fabric: submit a task, wait for its result,
 * cancel it. The embedded engine and the daemon connection both provide it, so a run does
 * the same work whether its mutate and evaluate tasks run in this process or on workers
 * anywhere (P-5).
 */
import { type Result, TASK_LOST, type TaskSpec } from '../../../shared/task';

export interface TaskClient {
  submit(spec: TaskSpec): Promise<string>;
  /** Null when no result came within `waitMs`. */
  result(taskId: string, waitMs: number, signal?: AbortSignal): Promise<Result | null>;
  cancel(taskId: string): Promise<boolean>;
}

/** Waits for a task's result however long it takes, in bounded slices (an RPC long-poll has a cap). */
export async function awaitResult(client: TaskClient, taskId: string, signal?: AbortSignal): Promise<Result> {
  for (;;) {
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    const result = await client.result(taskId, 600_000, signal);
    if (result) return result;
  }
}

/** How many times a task the queue lost is submitted again before its loss is the result. */
const LOST_RESUBMITS = 3;

/**
 * Submits `spec` and waits for its result; a task the queue lost (a Redis that restarted
 * without its data: TASK_LOST) is submitted again, saying so through `onLost`, so a run goes
 * on instead of waiting past every limit. `tasks` holds the id in flight (to cancel it).
 */
export async function runTask(
  client: TaskClient,
  spec: TaskSpec,
  signal: AbortSignal,
  tasks?: Set<string>,
  onLost?: (message: string) => void,
): Promise<Result> {
  for (let attempt = 0; ; attempt++) {
    const taskId = await client.submit(spec);
    tasks?.add(taskId);
    const result = await awaitResult(client, taskId, signal);
    tasks?.delete(taskId);
    if (result.error?.code !== TASK_LOST || attempt >= LOST_RESUBMITS) return result;
    onLost?.(result.error.message);
  }
}
