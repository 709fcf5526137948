/**
 * Which claimed tasks a worker runs at all: the queue trusts its writers no more than it must.
 * Anyone who can write to a shared (Redis) queue can queue a task, so before a claimed task
 * runs (in this process or a one-shot child) the worker checks, in this order:
 *
 * 1. A task this process submitted itself must still be what it submitted: a queue writer
 *    that rewrote its record under the same id (to borrow the trust its id carries, e.g. for
 *    host paths) is refused (`task_tampered`).
 * 2. With a cluster secret, the task must be signed with it (./queue/taskSignature.ts).
 * 3. A task whose handler runs code the task supplies (`execute`, `evaluate`: see
 *    TaskHandler.runsTaskCode) runs only in an isolating sandbox (docker, bwrap), unless it
 *    came from this process (a memory:// queue is private to it; on a shared queue, the tasks
 *    it submitted) or the worker's own configuration allows unisolated runs
 *    (`sandbox.allowUnisolated`). The `process` executor runs as the worker's user with its
 *    files and network: a foreign task there could read the host's files and the daemon's token.
 *
 * A refusal is final for every worker (the task is dead-lettered with the reason at once),
 * and its message says what to change.
 */
import { createHash } from 'node:crypto';
import type { Task, TaskError } from '../../../shared/task';
import { canonicalTaskContent, signatureProblem } from '../queue/taskSignature';
import type { HandlerRegistry } from './HandlerRegistry';

/** Decides before a claimed task runs whether this worker may run it; the refusal, or undefined. */
export type TaskGate = (task: Task) => TaskError | undefined;

export interface AdmissionPolicy {
  /** Whether the sandbox this worker's handlers run in isolates (docker, bwrap, an isolating plugin's). */
  isolates: boolean;
  /** Its name, for messages. */
  executorName: string;
  /** sandbox.allowUnisolated: the worker's owner trusts every writer to its queue. */
  allowUnisolated: boolean;
  /** Every task on the queue comes from this process (memory://). */
  privateQueue: boolean;
  /** The cluster's task secret (PEAGEN_TASK_SECRET): tasks must be signed with it. */
  secret?: string | undefined;
}

/** Tasks remembered as submitted here and unfinished; the oldest are forgotten past this. */
const MAX_SUBMITTED_HERE = 100_000;

export class TaskAdmission {
  /** Content digests of the tasks this process submitted, by task id, until they end. */
  private readonly submitted = new Map<string, string>();

  constructor(
    private readonly registry: HandlerRegistry,
    readonly policy: AdmissionPolicy,
  ) {}

  /** This process queues `task`: it is trusted as it is, and only as it is. */
  submittedHere(task: Task): void {
    // On a private queue every task is this process's, and nobody else can change one.
    if (this.policy.privateQueue) return;
    if (this.submitted.size >= MAX_SUBMITTED_HERE) this.submitted.delete(this.submitted.keys().next().value!);
    this.submitted.set(task.id, digest(task));
  }

  /** The task ended (or was never queued): nothing will run it again. */
  forget(taskId: string): void {
    this.submitted.delete(taskId);
  }

  /** The task kinds this worker refuses from other processes for want of isolation (for a warning at start). */
  get refusedForeignKinds(): string[] {
    const { isolates, allowUnisolated, privateQueue } = this.policy;
    if (isolates || allowUnisolated || privateQueue) return [];
    return this.registry.list().flatMap((handler) => (handler.runsTaskCode === true ? [handler.kind] : []));
  }

  readonly gate: TaskGate = (task) => {
    const { policy } = this;
    const known = this.submitted.get(task.id);
    if (known !== undefined && known !== digest(task)) {
      return refusal('task_tampered', `task ${task.id} was changed in the queue after this process submitted it (its record was rewritten by a queue writer); it is not run`);
    }
    const local = known !== undefined || policy.privateQueue;
    if (policy.secret !== undefined && !local) {
      const problem = signatureProblem(task, policy.secret);
      if (problem) return refusal(problem.code, problem.message);
    }
    const handler = this.registry.get(task.kind);
    if (handler?.runsTaskCode === true && !policy.isolates && !policy.allowUnisolated && !local) {
      // Kept short: a dead letter's reason is cut at 300 characters, and what to do must survive.
      return refusal(
        'isolation_required',
        `the ${policy.executorName} executor does not isolate, so this worker runs ${task.kind} tasks only from its own process; install Docker or bubblewrap on the worker, or start it with --allow-unisolated (PEAGEN_ALLOW_UNISOLATED=1) if every queue writer is trusted`,
      );
    }
    return undefined;
  };
}

function refusal(code: string, message: string): TaskError {
  return { code, message, retryable: false };
}

function digest(task: Task): string {
  // The signature is content too: a rewritten signature is a rewritten task.
  return createHash('sha256').update(canonicalTaskContent(task)).update('\n').update(task.signature ?? '').digest('hex');
}
