/**
 * A pool of worker slots that claim capability-matched tasks from a queue and run them,
 * in this process or in one-shot child processes. The queue only hands out tasks some
 * handler here can run, so a pool never claims work only to put it back.
 */
import { EventEmitter } from 'node:events';
import type { WorkerPoolStatus } from '../../../shared/protocol';
import type { Result, Task } from '../../../shared/task';
import type { Claim, FailOutcome, TaskQueue } from '../queue/TaskQueue';
import type { HandlerRegistry } from './HandlerRegistry';
import { type ExitReason, runOneShot } from './oneShot';
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
  plugins?: readonly string[];
  /** Extra environment for one-shot children (e.g. which executor to use). */
  childEnv?: Record<string, string>;
  /** Stop by itself after this long with nothing to do (WORKER_IDLE_EXIT). */
  exitAfterIdleMs?: number;
  claimBlockMs?: number;
  log?: (line: string) => void;
}

export type TaskEnd = FailOutcome | 'done' | 'released';

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
  private readonly running = new Map<string, { controller: AbortController; task: Task }>();
  private slots: Promise<void>[] = [];
  private lastBusyAt = Date.now();
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: WorkerPoolOptions) {
    super();
    this.id = options.id ?? `worker-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new Error(`concurrency must be a whole number of at least 1 (got ${options.concurrency})`);
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

  /** Aborts a running task of this pool; false when it is not running here. */
  cancel(taskId: string): boolean {
    const entry = this.running.get(taskId);
    if (!entry) return false;
    entry.controller.abort('cancelled');
    return true;
  }

  /**
   * Stops claiming. With `drain`, running tasks finish; without it they are stopped and
   * handed back to the queue untouched, to run again elsewhere.
   */
  stop({ drain }: { drain: boolean }): Promise<void> {
    this.stopping ??= (async () => {
      this.stopClaiming.abort();
      if (!drain) for (const entry of this.running.values()) entry.controller.abort('shutdown');
      await Promise.all(this.slots);
    })();
    if (!drain) for (const entry of this.running.values()) entry.controller.abort('shutdown');
    return this.stopping;
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
    this.running.set(claim.task.id, { controller, task: claim.task });
    this.emit('taskStart', claim.task);
    // Renew the lease well before it lapses so that only a dead worker loses its task.
    const leaseMs = Math.max(30, claim.leaseUntil - Date.now());
    const heartbeat = setInterval(() => void queue.extendLease(claim).catch(() => {}), leaseMs / 3);
    let outcome: TaskOutcome;
    try {
      outcome = await this.execute(claim.task, consumer, controller.signal);
    } finally {
      clearInterval(heartbeat);
      this.running.delete(claim.task.id);
    }

    let end: TaskEnd;
    let result: Result | undefined;
    try {
      if (controller.signal.reason === 'shutdown') {
        end = (await queue.release(claim)) ? 'released' : 'stale';
      } else if (outcome.kind === 'result') {
        result = outcome.result;
        end = (await queue.ack(claim, result)) ? 'done' : 'stale';
      } else {
        end = await queue.fail(claim, outcome.error);
        if (end === 'dead') result = (await queue.getResult(claim.task.id)) ?? undefined;
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
      plugins: this.options.plugins ?? [],
      env: this.options.childEnv ?? {},
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
