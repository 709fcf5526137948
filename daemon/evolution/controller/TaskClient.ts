/**
 * How the run controller reaches the task fabric: submit a task, wait for its result,
 * cancel it. The embedded engine and the daemon connection both provide it, so a run does
 * the same work whether its mutate and evaluate tasks run in this process or on workers
 * anywhere (P-5).
 */
import type { Result, TaskSpec } from '../../../shared/task';

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
