/**
 * The task fabric's queue contract. At-least-once: a claimed task stays owned by its worker
 * only while the lease lasts; a worker that dies loses the lease and the task runs again.
 *
 * Every adapter (memory today, Redis Streams next) passes test/conformance/taskQueue.ts
 * unchanged; callers depend on this interface only.
 */
import type { DeadLetter, QueueStats, RequirementSetDepth, TaskState, WorkerRecord } from '../../../shared/task';
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

/** Whom {@link TaskConsumer.ackAndClaimNext} leases the next task to, and what it can run. */
export type NextClaim = Pick<ClaimOptions, 'consumer' | 'accepts'>;

export interface AckedWithNext {
  /** What {@link TaskConsumer.ack} answers: false for a stale delivery. */
  acked: boolean;
  /** The task leased next, or null when none was waiting. */
  next: Claim | null;
}

/** A task owned by one worker until `leaseUntil` (epoch ms) unless the lease is extended. */
export interface Claim {
  task: Task;
  /** Identifies this delivery; a newer delivery of the same task makes this one stale. */
  leaseId: string;
  leaseUntil: number;
  consumer: string;
}

/** `cancelled`: a cancel was requested while the task ran, so it is answered, not retried. */
export type FailOutcome = 'retrying' | 'dead' | 'cancelled' | 'stale';

/**
 * A task changed state. Carries the state only, never the result (read that with
 * getResult), so that events stay small on every transport.
 */
export interface TaskStateEvent {
  type: 'state';
  taskId: string;
  /** The task's kind. */
  kind: string;
  state: TaskState;
  /** Deliveries so far, the current one included (0 while it has never run). */
  attempts: number;
  /** Epoch ms of the change. */
  at: number;
  /** The consumer holding (or last holding) the task, when one is involved. */
  workerId?: string;
  /** Why, for retrying, dead, cancelled and lease-expiry transitions. */
  reason?: string;
}

/**
 * Someone asked to cancel a task a worker holds. The worker holding the lease, in whatever
 * process or host, aborts it; its result is then a `skip` with code `cancelled`.
 */
export interface CancelRequestEvent {
  type: 'cancel';
  taskId: string;
  kind: string;
  /** The consumer holding the lease. */
  workerId: string;
  /** The delivery to stop (see {@link Claim.leaseId}). */
  leaseId: string;
  reason: string;
  at: number;
}

export type TaskEvent = TaskStateEvent | CancelRequestEvent;
export type TaskEventListener = (event: TaskEvent) => void;

/**
 * The largest task record a queue takes or hands to a worker (its JSON, in bytes). Real tasks
 * carry a program or a file, far below this; a record above it (a bug, or one written by hand)
 * would only cost every worker that reads it its memory.
 */
export const MAX_TASK_BYTES = 8 * 1024 * 1024;

/** Refused by `enqueue`: the task's record is larger than {@link MAX_TASK_BYTES}. */
export class TaskTooLargeError extends Error {
  override name = 'TaskTooLargeError';
  readonly code = 'task_too_large';

  constructor(
    readonly taskId: string,
    readonly bytes: number,
  ) {
    super(`task ${taskId} is ${bytes} bytes as JSON, over the queue's limit of ${MAX_TASK_BYTES} bytes; send the data by reference (a path the worker can read) instead of in the payload`);
  }
}

/** The task's JSON record, or TaskTooLargeError when it is over the limit. */
export function taskRecord(task: Task): string {
  const json = JSON.stringify(task);
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_TASK_BYTES) throw new TaskTooLargeError(task.id, bytes);
  return json;
}

/** Refused by `enqueue`: a task with this id is already known to the queue. */
export class DuplicateTaskError extends Error {
  override name = 'DuplicateTaskError';
  readonly code = 'duplicate_task';

  constructor(
    readonly taskId: string,
    /** Where the existing task is: pending, delayed, in flight, done, dead. */
    readonly where: string,
  ) {
    super(`a task with id ${taskId} is already in the queue (${where}); task ids must be unique`);
  }
}

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

/**
 * The queue's roles, BullMQ-style: each part of Peagen depends on the role it plays, and every
 * adapter (MemoryQueue, RedisStreamsQueue) plays them all as a {@link TaskQueue}, checked by
 * one conformance suite (test/conformance/taskQueue.ts).
 */
interface QueueConnection {
  /** Adapter name shown to users: `memory`, `redis`. */
  readonly backend: string;
  /** Where the queue lives, with any credentials removed. */
  readonly url: string;
  /** Stops the queue and unblocks waiters; calling it again does nothing. */
  close(): Promise<void>;
}

/** What submits work and waits for its answers: the engine, an evolution run, the CLI. */
export interface TaskProducer extends QueueConnection {
  /**
   * Adds a task. Rejects with {@link DuplicateTaskError} when a task with its id is pending,
   * delayed, in flight, or has a result or a dead letter: a redelivery is the queue's job,
   * never a second enqueue.
   */
  enqueue(task: Task): Promise<void>;

  /** The published result of a task, if any. */
  getResult(taskId: string): Promise<Result | null>;
  /**
   * Whether the queue holds the task (queued, running, waiting to retry, dead-lettered) or its
   * result: false for an id it never had, or whose result has expired.
   */
  knows(taskId: string): Promise<boolean>;
  /**
   * Resolves with the result once published, or null after `timeoutMs`. A stored result is
   * always found, even with `timeoutMs` 0 ("look, do not wait").
   */
  waitForResult(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<Result | null>;

  /**
   * Cancels a task that has not finished. A queued or delayed task is withdrawn and answered
   * with a `skip` result (code `cancelled`). For a task a worker holds, the request is
   * recorded and a `cancel` event emitted: the worker holding the lease aborts the task and
   * acks a `skip` result; if that worker fails, releases or loses the lease instead, the task
   * is not run again but answered with the `skip` result. False when the task is unknown or
   * already finished.
   */
  cancel(taskId: string, reason?: string): Promise<boolean>;

}

/** What runs work: a worker pool claims, keeps, acks, fails or hands back each delivery. */
export interface TaskConsumer extends QueueConnection {
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
   * Acks like {@link ack} and, in the same round trip, leases to `next.consumer` the oldest
   * waiting task `next.accepts` can run, without waiting (null when none waits). A worker
   * working through a backlog then pays one round trip per task instead of an ack and a claim
   * (BullMQ's moveToFinished fetches the next job the same way). A worker that will not run the
   * task it got (it is stopping) hands it back with {@link release}, which counts no attempt.
   */
  ackAndClaimNext(claim: Claim, result: Result, next: NextClaim): Promise<AckedWithNext>;

  /**
   * A delivery failed. Retryable errors run again after `retryBaseMs * 2^(attempts-1)` with
   * attempts + 1; non-retryable ones, and the last allowed attempt, go to the dead-letter list
   * with the reason kept, and an error result is published so that waiters are answered.
   * A task whose cancel was requested meanwhile is answered with its `skip` result instead.
   */
  fail(claim: Claim, error: TaskError): Promise<FailOutcome>;

  /**
   * Gives a claimed task back untouched (its attempts unchanged), for a worker that stops
   * before finishing it. False when the lease is stale.
   */
  release(claim: Claim): Promise<boolean>;

}

/** Task-state and cancel events, for whoever follows tasks (BullMQ's QueueEvents). */
export interface QueueEvents {
  /**
   * Task-state and cancel-request events, seen by every subscriber of this queue in any
   * process (BullMQ's QueueEvents is the model). States: `queued` on enqueue, release,
   * lease expiry with attempts left and retryDead; `running` on claim; `done` or `cancelled`
   * on ack (by the result's error code); `retrying` or `dead` on fail and lease expiry;
   * `cancelled` on cancel of a waiting task. Listeners must not throw; returns unsubscribe.
   */
  subscribe(listener: TaskEventListener): () => void;

}

/** Upkeep and inspection: expired leases, counts, dead letters. */
export interface QueueAdmin extends QueueConnection {
  /** Moves expired leases back to pending (or to dead-letter after max attempts). */
  reclaimExpired(): Promise<number>;

  stats(): Promise<QueueStats>;
  /**
   * Pending, in-flight and delayed counts per (kind, requirement set), sorted by kind then
   * requirements; sets with nothing in them may be left out.
   */
  depth(): Promise<RequirementSetDepth[]>;
  listDead(): Promise<DeadLetter[]>;
  /** Puts a dead task back in the queue with its attempts reset; false if not dead. */
  retryDead(taskId: string): Promise<boolean>;

}

/** The cluster directory: which worker pools serve this queue now, from every host. */
export interface WorkerDirectory {
  /**
   * A worker pool announces itself and renews the record by heartbeat;
   * a record not renewed within `ttlMs` lapses (its host died), so listWorkers shows the
   * workers that serve this queue now, from every host.
   */
  announceWorker(record: WorkerRecord, ttlMs: number): Promise<void>;
  /** Removes a worker's record at once (it stopped cleanly). */
  retireWorker(workerId: string): Promise<void>;
  /** Workers whose records have not lapsed, sorted by host then id. */
  listWorkers(): Promise<WorkerRecord[]>;

}

/** What a worker needs of the queue: it claims and settles deliveries, follows cancel events, and checks for a result already published. */
export type WorkerQueue = TaskConsumer & QueueEvents & Pick<TaskProducer, 'getResult'>;

/** Every role at once: what an adapter implements and what the composition root opens. */
export interface TaskQueue extends TaskProducer, TaskConsumer, QueueEvents, QueueAdmin, WorkerDirectory {}

export function canAccept(task: Pick<Task, 'kind' | 'requires'>, accepts: readonly Acceptor[]): boolean {
  return accepts.some(
    (acceptor) => acceptor.kind === task.kind && task.requires.every((cap) => acceptor.provides.includes(cap)),
  );
}

/** `kind [a, b]`, requirements sorted: how depth, streams and status name a requirement set. */
export function requirementSetKey(kind: string, requires: readonly string[]): string {
  return `${kind}:${[...new Set(requires)].sort().join(',')}`;
}

export function retryDelayMs(attemptsSoFar: number, baseMs: number): number {
  return baseMs * 2 ** Math.max(0, attemptsSoFar - 1);
}
