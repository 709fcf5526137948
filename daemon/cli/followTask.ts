/**
 * Submitting a task to the daemon and waiting for it as a user expects: the task id on stderr
 * as soon as it exists, its progress (queued → running → done) from the daemon's
 * `peagen/taskUpdate` notifications, and Ctrl-C cancelling it in the daemon rather than
 * leaving it running unseen.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { CancelTask, GetResult, SubmitTask, type TaskUpdate } from '../../shared/protocol';
import type { Result } from '../../shared/task';
import type { DaemonClient } from '../rpc/client';
import { type CliContext, watchInterrupt } from './context';

/** Long enough for a daemon under load; short enough that Ctrl-C still feels like Ctrl-C. */
const CANCEL_TIMEOUT_MS = 10_000;

export interface FollowOptions {
  /** Starts the line that names the task id (e.g. "evaluating bad_sort through the daemon"). */
  label: string;
  /** How long to wait for the result; 0 returns once the task is queued. */
  waitMs: number;
  /** Print each state change on stderr. */
  progress: boolean;
}

export async function submitAndFollow(
  ctx: CliContext,
  client: DaemonClient,
  spec: SubmitTask.Params,
  options: FollowOptions,
): Promise<{ taskId: string; result: Result | null }> {
  // Subscribed before submitting: the daemon announces "queued" before it answers the submit.
  const submitted: { taskId?: string } = {};
  const early: TaskUpdate.Params[] = [];
  let lastState: string | undefined;
  const show = (update: TaskUpdate.Params, result?: Result): void => {
    if (!options.progress || update.taskId !== submitted.taskId || update.state === lastState) return;
    lastState = update.state;
    const attempt = update.attempts > 1 ? ` (attempt ${update.attempts})` : '';
    const outcome = result ? ` (${result.status}${result.error ? `: ${result.error.code}` : ''})` : '';
    ctx.info(`task ${update.taskId}: ${update.state}${attempt}${update.state === 'done' ? outcome : ''}${update.reason ? ` — ${update.reason}` : ''}`);
  };
  client.onTaskUpdate((update) => {
    // The end is shown from the result itself, which names the outcome.
    if (update.state === 'done' || update.state === 'cancelled') return;
    if (submitted.taskId === undefined) early.push(update);
    else show(update);
  });

  if (options.waitMs === 0) {
    const { taskId } = await client.request(SubmitTask.type, spec);
    return { taskId, result: null };
  }
  // Ctrl-C while submitting still cancels: the watch starts before the task exists.
  const interrupt = watchInterrupt();
  try {
    const { taskId: id } = await client.request(SubmitTask.type, spec);
    submitted.taskId = id;
    ctx.info(`${options.label}: task ${id}; Ctrl-C cancels it`);
    for (const update of early) show(update);
    const answer = await interrupt.wait(client.request(GetResult.type, { taskId: id, waitMs: options.waitMs }), () => cancelOnInterrupt(client, id));
    if (answer.result) {
      const cancelled = answer.result.error?.code === 'cancelled';
      show({ taskId: id, kind: spec.kind, state: cancelled ? 'cancelled' : 'done', attempts: answer.result.attempts }, answer.result);
    }
    return { taskId: id, result: answer.result };
  } finally {
    interrupt.dispose();
  }
}

/** The message to leave the user with after Ctrl-C: cancelled, or what to do about it. */
async function cancelOnInterrupt(client: DaemonClient, taskId: string): Promise<string> {
  try {
    const answer = await Promise.race([
      client.request(CancelTask.type, { taskId }),
      delay(CANCEL_TIMEOUT_MS, undefined, { ref: false }).then(() => {
        throw new Error(`no answer within ${CANCEL_TIMEOUT_MS / 1000} s`);
      }),
    ]);
    return answer.cancelled
      ? `interrupted: task ${taskId} cancelled in the daemon`
      : `interrupted: task ${taskId} had already finished; see \`peagen task result ${taskId}\``;
  } catch (error) {
    return (
      `interrupted, but the daemon did not cancel task ${taskId} (${(error as Error).message}): it keeps running; ` +
      `cancel it with \`peagen task cancel ${taskId}\``
    );
  }
}
