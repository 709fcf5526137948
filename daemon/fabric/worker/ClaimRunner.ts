/**
 * Runs claimed tasks to their end in the queue, for the worker pool and the warm spawner
 * alike: keeps each lease alive by heartbeat, stops a run whose lease the queue says is
 * lost (so a redelivered task never runs twice at once), routes cancel requests from any
 * process to the run holding the lease, and reports the outcome (ack, fail or release).
 */
import { EventEmitter } from 'node:events';
import type { Result, Task, TaskError } from '../../../shared/task';
import type { Acceptor, Claim, FailOutcome, TaskEvent, WorkerQueue } from '../queue/TaskQueue';
import type { TaskOutcome } from './runTask';
import type { TaskGate } from './taskAdmission';

/** `stale`: the lease was lost (or the queue unreachable), so nothing was reported. */
export type TaskEnd = FailOutcome | 'done' | 'released';

/** Why a run's signal was aborted; one-shot exit reasons use the same words. */
export type AbortReason = 'cancelled' | 'shutdown' | 'lease_lost';

/** Runs a task until it has an outcome; aborting `signal` must end it soon. */
export type RunClaimed = (task: Task, signal: AbortSignal) => Promise<TaskOutcome>;

export interface ClaimRunnerEvents {
  taskStart: [task: Task];
  taskEnd: [task: Task, end: TaskEnd, result: Result | undefined];
}

/**
 * How long a cancel for a lease not (yet) running here is remembered. Lease ids never repeat,
 * so a late entry harms nothing; the bound only keeps the map small.
 */
const EARLY_CANCEL_TTL_MS = 10 * 60_000;

interface Running {
  claim: Claim;
  controller: AbortController;
}

export class ClaimRunner extends EventEmitter<ClaimRunnerEvents> {
  /** By lease id: a stale delivery and its redelivery may briefly run side by side here. */
  private readonly running = new Map<string, Running>();
  /** Cancels addressed to a lease of this worker that no run has registered yet, by lease id. */
  private readonly earlyCancels = new Map<string, number>();
  private readonly unsubscribe: () => void;

  /**
   * `ownerId`: the worker's id; its consumers are named `${ownerId}/...`. `gate`: which claimed
   * tasks may run at all (see taskAdmission.ts); a refused one is dead-lettered unrun.
   */
  constructor(
    private readonly queue: WorkerQueue,
    private readonly ownerId: string,
    private readonly log?: (line: string) => void,
    private readonly gate?: TaskGate,
  ) {
    super();
    this.unsubscribe = queue.subscribe((event) => this.onQueueEvent(event));
  }

  /** Tasks running now. */
  get busy(): number {
    return this.running.size;
  }

  abortAll(reason: AbortReason): void {
    for (const entry of this.running.values()) entry.controller.abort(reason);
  }

  /** Stops listening for cancel requests. */
  close(): void {
    this.unsubscribe();
  }

  async run(claim: Claim, consumer: string, execute: RunClaimed): Promise<TaskEnd> {
    return (await this.runThenLease(claim, consumer, execute, () => undefined)).end;
  }

  /**
   * Runs a claim like run(); when the task ends with a result and `nextAccepts()` then names
   * acceptors, its ack also leases the next task they can run to `consumer` (see
   * TaskConsumer.ackAndClaimNext), returned as `next` for the caller to run or release.
   */
  async runThenLease(claim: Claim, consumer: string, execute: RunClaimed, nextAccepts: () => readonly Acceptor[] | undefined): Promise<{ end: TaskEnd; next: Claim | null }> {
    const refused = this.gate?.(claim.task);
    if (refused) return { end: await this.refuse(claim, consumer, refused), next: null };
    const { queue } = this;
    const controller = new AbortController();
    this.running.set(claim.leaseId, { claim, controller });
    if (this.earlyCancels.delete(claim.leaseId)) controller.abort('cancelled' satisfies AbortReason);
    this.emit('taskStart', claim.task);
    // Renew the lease well before it lapses so that only a dead worker loses its task. When
    // the queue says the lease is gone, the task is (or will be) redelivered: stop this run
    // so that it never runs twice at once.
    const leaseMs = Math.max(30, claim.leaseUntil - Date.now());
    const renew = async (): Promise<void> => {
      const kept = await queue.extendLease(claim).catch(() => true /* unreachable: the lease may still hold */);
      if (!kept && !controller.signal.aborted) {
        this.log?.(`worker ${consumer}: lease on ${claim.task.id} was lost; stopping its run`);
        controller.abort('lease_lost' satisfies AbortReason);
      }
    };
    const heartbeat = setInterval(() => void renew(), leaseMs / 3);
    let outcome: TaskOutcome;
    try {
      outcome = await execute(claim.task, controller.signal);
    } catch (error) {
      // The run could not even be attempted (a child that cannot be spawned, ENOMEM): a
      // retryable failure, bounded by max attempts, and the worker goes on claiming.
      const message = error instanceof Error ? error.message : String(error);
      this.log?.(`worker ${consumer}: could not run task ${claim.task.id} (${message})`);
      outcome = { kind: 'retry', error: { code: 'worker_error', message: `the worker could not run the task: ${message}`, retryable: true } };
    } finally {
      clearInterval(heartbeat);
      this.running.delete(claim.leaseId);
    }

    const aborted = controller.signal.reason as AbortReason | undefined;
    let end: TaskEnd;
    let result: Result | undefined;
    let next: Claim | null = null;
    let accepts: readonly Acceptor[] | undefined;
    try {
      if (aborted === 'lease_lost') {
        // Another delivery owns the task now; ack and fail would refuse this one anyway.
        end = 'stale';
      } else if (aborted === 'shutdown') {
        end = (await queue.release(claim)) ? 'released' : 'stale';
      } else if (outcome.kind === 'result' && (accepts = nextAccepts()) && accepts.length > 0) {
        result = outcome.result;
        const acked = await queue.ackAndClaimNext(claim, result, { consumer, accepts });
        end = acked.acked ? 'done' : 'stale';
        next = acked.next;
      } else if (outcome.kind === 'result') {
        result = outcome.result;
        end = (await queue.ack(claim, result)) ? 'done' : 'stale';
      } else {
        end = await queue.fail(claim, outcome.error);
        if (end === 'dead' || end === 'cancelled') result = (await queue.getResult(claim.task.id)) ?? undefined;
      }
    } catch (error) {
      // The queue is unreachable: the lease will lapse and the task run again elsewhere.
      this.log?.(`worker ${consumer}: could not report task ${claim.task.id} (${(error as Error).message})`);
      end = 'stale';
    }
    if (end === 'stale') this.log?.(`worker ${consumer}: lease on ${claim.task.id} was lost; its result was discarded`);
    this.emit('taskEnd', claim.task, end, result);
    return { end, next };
  }

  /** A task this worker must not run: dead-lettered at once with the reason, for every worker. */
  private async refuse(claim: Claim, consumer: string, error: TaskError): Promise<TaskEnd> {
    this.log?.(`worker ${consumer}: refused task ${claim.task.id} (${claim.task.kind}): ${error.code}: ${error.message}`);
    this.emit('taskStart', claim.task);
    let end: TaskEnd;
    let result: Result | undefined;
    try {
      end = await this.queue.fail(claim, { ...error, retryable: false });
      if (end === 'dead' || end === 'cancelled') result = (await this.queue.getResult(claim.task.id)) ?? undefined;
    } catch (failure) {
      this.log?.(`worker ${consumer}: could not report task ${claim.task.id} (${(failure as Error).message})`);
      end = 'stale';
    }
    this.emit('taskEnd', claim.task, end, result);
    return end;
  }

  /** A cancel request for a lease one of our runs holds (the event names the lease). */
  private onQueueEvent(event: TaskEvent): void {
    if (event.type !== 'cancel' || !event.workerId.startsWith(`${this.ownerId}/`)) return;
    const entry = this.running.get(event.leaseId);
    if (entry) {
      entry.controller.abort('cancelled' satisfies AbortReason);
      return;
    }
    // The claim is on its way to its run: remember the request until the run registers it.
    const now = Date.now();
    for (const [leaseId, at] of this.earlyCancels) if (now - at > EARLY_CANCEL_TTL_MS) this.earlyCancels.delete(leaseId);
    this.earlyCancels.set(event.leaseId, now);
  }
}
