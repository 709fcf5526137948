/**
 * The embedded queue: everything in this process, nothing to install. It serves the CLI's
 * `--sync` mode, the daemon's default and the tests; it keeps the same promises as the Redis
 * adapter, but its contents die with the process.
 */
import { EventEmitter } from 'node:events';
import type { DeadLetter, QueueStats, RequirementSetDepth, TaskState, WorkerRecord } from '../../../shared/task';
import type { Result, Task, TaskError } from '../../../shared/task';
import { ByteBoundedMap } from './ByteBoundedMap';
import { waitForEvent } from './waitForEvent';
import {
  type AckedWithNext,
  canAccept,
  type Claim,
  type ClaimOptions,
  DEFAULT_QUEUE_OPTIONS,
  DuplicateTaskError,
  type FailOutcome,
  type NextClaim,
  type QueueOptions,
  requirementSetKey,
  retryDelayMs,
  type TaskEvent,
  type TaskEventListener,
  type TaskQueue,
  taskRecord,
} from './TaskQueue';

export interface MemoryQueueOptions extends QueueOptions {
  /**
   * Results kept for late readers, bounded by size (JSON length) since one result may carry
   * megabytes of output; the oldest are dropped first.
   */
  maxResultBytes?: number;
  /** Dead letters kept for `dlq list` / `dlq retry`, bounded the same way. */
  maxDeadLetterBytes?: number;
}

export const DEFAULT_MAX_RESULT_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_DEAD_LETTER_BYTES = 16 * 1024 * 1024;

/** State events carry a short reason, never a stack trace or an output. */
const MAX_REASON_LENGTH = 300;

interface Delayed {
  task: Task;
  visibleAt: number;
}

export class MemoryQueue implements TaskQueue {
  readonly backend = 'memory';
  readonly url = 'memory://';

  private readonly options: Required<QueueOptions>;
  private readonly pending: Task[] = [];
  /** Pending task ids with when each became pending (epoch ms), for the oldest pending age. */
  private readonly pendingIds = new Map<string, number>();
  private readonly delayed = new Map<string, Delayed>();
  private readonly inFlight = new Map<string, Claim>();
  /** In-flight tasks someone asked to cancel, with the reason given. */
  private readonly cancelRequests = new Map<string, string>();
  private readonly dead: ByteBoundedMap<DeadLetter>;
  private readonly results: ByteBoundedMap<Result>;
  private readonly signals = new EventEmitter();
  private readonly listeners = new Set<TaskEventListener>();
  /** The cluster directory: the only workers of a private queue are in this process. */
  private readonly workers = new Map<string, { record: WorkerRecord; lapsesAt: number }>();
  private leaseCounter = 0;
  private closed = false;

  constructor(options: MemoryQueueOptions = {}) {
    this.options = {
      leaseMs: options.leaseMs ?? DEFAULT_QUEUE_OPTIONS.leaseMs,
      maxAttempts: options.maxAttempts ?? DEFAULT_QUEUE_OPTIONS.maxAttempts,
      retryBaseMs: options.retryBaseMs ?? DEFAULT_QUEUE_OPTIONS.retryBaseMs,
    };
    this.results = new ByteBoundedMap(options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES);
    this.dead = new ByteBoundedMap(options.maxDeadLetterBytes ?? DEFAULT_MAX_DEAD_LETTER_BYTES);
    this.signals.setMaxListeners(0);
  }

  async enqueue(task: Task): Promise<void> {
    this.assertOpen();
    taskRecord(task);
    const where = this.whereIs(task.id);
    if (where) throw new DuplicateTaskError(task.id, where);
    this.pushPending(structuredClone(task));
    this.emitState(task, 'queued', task.attempts);
  }

  async claim(options: ClaimOptions): Promise<Claim | null> {
    const giveUpAt = Date.now() + options.blockMs;
    while (!this.closed && !options.signal?.aborted) {
      const now = Date.now();
      const claim = this.leaseWaiting(options, now);
      if (claim) return claim;
      if (now >= giveUpAt) return null;
      await waitForEvent(this.signals, 'available', Math.min(giveUpAt, this.nextWakeAt()) - now, options.signal);
    }
    return null;
  }

  async extendLease(claim: Claim): Promise<boolean> {
    const current = this.currentClaim(claim);
    if (!current) return false;
    current.leaseUntil = Date.now() + this.options.leaseMs;
    claim.leaseUntil = current.leaseUntil;
    return true;
  }

  async ack(claim: Claim, result: Result): Promise<boolean> {
    if (!this.currentClaim(claim)) return false;
    this.settle(claim.task.id);
    this.publish(result);
    const cancelled = result.status === 'skip' && result.error?.code === 'cancelled';
    this.emitState(claim.task, cancelled ? 'cancelled' : 'done', claim.task.attempts + 1, {
      workerId: claim.consumer,
      ...(cancelled && { reason: result.error?.message }),
    });
    return true;
  }

  async ackAndClaimNext(claim: Claim, result: Result, next: NextClaim): Promise<AckedWithNext> {
    const acked = await this.ack(claim, result);
    return { acked, next: this.closed ? null : this.leaseWaiting(next, Date.now()) };
  }

  /** Leases the oldest waiting task `accepts` can run to `consumer`, or null when none waits. */
  private leaseWaiting({ consumer, accepts }: NextClaim, now: number): Claim | null {
    this.promoteDelayed(now);
    this.reclaim(now);
    const index = this.pending.findIndex((task) => canAccept(task, accepts));
    if (index < 0) return null;
    const task = this.takePendingAt(index);
    const claim: Claim = {
      task: structuredClone(task),
      leaseId: `${task.id}#${++this.leaseCounter}`,
      leaseUntil: now + this.options.leaseMs,
      consumer,
    };
    this.inFlight.set(task.id, claim);
    this.emitState(task, 'running', task.attempts + 1, { workerId: consumer });
    return structuredClone(claim);
  }

  async fail(claim: Claim, error: TaskError): Promise<FailOutcome> {
    if (!this.currentClaim(claim)) return 'stale';
    const cancelReason = this.settle(claim.task.id);
    if (cancelReason !== undefined) {
      this.answerCancelled(claim.task, claim.task.attempts + 1, cancelReason, claim.consumer);
      return 'cancelled';
    }
    return this.retryOrBury(claim, error.retryable ? null : `${error.code}: ${error.message}`, error);
  }

  async release(claim: Claim): Promise<boolean> {
    if (!this.currentClaim(claim)) return false;
    const cancelReason = this.settle(claim.task.id);
    if (cancelReason !== undefined) {
      this.answerCancelled(claim.task, claim.task.attempts, cancelReason, claim.consumer);
      return true;
    }
    this.unshiftPending(claim.task);
    this.emitState(claim.task, 'queued', claim.task.attempts, { workerId: claim.consumer, reason: 'released by its worker' });
    return true;
  }

  async reclaimExpired(): Promise<number> {
    return this.reclaim(Date.now());
  }

  async getResult(taskId: string): Promise<Result | null> {
    const result = this.results.get(taskId);
    return result ? structuredClone(result) : null;
  }

  async knows(taskId: string): Promise<boolean> {
    return this.pendingIds.has(taskId) || this.inFlight.has(taskId) || this.delayed.has(taskId) || this.results.has(taskId) || this.dead.has(taskId);
  }

  async waitForResult(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<Result | null> {
    // Looked up synchronously: an await here would let a result be published before the
    // listener below is registered, and the waiter would then sleep through it.
    const stored = this.results.get(taskId);
    const known = stored ? structuredClone(stored) : null;
    if (known || timeoutMs <= 0 || this.closed) return known;
    return new Promise((resolve) => {
      const finish = (result: Result | null): void => {
        clearTimeout(timer);
        this.signals.off(`result:${taskId}`, onResult);
        this.signals.off('closed', onClosed);
        signal?.removeEventListener('abort', onClosed);
        resolve(result ? structuredClone(result) : null);
      };
      const onResult = (result: Result): void => finish(result);
      const onClosed = (): void => finish(null);
      const timer = setTimeout(onClosed, timeoutMs);
      this.signals.on(`result:${taskId}`, onResult);
      this.signals.once('closed', onClosed);
      signal?.addEventListener('abort', onClosed, { once: true });
    });
  }

  async cancel(taskId: string, reason = 'cancelled by request'): Promise<boolean> {
    const held = this.inFlight.get(taskId);
    if (held) {
      this.cancelRequests.set(taskId, reason);
      this.emit({ type: 'cancel', taskId, kind: held.task.kind, workerId: held.consumer, leaseId: held.leaseId, reason, at: Date.now() });
      return true;
    }
    let task: Task | undefined;
    const index = this.pending.findIndex((candidate) => candidate.id === taskId);
    if (index >= 0) task = this.takePendingAt(index);
    else if (this.delayed.has(taskId)) {
      task = this.delayed.get(taskId)?.task;
      this.delayed.delete(taskId);
    }
    if (!task) return false;
    this.answerCancelled(task, task.attempts, reason);
    return true;
  }

  subscribe(listener: TaskEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stats(): Promise<QueueStats> {
    const now = Date.now();
    this.promoteDelayed(now);
    this.reclaim(now);
    return {
      pending: this.pending.length,
      inFlight: this.inFlight.size,
      delayed: this.delayed.size,
      dead: this.dead.size,
    };
  }

  async depth(): Promise<RequirementSetDepth[]> {
    const now = Date.now();
    this.promoteDelayed(now);
    this.reclaim(now);
    const sets = new Map<string, RequirementSetDepth>();
    const count = (task: Task, field: 'pending' | 'inFlight' | 'delayed'): void => {
      const key = requirementSetKey(task.kind, task.requires);
      let entry = sets.get(key);
      if (!entry) {
        entry = { kind: task.kind, requires: [...new Set(task.requires)].sort(), pending: 0, inFlight: 0, delayed: 0, oldestPendingMs: 0 };
        sets.set(key, entry);
      }
      entry[field] += 1;
      if (field === 'pending') entry.oldestPendingMs = Math.max(entry.oldestPendingMs, now - (this.pendingIds.get(task.id) ?? now));
    };
    for (const task of this.pending) count(task, 'pending');
    for (const claim of this.inFlight.values()) count(claim.task, 'inFlight');
    for (const entry of this.delayed.values()) count(entry.task, 'delayed');
    return [...sets.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry);
  }

  async announceWorker(record: WorkerRecord, ttlMs: number): Promise<void> {
    this.workers.set(record.id, { record: structuredClone(record), lapsesAt: Date.now() + ttlMs });
  }

  async retireWorker(workerId: string): Promise<void> {
    this.workers.delete(workerId);
  }

  async listWorkers(): Promise<WorkerRecord[]> {
    const now = Date.now();
    for (const [id, entry] of this.workers) if (entry.lapsesAt <= now) this.workers.delete(id);
    return [...this.workers.values()]
      .map((entry) => structuredClone(entry.record))
      .sort((a, b) => a.host.localeCompare(b.host) || a.id.localeCompare(b.id));
  }

  async listDead(): Promise<DeadLetter[]> {
    return structuredClone(this.dead.values());
  }

  async retryDead(taskId: string): Promise<boolean> {
    const letter = this.dead.get(taskId);
    if (!letter) return false;
    this.dead.delete(taskId);
    this.results.delete(taskId);
    await this.enqueue({ ...letter.task, attempts: 0 });
    return true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.signals.emit('closed');
    this.signals.emit('available');
    this.listeners.clear();
  }

  /** Where a task with this id is, or undefined when the queue does not know it. */
  private whereIs(taskId: string): string | undefined {
    if (this.pendingIds.has(taskId)) return 'pending';
    if (this.delayed.has(taskId)) return 'delayed for a retry';
    if (this.inFlight.has(taskId)) return 'in flight';
    if (this.dead.has(taskId)) return 'dead-lettered';
    if (this.results.has(taskId)) return 'finished, its result is kept';
    return undefined;
  }

  /** The live claim this (possibly stale) copy refers to. */
  private currentClaim(claim: Claim): Claim | undefined {
    const current = this.inFlight.get(claim.task.id);
    if (!current || current.leaseId !== claim.leaseId) return undefined;
    if (current.leaseUntil <= Date.now()) {
      this.reclaim(Date.now());
      return undefined;
    }
    return current;
  }

  /** Ends a task's flight; answers the cancel request made meanwhile, if any. */
  private settle(taskId: string): string | undefined {
    this.inFlight.delete(taskId);
    const reason = this.cancelRequests.get(taskId);
    this.cancelRequests.delete(taskId);
    return reason;
  }

  private answerCancelled(task: Task, attempts: number, reason: string, workerId?: string): void {
    this.publish({
      taskId: task.id,
      status: 'skip',
      error: { code: 'cancelled', message: reason, retryable: false },
      attempts,
      finishedAt: new Date().toISOString(),
    });
    this.emitState(task, 'cancelled', attempts, { reason, ...(workerId && { workerId }) });
  }

  /** `finalReason` set: bury now. Otherwise retry after back-off unless attempts are used up. */
  private retryOrBury(claim: Claim, finalReason: string | null, error: TaskError): FailOutcome {
    const task = claim.task;
    const attempts = task.attempts + 1;
    const next: Task = { ...task, attempts };
    if (finalReason === null && attempts < this.options.maxAttempts) {
      const visibleAt = Date.now() + retryDelayMs(attempts, this.options.retryBaseMs);
      this.delayed.set(task.id, { task: next, visibleAt });
      this.signals.emit('available');
      this.emitState(task, 'retrying', attempts, { workerId: claim.consumer, reason: `${error.code}: ${error.message}` });
      return 'retrying';
    }
    const reason = finalReason ?? `${error.code}: ${error.message} (after ${attempts} attempts)`;
    this.dead.set(task.id, { task: next, reason, failedAt: new Date().toISOString() });
    this.publish({
      taskId: task.id,
      status: 'error',
      error: { code: 'dead_letter', message: reason, retryable: false },
      attempts,
      finishedAt: new Date().toISOString(),
    });
    this.emitState(task, 'dead', attempts, { workerId: claim.consumer, reason });
    return 'dead';
  }

  private reclaim(now: number): number {
    let count = 0;
    for (const [taskId, claim] of this.inFlight) {
      if (claim.leaseUntil > now) continue;
      count++;
      const cancelReason = this.settle(taskId);
      const attempts = claim.task.attempts + 1;
      if (cancelReason !== undefined) {
        this.answerCancelled(claim.task, attempts, cancelReason, claim.consumer);
        continue;
      }
      const error: TaskError = {
        code: 'lease_expired',
        message: `worker ${claim.consumer} held the task past its lease without finishing it`,
        retryable: true,
      };
      // A lost worker counts as a failed attempt so that a task that kills every worker
      // ends in the dead-letter list instead of cycling forever; it is retried at once.
      if (attempts < this.options.maxAttempts) {
        this.unshiftPending({ ...claim.task, attempts });
        this.emitState(claim.task, 'queued', attempts, { workerId: claim.consumer, reason: `${error.code}: ${error.message}` });
      } else this.retryOrBury(claim, null, error);
    }
    if (count > 0) this.signals.emit('available');
    return count;
  }

  private promoteDelayed(now: number): void {
    for (const [taskId, entry] of this.delayed) {
      if (entry.visibleAt > now) continue;
      this.delayed.delete(taskId);
      this.pushPending(entry.task);
    }
  }

  private pushPending(task: Task): void {
    this.pending.push(task);
    this.pendingIds.set(task.id, Date.now());
    this.signals.emit('available');
  }

  private unshiftPending(task: Task): void {
    this.pending.unshift(task);
    this.pendingIds.set(task.id, Date.now());
    this.signals.emit('available');
  }

  private takePendingAt(index: number): Task {
    const [task] = this.pending.splice(index, 1) as [Task];
    this.pendingIds.delete(task.id);
    return task;
  }

  private nextWakeAt(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.delayed.values()) next = Math.min(next, entry.visibleAt);
    for (const claim of this.inFlight.values()) next = Math.min(next, claim.leaseUntil);
    return next;
  }

  private publish(result: Result): void {
    this.results.set(result.taskId, structuredClone(result));
    this.signals.emit(`result:${result.taskId}`, result);
  }

  private emitState(
    task: Pick<Task, 'id' | 'kind'>,
    state: TaskState,
    attempts: number,
    extra: { workerId?: string; reason?: string | undefined } = {},
  ): void {
    this.emit({
      type: 'state',
      taskId: task.id,
      kind: task.kind,
      state,
      attempts,
      at: Date.now(),
      ...(extra.workerId !== undefined && { workerId: extra.workerId }),
      ...(extra.reason !== undefined && { reason: extra.reason.slice(0, MAX_REASON_LENGTH) }),
    });
  }

  /** Listeners run synchronously; one that throws must not break the queue operation. */
  private emit(event: TaskEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(structuredClone(event));
      } catch {
        // A listener's bug is its own; the task's state has already changed.
      }
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the queue is closed');
  }
}
