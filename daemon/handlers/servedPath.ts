/**
 * A host path named by a task payload, checked against the worker's HostPathPolicy: a refusal
 * is the task's non-retryable `path_refused` error (no other worker of the pool may take it).
 */
import { HandlerError } from '../fabric/worker/TaskHandler';
import { type HostPathPolicy, HostPathRefused } from '../sandbox/hostPaths';

/** `hostPath` as the policy allows it, or a non-retryable `path_refused` (no worker may take it). */
export function servedPath(hostPaths: HostPathPolicy | undefined, task: { id: string }, hostPath: string, what: string): string {
  if (!hostPaths) return hostPath;
  try {
    return hostPaths.check(hostPath, what, task.id);
  } catch (error) {
    if (error instanceof HostPathRefused) throw new HandlerError('path_refused', error.message, false);
    throw error;
  }
}
