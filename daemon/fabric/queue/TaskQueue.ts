/**
 * The task fabric's queue contract. At-least-once: a claimed task stays owned by its worker
 * only while the lease lasts; a worker that dies loses the lease and the task runs again.
 *
 * Every adapter (memory today, Redis Streams next) passes test/conformance/taskQueue.ts
 * unchanged; callers depend on this interface only.
 */
import type { DeadLetter, QueueStats } from '../../../shared/protocol';
import type { Result, Task, TaskError } from '../../../shared/task';

/** What a worker can run: one entry per handler whose capabilities the worker has. */
export interface Acceptor {
  kind: string;
  /** The handler's capabilities; a task is eligible when `task.requires ⊆ provides`. */
  provides: readonly string[];
}

export interface ClaimOptions {
  /** Stable name of the claiming worker, kept with the lease (shown in diagnostics). */
  consumer: string;
  accepts: readonly Acceptor[];
  /** How long to wait for an eligible task before answering null. */
  blockMs: number;
  signal?: AbortSignal;
}

/** A task owned by one worker until `leaseUntil` (epoch ms) unless the lease is extended. */
export interface Claim {
  task: Task;
  /** Identifies this delivery; a newer delivery of the same task makes this one stale. */
  leaseId: string;
  leaseUntil: number;
  consumer: string;
}

export type FailOutcome = 'retrying' | 'dead' | 'stale';

export interface QueueOptions {
  /** How long a claim is owned without a heartbeat. The brief's reclaim time is 60 s. */
  leaseMs?: number;
  /** Deliveries before a failing task goes to the dead-letter list. */
  maxAttempts?: number;
  /** Back-off before the first retry; doubled for each further attempt. */
  retryBaseMs?: number;
}

export const DEFAULT_QUEUE_OPTIONS: Required<QueueOptions> = {
  leaseMs: 60_000,
  maxAttempts: 3,
  retryBaseMs: 1_000,
};

export interface TaskQueue {
  /** Adapter name shown to users: `memory`, `redis`. */
  readonly backend: string;
  /** Where the queue lives, with any credentials removed. */
  readonly url: string;

  enqueue(task: Task): Promise<void>;

  /**
   * Waits up to `blockMs` for a task that one of `accepts` can run and leases it to the
   * caller. Tasks nobody here can run are left untouched for other workers. Leases that
   * expired are reclaimed first, so a crashed worker's task is delivered again.
   */
  claim(options: ClaimOptions): Promise<Claim | null>;

  /** Keeps a long task owned; false when the lease was already lost. */
  extendLease(claim: Claim): Promise<boolean>;

  /**
   * Completes a claim and publishes its result (ok, error or skip). Returns false and
   * publishes nothing when the lease is stale: the task was redelivered, and exactly one
   * delivery's result counts.
   */
  ack(claim: Claim, result: Result): Promise<boolean>;

  /**
   * A delivery failed. Retryable errors run again after `retryBaseMs * 2^(attempts-1)` with
   * attempts + 1; non-retryable ones, and the last allowed attempt, go to the dead-letter list
   * with the reason kept, and an error result is published so that waiters are answered.
   */
  fail(claim: Claim, error: TaskError): Promise<FailOutcome>;

  /**
   * Gives a claimed task back untouched (its attempts unchanged), for a worker that stops
   * before finishing it. False when the lease is stale.
   */
  release(claim: Claim): Promise<boolean>;

  /** Moves expired leases back to pending (or to dead-letter after max attempts). */
  reclaimExpired(): Promise<number>;

  /** The published result of a task, if any. */
  getResult(taskId: string): Promise<Result | null>;
  /** Resolves with the result once published, or null after `timeoutMs`. */
  waitForResult(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<Result | null>;

  /** Withdraws a task that has not started; publishes a `skip` result. False otherwise. */
  cancel(taskId: string, reason?: string): Promise<boolean>;

  stats(): Promise<QueueStats>;
  listDead(): Promise<DeadLetter[]>;
  /** Puts a dead task back in the queue with its attempts reset; false if not dead. */
  retryDead(taskId: string): Promise<boolean>;

  close(): Promise<void>;
}

export function canAccept(task: Pick<Task, 'kind' | 'requires'>, accepts: readonly Acceptor[]): boolean {
  return accepts.some(
    (acceptor) => acceptor.kind === task.kind && task.requires.every((cap) => acceptor.provides.includes(cap)),
  );
}

export function retryDelayMs(attemptsSoFar: number, baseMs: number): number {
  return baseMs * 2 ** Math.max(0, attemptsSoFar - 1);
}
