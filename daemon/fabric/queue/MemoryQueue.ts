/**
 * The embedded queue: everything in this process, nothing to install. It serves the CLI's
 * `--sync` mode, the daemon's default and the tests; it keeps the same promises as the Redis
 * adapter, but its contents die with the process.
 */
import { EventEmitter } from 'node:events';
import type { DeadLetter, QueueStats } from '../../../shared/protocol';
import type { Result, Task, TaskError } from '../../../shared/task';
import {
  canAccept,
  type Claim,
  type ClaimOptions,
  DEFAULT_QUEUE_OPTIONS,
  type FailOutcome,
  type QueueOptions,
  retryDelayMs,
  type TaskQueue,
} from './TaskQueue';

/** Results kept for late readers; older ones are dropped first. */
const MAX_RESULTS = 10_000;

interface Delayed {
  task: Task;
  visibleAt: number;
}

export class MemoryQueue implements TaskQueue {
  readonly backend = 'memory';
  readonly url = 'memory://';

  private readonly options: Required<QueueOptions>;
  private readonly pending: Task[] = [];
  private readonly delayed = new Map<string, Delayed>();
  private readonly inFlight = new Map<string, Claim>();
  private readonly dead = new Map<string, DeadLetter>();
  private readonly results = new Map<string, Result>();
  private readonly events = new EventEmitter();
  private leaseCounter = 0;
  private closed = false;

  constructor(options: QueueOptions = {}) {
    this.options = { ...DEFAULT_QUEUE_OPTIONS, ...options };
    this.events.setMaxListeners(0);
  }

  async enqueue(task: Task): Promise<void> {
    this.assertOpen();
    this.pending.push(structuredClone(task));
    this.events.emit('available');
  }

  async claim(options: ClaimOptions): Promise<Claim | null> {
    const giveUpAt = Date.now() + options.blockMs;
    while (!this.closed && !options.signal?.aborted) {
      const now = Date.now();
      this.promoteDelayed(now);
      this.reclaim(now);
      const index = this.pending.findIndex((task) => canAccept(task, options.accepts));
      if (index >= 0) {
        const [task] = this.pending.splice(index, 1) as [Task];
        const claim: Claim = {
          task: structuredClone(task),
          leaseId: `${task.id}#${++this.leaseCounter}`,
          leaseUntil: now + this.options.leaseMs,
          consumer: options.consumer,
        };
        this.inFlight.set(task.id, claim);
        return structuredClone(claim);
      }
      if (now >= giveUpAt) return null;
      await this.waitForChange(Math.min(giveUpAt, this.nextWakeAt()) - now, options.signal);
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
    this.inFlight.delete(claim.task.id);
    this.publish(result);
    return true;
  }

  async fail(claim: Claim, error: TaskError): Promise<FailOutcome> {
    if (!this.currentClaim(claim)) return 'stale';
    this.inFlight.delete(claim.task.id);
    return this.retryOrBury(claim.task, error.retryable ? null : `${error.code}: ${error.message}`, error);
  }

  async release(claim: Claim): Promise<boolean> {
    if (!this.currentClaim(claim)) return false;
    this.inFlight.delete(claim.task.id);
    this.pending.unshift(claim.task);
    this.events.emit('available');
    return true;
  }

  async reclaimExpired(): Promise<number> {
    return this.reclaim(Date.now());
  }

  async getResult(taskId: string): Promise<Result | null> {
    const result = this.results.get(taskId);
    return result ? structuredClone(result) : null;
  }

  async waitForResult(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<Result | null> {
    const known = await this.getResult(taskId);
    if (known || timeoutMs <= 0 || this.closed) return known;
    return new Promise((resolve) => {
      const finish = (result: Result | null): void => {
        clearTimeout(timer);
        this.events.off(`result:${taskId}`, onResult);
        this.events.off('closed', onClosed);
        signal?.removeEventListener('abort', onClosed);
        resolve(result ? structuredClone(result) : null);
      };
      const onResult = (result: Result): void => finish(result);
      const onClosed = (): void => finish(null);
      const timer = setTimeout(onClosed, timeoutMs);
      this.events.on(`result:${taskId}`, onResult);
      this.events.once('closed', onClosed);
      signal?.addEventListener('abort', onClosed, { once: true });
    });
  }

  async cancel(taskId: string, reason = 'cancelled by request'): Promise<boolean> {
    let task: Task | undefined;
    const index = this.pending.findIndex((candidate) => candidate.id === taskId);
    if (index >= 0) [task] = this.pending.splice(index, 1);
    else if (this.delayed.has(taskId)) {
      task = this.delayed.get(taskId)?.task;
      this.delayed.delete(taskId);
    }
    if (!task) return false;
    this.publish({
      taskId,
      status: 'skip',
      error: { code: 'cancelled', message: reason, retryable: false },
      attempts: task.attempts,
      finishedAt: new Date().toISOString(),
    });
    return true;
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

  async listDead(): Promise<DeadLetter[]> {
    return structuredClone([...this.dead.values()]);
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
    this.closed = true;
    this.events.emit('closed');
    this.events.emit('available');
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

  /** `finalReason` set: bury now. Otherwise retry after back-off unless attempts are used up. */
  private retryOrBury(task: Task, finalReason: string | null, error: TaskError): FailOutcome {
    const attempts = task.attempts + 1;
    const next: Task = { ...task, attempts };
    if (finalReason === null && attempts < this.options.maxAttempts) {
      const visibleAt = Date.now() + retryDelayMs(attempts, this.options.retryBaseMs);
      this.delayed.set(task.id, { task: next, visibleAt });
      this.events.emit('available');
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
    return 'dead';
  }

  private reclaim(now: number): number {
    let count = 0;
    for (const [taskId, claim] of this.inFlight) {
      if (claim.leaseUntil > now) continue;
      this.inFlight.delete(taskId);
      count++;
      const error: TaskError = {
        code: 'lease_expired',
        message: `worker ${claim.consumer} held the task past its lease without finishing it`,
        retryable: true,
      };
      // A lost worker counts as a failed attempt so that a task that kills every worker
      // ends in the dead-letter list instead of cycling forever; it is retried at once.
      const attempts = claim.task.attempts + 1;
      if (attempts < this.options.maxAttempts) this.pending.unshift({ ...claim.task, attempts });
      else this.retryOrBury(claim.task, null, error);
    }
    if (count > 0) this.events.emit('available');
    return count;
  }

  private promoteDelayed(now: number): void {
    for (const [taskId, entry] of this.delayed) {
      if (entry.visibleAt > now) continue;
      this.delayed.delete(taskId);
      this.pending.push(entry.task);
    }
  }

  private nextWakeAt(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.delayed.values()) next = Math.min(next, entry.visibleAt);
    for (const claim of this.inFlight.values()) next = Math.min(next, claim.leaseUntil);
    return next;
  }

  private waitForChange(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.events.off('available', done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      this.events.once('available', done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private publish(result: Result): void {
    this.results.delete(result.taskId);
    this.results.set(result.taskId, structuredClone(result));
    if (this.results.size > MAX_RESULTS) {
      const oldest = this.results.keys().next().value;
      if (oldest !== undefined) this.results.delete(oldest);
    }
    this.events.emit(`result:${result.taskId}`, result);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the queue is closed');
  }
}
