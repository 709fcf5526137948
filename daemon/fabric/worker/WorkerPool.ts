/**
 * A pool of worker slots that claim capability-matched tasks from a queue and run them,
 * in this process or in one-shot child processes. The queue only hands out tasks some
 * handler here can run, so a pool never claims work only to put it back.
 *
 * The pool listens to the queue, not to its callers: a cancel requested through the queue
 * from any process reaches the slot holding the lease, and a lease the queue says is lost
 * stops the run at once, so a redelivered task never runs twice at the same time.
 */
import { EventEmitter } from 'node:events';
import type { WorkerPoolStatus } from '../../../shared/protocol';
import type { Result, Task } from '../../../shared/task';
import type { Claim, FailOutcome, TaskEvent, TaskQueue } from '../queue/TaskQueue';
import type { HandlerRegistry } from './HandlerRegistry';
import { type ChildScope, type ExitReason, runOneShot } from './oneShot';
import { runTask, type TaskOutcome } from './runTask';

export interface WorkerPoolOptions {
  queue: TaskQueue;
  registry: HandlerRegistry;
  caps: readonly string[];
  concurrency: number;
  mode: 'in-process' | 'one-shot';
  /** Name of this pool in leases and results. */
  id?: string;
  /** Script that runs one-shot children (see runOneShotChild); default: this process's script. */
  oneShotEntry?: string;
  /**
   * The resolved configuration one-shot children build their handlers from (plugins,
   * sandbox executor); required in one-shot mode.
   */
  config?: unknown;
  /** Resources of each one-shot child (its sandboxes), released after it exits. */
  childScope?: () => ChildScope;
  /** Extra environment for one-shot children. */
  childEnv?: Record<string, string>;
  /** Stop by itself after this long with nothing to do (WORKER_IDLE_EXIT). */
  exitAfterIdleMs?: number;
  claimBlockMs?: number;
  log?: (line: string) => void;
}

/** `stale`: the lease was lost (or the queue unreachable), so nothing was reported. */
export type TaskEnd = FailOutcome | 'done' | 'released';

/** Why a run's signal was aborted; one-shot exit reasons use the same words. */
type AbortReason = 'cancelled' | 'shutdown' | 'lease_lost';

interface Running {
  claim: Claim;
  controller: AbortController;
}

/**
 * How long a cancel for a lease not (yet) running here is remembered. Lease ids never repeat,
 * so a late entry harms nothing; the bound only keeps the map small.
 */
const EARLY_CANCEL_TTL_MS = 10 * 60_000;

export interface WorkerPoolEvents {
  taskStart: [task: Task];
  taskEnd: [task: Task, end: TaskEnd, result: Result | undefined];
  idleExit: [];
}

export class WorkerPool extends EventEmitter<WorkerPoolEvents> {
  readonly id: string;
  /** One-shot exit reasons so far, by reason. */
  readonly exitReasons: Partial<Record<ExitReason, number>> = {};
  private readonly stopClaiming = new AbortController();
  /** By lease id: a stale delivery and its redelivery may briefly run side by side here. */
  private readonly running = new Map<string, Running>();
  /** Cancels addressed to a lease of this pool that no slot has registered yet, by lease id. */
  private readonly earlyCancels = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;
  private slots: Promise<void>[] = [];
  private lastBusyAt = Date.now();
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: WorkerPoolOptions) {
    super();
    this.id = options.id ?? `worker-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new Error(`concurrency must be a whole number of at least 1 (got ${options.concurrency})`);
    }
    if (options.mode === 'one-shot' && !options.config) {
      throw new Error('one-shot mode needs `config`: the configuration its child processes run with');
    }
  }

  /** The task kinds this pool will claim, given its capabilities. */
  get kinds(): string[] {
    return this.options.registry.acceptorsFor(this.options.caps).map((acceptor) => acceptor.kind);
  }

  start(): this {
    const accepts = this.options.registry.acceptorsFor(this.options.caps);
    if (accepts.length === 0) {
      this.options.log?.(`worker ${this.id}: no handler fits caps [${this.options.caps.join(', ')}]; it will claim nothing`);
    }
    this.unsubscribe = this.options.queue.subscribe((event) => this.onQueueEvent(event));
    for (let slot = 0; slot < this.options.concurrency; slot++) this.slots.push(this.runSlot(slot));
    return this;
  }

  status(): WorkerPoolStatus {
    return {
      count: this.options.concurrency,
      busy: this.running.size,
      caps: [...this.options.caps],
      mode: this.options.mode,
    };
  }

  /**
   * Stops claiming. With `drain`, running tasks finish; without it they are stopped and
   * handed back to the queue untouched, to run again elsewhere.
   */
  stop({ drain }: { drain: boolean }): Promise<void> {
    this.stopping ??= (async () => {
      this.stopClaiming.abort();
      if (!drain) this.abortAll('shutdown');
      await Promise.all(this.slots);
      this.unsubscribe?.();
    })();
    if (!drain) this.abortAll('shutdown');
    return this.stopping;
  }

  private abortAll(reason: AbortReason): void {
    for (const entry of this.running.values()) entry.controller.abort(reason);
  }

  /** A cancel request for a lease one of our slots holds (the event names the lease). */
  private onQueueEvent(event: TaskEvent): void {
    if (event.type !== 'cancel' || !event.workerId.startsWith(`${this.id}/`)) return;
    const entry = this.running.get(event.leaseId);
    if (entry) {
      entry.controller.abort('cancelled' satisfies AbortReason);
      return;
    }
    // The claim is on its way to its slot: remember the request until the slot registers it.
    const now = Date.now();
    for (const [leaseId, at] of this.earlyCancels) if (now - at > EARLY_CANCEL_TTL_MS) this.earlyCancels.delete(leaseId);
    this.earlyCancels.set(event.leaseId, now);
  }

  private async runSlot(slot: number): Promise<void> {
    const consumer = `${this.id}/${slot}`;
    const accepts = this.options.registry.acceptorsFor(this.options.caps);
    while (!this.stopClaiming.signal.aborted) {
      let claim: Claim | null;
      try {
        claim = await this.options.queue.claim({
          consumer,
          accepts,
          blockMs: this.options.claimBlockMs ?? 1_000,
          signal: this.stopClaiming.signal,
        });
      } catch (error) {
        if (this.stopClaiming.signal.aborted) break;
        this.options.log?.(`worker ${consumer}: claim failed (${(error as Error).message}); retrying in 1 s`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      if (!claim) {
        this.checkIdle();
        continue;
      }
      await this.runClaim(claim, consumer);
      this.lastBusyAt = Date.now();
    }
  }

  private async runClaim(claim: Claim, consumer: string): Promise<void> {
    const { queue } = this.options;
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
        this.options.log?.(`worker ${consumer}: lease on ${claim.task.id} was lost; stopping its run`);
        controller.abort('lease_lost' satisfies AbortReason);
      }
    };
    const heartbeat = setInterval(() => void renew(), leaseMs / 3);
    let outcome: TaskOutcome;
    try {
      outcome = await this.execute(claim.task, consumer, controller.signal);
    } catch (error) {
      // The run could not even be attempted (a child that cannot be spawned, ENOMEM): a
      // retryable failure, bounded by max attempts, and this slot goes on claiming.
      const message = error instanceof Error ? error.message : String(error);
      this.options.log?.(`worker ${consumer}: could not run task ${claim.task.id} (${message})`);
      outcome = { kind: 'retry', error: { code: 'worker_error', message: `the worker could not run the task: ${message}`, retryable: true } };
    } finally {
      clearInterval(heartbeat);
      this.running.delete(claim.leaseId);
    }

    const aborted = controller.signal.reason as AbortReason | undefined;
    let end: TaskEnd;
    let result: Result | undefined;
    try {
      if (aborted === 'lease_lost') {
        // Another delivery owns the task now; ack and fail would refuse this one anyway.
        end = 'stale';
      } else if (aborted === 'shutdown') {
        end = (await queue.release(claim)) ? 'released' : 'stale';
      } else if (outcome.kind === 'result') {
        result = outcome.result;
        end = (await queue.ack(claim, result)) ? 'done' : 'stale';
      } else {
        end = await queue.fail(claim, outcome.error);
        if (end === 'dead' || end === 'cancelled') result = (await queue.getResult(claim.task.id)) ?? undefined;
      }
    } catch (error) {
      // The queue is unreachable: the lease will lapse and the task run again elsewhere.
      this.options.log?.(`worker ${consumer}: could not report task ${claim.task.id} (${(error as Error).message})`);
      end = 'stale';
    }
    if (end === 'stale') this.options.log?.(`worker ${consumer}: lease on ${claim.task.id} was lost; its result was discarded`);
    this.emit('taskEnd', claim.task, end, result);
  }

  private async execute(task: Task, consumer: string, signal: AbortSignal): Promise<TaskOutcome> {
    if (this.options.mode === 'in-process') {
      return runTask(task, this.options.registry, consumer, signal, this.options.log);
    }
    const entry = this.options.oneShotEntry ?? process.argv[1];
    if (!entry) throw new Error('one-shot mode needs the path of the script that runs one-shot children');
    const { outcome, exitReason } = await runOneShot(task, {
      entry,
      config: this.options.config,
      env: this.options.childEnv ?? {},
      ...(this.options.childScope && { childScope: this.options.childScope }),
      workerId: consumer,
      signal,
      ...(this.options.log && { onLog: this.options.log }),
    });
    this.exitReasons[exitReason] = (this.exitReasons[exitReason] ?? 0) + 1;
    this.options.log?.(`worker ${consumer}: one-shot process for ${task.id} exited (${exitReason})`);
    return outcome;
  }

  private checkIdle(): void {
    const limit = this.options.exitAfterIdleMs;
    if (limit === undefined || this.running.size > 0) return;
    if (Date.now() - this.lastBusyAt >= limit && !this.stopClaiming.signal.aborted) {
      this.options.log?.(`worker ${this.id}: idle for ${limit} ms, exiting`);
      this.stopClaiming.abort();
      this.emit('idleExit');
    }
  }
}
