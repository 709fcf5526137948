/**
 * A pool of worker slots that claim capability-matched tasks from a queue and run them,
 * in this process or in one-shot child processes. The queue only hands out tasks some
 * handler here can run, so a pool never claims work only to put it back.
 *
 * The pool listens to the queue, not to its callers: a cancel requested through the queue
 * from any process reaches the slot holding the lease, and a lease the queue says is lost
 * stops the run at once, so a redelivered task never runs twice at the same time.
 */
import { EventEmitter, setMaxListeners } from 'node:events';
import type { WorkerPoolStatus } from '../../../shared/protocol';
import type { Result, Task } from '../../../shared/task';
import type { Acceptor, Claim, WorkerQueue } from '../queue/TaskQueue';
import { ClaimRunner, type TaskEnd } from './ClaimRunner';
import type { HandlerRegistry } from './HandlerRegistry';
import { type ChildReport, type ChildScope, type ExitReason, runOneShot } from './oneShot';
import { runTask, type TaskOutcome, type TaskTracer } from './runTask';
import type { TaskGate } from './taskAdmission';

export type { TaskEnd } from './ClaimRunner';

export interface WorkerPoolOptions {
  queue: WorkerQueue;
  registry: HandlerRegistry;
  caps: readonly string[];
  concurrency: number;
  mode: 'in-process' | 'one-shot';
  /**
   * Task kinds this pool leaves to other workers although its handlers serve them. An evolve
   * run's own process on a shared queue serves its mutate tasks and leaves evaluations to the
   * workers there.
   */
  excludeKinds?: readonly string[];
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
  /** Watches each task run in this process (observability's span per task). */
  tracer?: TaskTracer;
  /** Receives what each one-shot child reports beside its outcome. */
  childReport?: ChildReport;
  /** Which claimed tasks may run at all (taskAdmission.ts); a refused one is dead-lettered unrun. */
  gate?: TaskGate;
}

export interface WorkerPoolEvents {
  taskStart: [task: Task];
  taskEnd: [task: Task, end: TaskEnd, result: Result | undefined];
  idleExit: [];
  /** One-shot mode: a task's process was started, and it ended. */
  spawn: [];
  exit: [pid: number | undefined, reason: ExitReason];
}

export class WorkerPool extends EventEmitter<WorkerPoolEvents> {
  readonly id: string;
  /** One-shot exit reasons so far, by reason. */
  readonly exitReasons: Partial<Record<ExitReason, number>> = {};
  private readonly stopClaiming = new AbortController();
  private runner: ClaimRunner | undefined;
  private slots: Promise<void>[] = [];
  private lastBusyAt = Date.now();
  /** Settles when the slot claiming now is done: the next free slot's turn (claimInTurn). */
  private claimTurn: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;
  /** Kinds left to other workers (options.excludeKinds, until takeOver). */
  private readonly excluded: Set<string>;
  private concurrency: number;
  /** What the slots claim: computed at start and on takeOver, not per claim. */
  private claiming: Acceptor[] = [];

  constructor(private readonly options: WorkerPoolOptions) {
    super();
    this.excluded = new Set(options.excludeKinds ?? []);
    this.concurrency = options.concurrency;
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
    return this.accepts().map((acceptor) => acceptor.kind);
  }

  /** What this pool claims: each kind with the capabilities its handler provides here. */
  get acceptors(): Acceptor[] {
    return this.accepts();
  }

  private accepts(): Acceptor[] {
    const all = this.options.registry.acceptorsFor(this.options.caps);
    return all.filter((acceptor) => !this.excluded.has(acceptor.kind));
  }

  /** The kinds this pool's handlers serve that it leaves to other workers now. */
  get leftToOthers(): string[] {
    return [...this.excluded];
  }

  /**
   * From now on, claims `kinds` too, although they were left to other workers (those left for
   * good), with `concurrency` slots in all when that is more than it has. Slots waiting in a
   * claim take the new kinds with their next claim (within claimBlockMs).
   */
  takeOver(kinds: readonly string[], concurrency: number): void {
    if (this.stopClaiming.signal.aborted) return;
    for (const kind of kinds) this.excluded.delete(kind);
    this.claiming = this.accepts();
    if (concurrency <= this.concurrency) return;
    const from = this.concurrency;
    this.concurrency = concurrency;
    // A pool not started yet starts them all.
    if (!this.runner) return;
    setMaxListeners(concurrency + 1, this.stopClaiming.signal);
    for (let slot = from; slot < concurrency; slot++) this.slots.push(this.runSlot(slot));
  }

  start(): this {
    const accepts = (this.claiming = this.accepts());
    if (accepts.length === 0) {
      this.options.log?.(`worker ${this.id}: no handler fits caps [${this.options.caps.join(', ')}]; it will claim nothing`);
    }
    this.runner = new ClaimRunner(this.options.queue, this.id, this.options.log, this.options.gate);
    this.runner.on('taskStart', (task) => this.emit('taskStart', task));
    this.runner.on('taskEnd', (task, end, result) => this.emit('taskEnd', task, end, result));
    // Every slot waiting for a task listens to stopClaiming: an evolve run with 4 workers has
    // 12 slots, and Node's default limit of 10 listeners would warn of a leak that is not one.
    setMaxListeners(this.concurrency + 1, this.stopClaiming.signal);
    for (let slot = 0; slot < this.concurrency; slot++) this.slots.push(this.runSlot(slot));
    return this;
  }

  status(): WorkerPoolStatus {
    return {
      count: this.concurrency,
      busy: this.runner?.busy ?? 0,
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
      if (!drain) this.runner?.abortAll('shutdown');
      await Promise.all(this.slots);
      this.runner?.close();
    })();
    if (!drain) this.runner?.abortAll('shutdown');
    return this.stopping;
  }

  private async runSlot(slot: number): Promise<void> {
    const consumer = `${this.id}/${slot}`;
    // The task leased with the last ack: a slot working through a backlog claims nothing.
    let next: Claim | null = null;
    while (!this.stopClaiming.signal.aborted) {
      let claim: Claim | null = next;
      next = null;
      if (!claim) {
        try {
          claim = await this.claimInTurn(consumer, this.claiming);
        } catch (error) {
          if (this.stopClaiming.signal.aborted) break;
          this.options.log?.(`worker ${consumer}: claim failed (${(error as Error).message}); retrying in 1 s`);
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          continue;
        }
      }
      if (!claim) {
        this.checkIdle();
        continue;
      }
      // Asked as the task ends: a pool told to stop meanwhile leases nothing more.
      const leaseNext = (): Acceptor[] | undefined => (this.stopClaiming.signal.aborted ? undefined : this.claiming);
      const ended: { next: Claim | null } | undefined = await this.runner?.runThenLease(claim, consumer, (task, signal) => this.execute(task, consumer, signal), leaseNext);
      next = ended?.next ?? null;
      this.lastBusyAt = Date.now();
    }
    // Leased with the last ack while the pool was stopping: handed back, its attempts unchanged.
    if (next) await this.options.queue.release(next).catch(() => false);
  }

  /**
   * One free slot of the pool waits on the queue at a time; the others wait here for their
   * turn, so an idle pool costs any queue one waiting claim, not one per slot (a pool of 64
   * idle slots made 64 claims for each task before the Redis adapter coalesced its claims, and
   * a queue without that still would). A burst is then claimed one task after the other, each
   * claim a round trip; the Redis adapter's batched claims (one call leasing a task to each
   * waiting claim) serve several pools of one process, not the slots of one pool.
   */
  private async claimInTurn(consumer: string, accepts: Acceptor[]): Promise<Claim | null> {
    const previous = this.claimTurn;
    let release!: () => void;
    this.claimTurn = new Promise<void>((resolve) => (release = resolve));
    try {
      await previous;
      if (this.stopClaiming.signal.aborted) return null;
      return await this.options.queue.claim({ consumer, accepts, blockMs: this.options.claimBlockMs ?? 1_000, signal: this.stopClaiming.signal });
    } finally {
      release();
    }
  }

  private async execute(task: Task, consumer: string, signal: AbortSignal): Promise<TaskOutcome> {
    if (this.options.mode === 'in-process') {
      return runTask(task, this.options.registry, consumer, signal, this.options.log, this.options.tracer);
    }
    const entry = this.options.oneShotEntry ?? process.argv[1];
    if (!entry) throw new Error('one-shot mode needs the path of the script that runs one-shot children');
    this.emit('spawn');
    const { outcome, exitReason } = await runOneShot(task, {
      entry,
      config: this.options.config,
      env: this.options.childEnv ?? {},
      ...(this.options.childScope && { childScope: this.options.childScope }),
      ...(this.options.childReport && { childReport: this.options.childReport }),
      workerId: consumer,
      signal,
      ...(this.options.log && { onLog: this.options.log }),
    });
    this.exitReasons[exitReason] = (this.exitReasons[exitReason] ?? 0) + 1;
    this.emit('exit', undefined, exitReason);
    this.options.log?.(`worker ${consumer}: one-shot process for ${task.id} exited (${exitReason})`);
    return outcome;
  }

  private checkIdle(): void {
    const limit = this.options.exitAfterIdleMs;
    if (limit === undefined || (this.runner?.busy ?? 0) > 0) return;
    if (Date.now() - this.lastBusyAt >= limit && !this.stopClaiming.signal.aborted) {
      this.options.log?.(`worker ${this.id}: idle for ${limit} ms, exiting`);
      this.stopClaiming.abort();
      this.emit('idleExit');
    }
  }
}
