/**
 * The warm spawner: keeps one-shot worker processes ready ahead of their tasks, each with its
 * handlers loaded and its sandbox made, so a claimed task starts without a fork or a sandbox
 * build on its path. It follows the queue: while there is work it keeps
 *
 *   desired = min(maxWorkers, running + pending + warmPool)
 *
 * processes (pending: tasks waiting in requirement sets this worker can serve; running: the
 * tasks its processes run now), and after `exitAfterIdleMs` with nothing pending or running
 * it retires every process (scale to zero) and waits, claiming nothing, for a `queued` event
 * (or a slow re-check) to come back. The spawner process itself holds no sandbox.
 *
 * Each ready process claims for itself, so a task is only ever claimed when a ready process
 * waits for it. The spawner keeps the claim, the lease and its heartbeat (ClaimRunner); the
 * process runs the one task, answers and exits. Every exit is counted by reason.
 */
import { EventEmitter } from 'node:events';
import type { Result, Task } from '../../../shared/task';
import { type Acceptor, canAccept, type Claim, type QueueAdmin, type TaskEvent, type WorkerQueue } from '../queue/TaskQueue';
import { ClaimRunner, type TaskEnd } from './ClaimRunner';
import type { HandlerRegistry } from './HandlerRegistry';
import type { TaskGate } from './taskAdmission';
import { type ChildReport, type ChildScope, type ExitReason, isExitReason, type OneShotEnd, OneShotProcess } from './oneShot';

export interface WarmSpawnerOptions {
  /** Children claim through it; the spawner itself watches events and depth to scale. */
  queue: WorkerQueue & Pick<QueueAdmin, 'depth'>;
  /** The handlers children offer (only their acceptors are used here: nothing runs in this process). */
  registry: HandlerRegistry;
  caps: readonly string[];
  /** Processes kept ready beyond the work in sight, while active. At least 1. */
  warmPool: number;
  /** Processes at most, ready and running together. At least `warmPool`. */
  maxWorkers: number;
  /** Scale to zero after this long with nothing pending or running. */
  exitAfterIdleMs: number;
  /** The script that runs one-shot children (see runOneShotChild). */
  entry: string;
  execPath?: string;
  /** The resolved configuration children build their handlers from. */
  config: unknown;
  /** Resources of each child (its sandboxes, the prepared one too), released after it exits. */
  childScope?: () => ChildScope;
  /** Receives what each child reports beside its outcome. */
  childReport?: ChildReport;
  childEnv?: Record<string, string>;
  /** Which claimed tasks may run at all (taskAdmission.ts); a refused one is dead-lettered unrun. */
  gate?: TaskGate;
  /** Name of this spawner in leases and results. */
  id?: string;
  /** How long one claim call waits (children claim again until they get a task). */
  claimBlockMs?: number;
  /** The slow safety re-check of the queue's depth (work that arrived without an event). */
  recheckMs?: number;
  /** Queued events closer than this are handled once. */
  debounceMs?: number;
  /** First back-off after a child failed before it was ready; doubled per failure in a row, to 30 s. */
  setupRetryMs?: number;
  log?: (line: string) => void;
}

export interface WarmSpawnerStatus {
  id: string;
  caps: string[];
  kinds: string[];
  warmPool: number;
  maxWorkers: number;
  exitAfterIdleMs: number;
  /** Live worker processes: starting + ready + running. 0 when scaled to zero. */
  processes: number;
  starting: number;
  ready: number;
  running: number;
  scaledToZero: boolean;
  /** Tasks pending for this spawner when it last looked. */
  pending: number;
  /** Pids of the live worker processes. */
  pids: number[];
}

/** What `stop` answers: how every worker process ended. */
export interface WarmSpawnerStopRecord {
  id: string;
  exitReasons: Partial<Record<ExitReason, number>>;
  tasks: Partial<Record<TaskEnd, number>>;
  /** Times the spawner went to zero processes. */
  scaledToZero: number;
}

export interface WarmSpawnerEvents {
  taskStart: [task: Task];
  taskEnd: [task: Task, end: TaskEnd, result: Result | undefined];
  /** A worker process was started. */
  spawn: [];
  /** A worker process said it is ready. */
  ready: [pid: number];
  /** A worker process ended (its scope released). */
  exit: [pid: number | undefined, reason: ExitReason];
  scaledToZero: [];
  scaledUp: [];
}

const MAX_SETUP_RETRY_MS = 30_000;

interface Worker {
  process: OneShotProcess;
  slot: number;
  /** Aborted to stop this worker claiming (scale-down, stop); the reason is its exit reason. */
  claiming: AbortController;
  running: boolean;
  /** Got as far as ready (a later death is not a failure to set up). */
  wasReady: boolean;
}

export class WarmSpawner extends EventEmitter<WarmSpawnerEvents> {
  readonly id: string;
  /** Worker process exits so far, by reason. */
  readonly exitReasons: Partial<Record<ExitReason, number>> = {};
  private readonly tasks: Partial<Record<TaskEnd, number>> = {};
  private readonly accepts: Acceptor[];
  private readonly workers = new Set<Worker>();
  private readonly loops = new Set<Promise<void>>();
  private runner: ClaimRunner | undefined;
  private unsubscribe: (() => void) | undefined;
  private active = true;
  private stopped = false;
  private stopping: Promise<WarmSpawnerStopRecord> | undefined;
  private scaleDowns = 0;
  private lastPending = 0;
  private nextSlot = 0;
  private failuresInARow = 0;
  private retryAt = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private debounceTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private recheckTimer: NodeJS.Timeout | undefined;
  private reconciling = false;
  private reconcileAgain = false;

  constructor(private readonly options: WarmSpawnerOptions) {
    super();
    this.id = options.id ?? `spawner-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
    const whole = (value: number, name: string, min: number): void => {
      if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number of at least ${min} (got ${value})`);
    };
    whole(options.warmPool, 'warmPool', 1);
    whole(options.maxWorkers, 'maxWorkers', 1);
    whole(options.exitAfterIdleMs, 'exitAfterIdleMs', 1);
    if (options.maxWorkers < options.warmPool) {
      throw new Error(`maxWorkers (${options.maxWorkers}) must be at least warmPool (${options.warmPool})`);
    }
    this.accepts = options.registry.acceptorsFor(options.caps);
  }

  get kinds(): string[] {
    return this.accepts.map((acceptor) => acceptor.kind);
  }

  /** What its children claim: each kind with the capabilities its handler provides. */
  get acceptors(): Acceptor[] {
    return this.accepts.map((acceptor) => ({ kind: acceptor.kind, provides: [...acceptor.provides] }));
  }

  start(): this {
    if (this.accepts.length === 0) {
      this.options.log?.(`spawner ${this.id}: no handler fits caps [${this.options.caps.join(', ')}]; it will claim nothing`);
    }
    this.runner = new ClaimRunner(this.options.queue, this.id, this.options.log, this.options.gate);
    this.runner.on('taskStart', (task) => this.emit('taskStart', task));
    this.runner.on('taskEnd', (task, end, result) => {
      this.tasks[end] = (this.tasks[end] ?? 0) + 1;
      this.emit('taskEnd', task, end, result);
    });
    this.unsubscribe = this.options.queue.subscribe((event) => this.onQueueEvent(event));
    this.recheckTimer = setInterval(() => this.requestReconcile(), this.options.recheckMs ?? 5_000);
    this.markBusy();
    this.requestReconcile(0);
    return this;
  }

  status(): WarmSpawnerStatus {
    const workers = [...this.workers];
    const phase = (worker: Worker): string => (worker.running ? 'running' : worker.process.phase);
    return {
      id: this.id,
      caps: [...this.options.caps],
      kinds: this.kinds,
      warmPool: this.options.warmPool,
      maxWorkers: this.options.maxWorkers,
      exitAfterIdleMs: this.options.exitAfterIdleMs,
      processes: workers.length,
      starting: workers.filter((worker) => phase(worker) === 'starting').length,
      ready: workers.filter((worker) => phase(worker) === 'ready').length,
      running: workers.filter((worker) => worker.running).length,
      scaledToZero: !this.active,
      pending: this.lastPending,
      pids: workers.flatMap((worker) => (worker.process.pid !== undefined ? [worker.process.pid] : [])),
    };
  }

  /**
   * Retires every waiting process (reason `shutdown`) and stops claiming. With `drain`,
   * running tasks finish; without it they are stopped and handed back to the queue.
   */
  stop({ drain }: { drain: boolean }): Promise<WarmSpawnerStopRecord> {
    this.stopping ??= (async () => {
      this.stopped = true;
      for (const timer of [this.idleTimer, this.debounceTimer, this.retryTimer]) clearTimeout(timer);
      clearInterval(this.recheckTimer);
      for (const worker of this.workers) if (!worker.running) this.retire(worker, 'shutdown');
      if (!drain) this.runner?.abortAll('shutdown');
      while (this.loops.size > 0) await Promise.all(this.loops);
      this.runner?.close();
      this.unsubscribe?.();
      return { id: this.id, exitReasons: { ...this.exitReasons }, tasks: { ...this.tasks }, scaledToZero: this.scaleDowns };
    })();
    if (!drain) this.runner?.abortAll('shutdown');
    return this.stopping;
  }

  private onQueueEvent(event: TaskEvent): void {
    if (event.type === 'state' && event.state === 'queued' && this.kinds.includes(event.kind)) this.requestReconcile();
  }

  /** Something may have changed; look again soon, once for a burst of events. */
  private requestReconcile(delayMs = this.options.debounceMs ?? 25): void {
    if (this.stopped || this.debounceTimer) return;
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = undefined;
      void this.reconcile();
    }, delayMs);
  }

  private async reconcile(): Promise<void> {
    if (this.reconciling) {
      this.reconcileAgain = true;
      return;
    }
    this.reconciling = true;
    try {
      do {
        this.reconcileAgain = false;
        await this.reconcileOnce();
      } while (this.reconcileAgain && !this.stopped);
    } finally {
      this.reconciling = false;
    }
  }

  private async reconcileOnce(): Promise<void> {
    // Counted before the depth is read: a task claimed in between is then in neither count
    // (one process too few for a moment), never in both (one too many).
    const running = this.runner?.busy ?? 0;
    let pending: number;
    try {
      pending = (await this.options.queue.depth())
        .filter((set) => canAccept(set, this.accepts))
        .reduce((sum, set) => sum + set.pending, 0);
    } catch (error) {
      this.options.log?.(`spawner ${this.id}: could not read the queue's depth (${(error as Error).message})`);
      return;
    }
    if (this.stopped) return;
    this.lastPending = pending;
    if (pending > 0 || running > 0) {
      this.markBusy();
      if (!this.active) {
        this.active = true;
        this.options.log?.(`spawner ${this.id}: work arrived (${pending} pending); scaling up`);
        this.emit('scaledUp');
      }
    }
    if (!this.active) return;
    const desired = Math.min(this.options.maxWorkers, running + pending + this.options.warmPool);
    const now = Date.now();
    if (now < this.retryAt) {
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = undefined;
        this.requestReconcile(0);
      }, this.retryAt - now);
    } else {
      while (this.workers.size < desired) this.spawn();
    }
    // Fewer needed (other workers took the tasks): retire the waiting ones beyond it.
    let excess = this.workers.size - desired;
    for (const worker of this.workers) {
      if (excess <= 0) break;
      if (!worker.running && !worker.claiming.signal.aborted) {
        this.retire(worker, 'idle');
        excess--;
      }
    }
  }

  private spawn(): void {
    if (this.workers.size >= this.options.maxWorkers) return;
    const slot = this.nextSlot++;
    const worker: Worker = {
      slot,
      claiming: new AbortController(),
      running: false,
      wasReady: false,
      process: new OneShotProcess({
        entry: this.options.entry,
        ...(this.options.execPath && { execPath: this.options.execPath }),
        env: this.options.childEnv ?? {},
        label: `${this.id}/${slot}`,
        ...(this.options.childScope && { childScope: this.options.childScope }),
        ...(this.options.childReport && { childReport: this.options.childReport }),
        ...(this.options.log && { onLog: this.options.log }),
      }),
    };
    this.workers.add(worker);
    this.emit('spawn');
    const loop = this.serve(worker).finally(() => this.loops.delete(loop));
    this.loops.add(loop);
  }

  /** Stops a worker that has no task: its claim is withdrawn and its process killed. */
  private retire(worker: Worker, reason: ExitReason): void {
    if (worker.claiming.signal.aborted) return;
    worker.claiming.abort(reason);
    // A process still setting up is killed now; a ready one once its claim is withdrawn.
    if (worker.process.phase === 'starting') worker.process.kill(reason);
  }

  /** One worker process from fork to exit: warm up, claim one task, run it. */
  private async serve(worker: Worker): Promise<void> {
    const consumer = `${this.id}/${worker.slot}`;
    let claim: Claim | null = null;
    let end: OneShotEnd | undefined;
    if (await worker.process.warm(this.options.config)) {
      this.failuresInARow = 0;
      worker.wasReady = true;
      if (worker.process.pid !== undefined) this.emit('ready', worker.process.pid);
      claim = await this.claimFor(worker, consumer);
    }
    if (claim && (worker.process.gone.aborted || this.stopped)) {
      // Died (or the spawner stopped) between the claim and the task: it goes back untouched.
      await this.options.queue.release(claim).catch(() => false);
      claim = null;
    }
    if (claim) {
      worker.running = true;
      this.markBusy();
      // A ready process was used: make its replacement now, not after the task.
      this.requestReconcile();
      let handedOver = false;
      await this.runner?.run(claim, consumer, async (task, signal) => {
        handedOver = true;
        end = await worker.process.run(task, { workerId: consumer, config: this.options.config, signal });
        return end.outcome;
      });
      // The task was refused before it reached the process (see taskAdmission.ts): the
      // process has nothing to run and goes like a cancelled one.
      if (!handedOver) worker.process.kill('cancelled');
    } else {
      worker.process.kill(isExitReason(worker.claiming.signal.reason) ? worker.claiming.signal.reason : 'idle');
    }
    const reason = end?.exitReason ?? (await worker.process.exited);
    this.exitReasons[reason] = (this.exitReasons[reason] ?? 0) + 1;
    this.workers.delete(worker);
    if (!worker.wasReady && !worker.claiming.signal.aborted) this.backOff(reason);
    this.options.log?.(`spawner ${consumer}: worker process ${worker.process.pid ?? '(none)'} exited (${reason})`);
    this.emit('exit', worker.process.pid, reason);
    if (claim) this.markBusy();
    this.requestReconcile();
  }

  /** Claims until a task comes, the worker is retired, or its process dies waiting. */
  private async claimFor(worker: Worker, consumer: string): Promise<Claim | null> {
    const signal = AbortSignal.any([worker.claiming.signal, worker.process.gone]);
    while (!signal.aborted) {
      try {
        const claim = await this.options.queue.claim({ consumer, accepts: this.accepts, blockMs: this.options.claimBlockMs ?? 1_000, signal });
        if (claim) return claim;
      } catch (error) {
        if (signal.aborted) break;
        this.options.log?.(`spawner ${consumer}: claim failed (${(error as Error).message}); retrying in 1 s`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
    return null;
  }

  /** A process failed before it was ready: wait before making the next, longer each time. */
  private backOff(reason: ExitReason): void {
    this.failuresInARow++;
    const waitMs = Math.min(MAX_SETUP_RETRY_MS, (this.options.setupRetryMs ?? 1_000) * 2 ** (this.failuresInARow - 1));
    this.retryAt = Date.now() + waitMs;
    this.options.log?.(`spawner ${this.id}: a worker process ended before it was ready (${reason}); next one in ${waitMs} ms`);
  }

  /** Work is in sight: the idle clock starts again. */
  private markBusy(): void {
    if (this.stopped) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.checkIdle(), this.options.exitAfterIdleMs);
  }

  private async checkIdle(): Promise<void> {
    if (this.stopped || !this.active) return;
    if ((this.runner?.busy ?? 0) > 0) return this.markBusy();
    let pending = 0;
    try {
      pending = (await this.options.queue.depth()).filter((set) => canAccept(set, this.accepts)).reduce((sum, set) => sum + set.pending, 0);
    } catch {
      // Unknown: treat as idle; the re-check brings the workers back when the queue answers.
    }
    if (this.stopped) return;
    if (pending > 0 || (this.runner?.busy ?? 0) > 0) return this.markBusy();
    this.active = false;
    this.scaleDowns++;
    this.options.log?.(`spawner ${this.id}: idle for ${this.options.exitAfterIdleMs} ms; scaling to zero`);
    for (const worker of this.workers) if (!worker.running) this.retire(worker, 'idle');
    this.emit('scaledToZero');
  }
}

