/**
 * The engine is the task fabric assembled: a queue, the handler registry and a worker pool,
 * plus the task-state events that clients watch. The daemon serves one over JSON-RPC; the
 * CLI embeds one when no daemon runs, so both paths execute the same code.
 *
 * State updates and cancels go through the queue, so they hold for tasks that workers in
 * other processes or hosts run, not only for this engine's own pool.
 */
import { EventEmitter } from 'node:events';
import type { ClusterStatus, SandboxStatus, TaskUpdate, WorkerPoolStatus } from '../../shared/protocol';
import { newTask, type QueueStats, type Result, type Task, type TaskSpec } from '../../shared/task';
import type { PeagenConfig } from '../config';
import { QueueKeyError } from '../fabric/queue/redis/badKey';
import { canAccept, type TaskEvent, type TaskQueue } from '../fabric/queue/TaskQueue';
import type { HandlerRegistry } from '../fabric/worker/HandlerRegistry';
import { WorkerPool } from '../fabric/worker/WorkerPool';
import type { ChildReport, ChildScope } from '../fabric/worker/oneShot';
import type { TaskTracer } from '../fabric/worker/runTask';
import type { TaskAdmission } from '../fabric/worker/taskAdmission';
import { signTask } from '../fabric/queue/taskSignature';
import { type Executor, executorCapabilities, type ExecutorSelection } from '../sandbox/Executor';
import type { HostPathPolicy } from '../sandbox/hostPaths';
import { newSandboxOwner, SANDBOX_OWNER_ENV } from '../sandbox/owner';
import { type Heartbeat, startWorkerHeartbeat, type WorkerSnapshot } from './workerHeartbeat';

export interface EngineStatus {
  queue: { backend: string; url: string } & QueueStats;
  workers: WorkerPoolStatus;
  sandbox: SandboxStatus;
}

export interface EngineOptions {
  /** Runs the sandboxed handlers (execute, evaluate); without it they are not offered. */
  executor?: ExecutorSelection;
  /** Script that runs one-shot children; default: the running script. */
  oneShotEntry?: string;
  /** Run no workers here (tasks wait for `peagen worker start` elsewhere). */
  withoutWorkers?: boolean;
  /** Task kinds this engine's workers leave to workers elsewhere (see WorkerPoolOptions.excludeKinds). */
  excludeKinds?: readonly string[];
  /**
   * Stop the workers after this long with nothing to do (`worker start --exit-after-idle`,
   * WORKER_IDLE_EXIT). Only for a worker process: a daemon's own slots never stop by themselves.
   */
  exitAfterIdleMs?: number;
  /** Capabilities proven by what this host has beyond the executor (e.g. `llm`). */
  extraCaps?: readonly string[];
  /** The engine of a CLI command's own process: its pool is announced as passing (WorkerRecord.passing). */
  passing?: boolean;
  log?: (line: string) => void;
  /** Watches each task the workers run here (the composition root hands observability's). */
  tracer?: TaskTracer;
  /** Receives what each one-shot child reports beside its outcome (its sandbox timings). */
  childReport?: ChildReport;
}

/** What the engine runs on, built by its caller (see daemon/composition.ts). */
export interface EngineParts {
  queue: TaskQueue;
  registry: HandlerRegistry;
  /** On a shared queue: the host paths its handlers take; tasks submitted here are trusted. */
  hostPaths?: HostPathPolicy;
  /**
   * Which claimed tasks the workers here run at all (signatures, isolation); tasks submitted
   * here are signed with its secret and trusted as submitted. Without it every task runs.
   */
  admission?: TaskAdmission;
}

export class Engine extends EventEmitter<{ update: [TaskUpdate.Params] }> {
  readonly queue: TaskQueue;
  readonly registry: HandlerRegistry;
  readonly pool: WorkerPool | undefined;

  /**
   * The configured worker caps plus what the sandbox proves this host has: a working
   * docker executor means the host can serve tasks that require `docker`.
   */
  readonly caps: readonly string[];
  /** The sandbox executor chosen for this host, if any. */
  readonly executor: ExecutorSelection | undefined;
  private readonly unsubscribe: () => void;
  private readonly hostPaths: HostPathPolicy | undefined;
  private readonly admission: TaskAdmission | undefined;
  private readonly heartbeat: Heartbeat | undefined;
  /** This process's pool as the cluster directory lists it, as it is now. */
  private readonly ownPool: (() => WorkerSnapshot) | undefined;

  constructor(
    readonly config: PeagenConfig,
    parts: EngineParts,
    options: EngineOptions = {},
  ) {
    super();
    this.executor = options.executor;
    const detected = [...(options.executor ? executorCapabilities(options.executor.executor) : []), ...(options.extraCaps ?? [])];
    this.caps = [...new Set([...config.worker.caps, ...detected])];
    this.queue = parts.queue;
    this.unsubscribe = this.queue.subscribe((event) => this.forward(event));
    this.registry = parts.registry;
    this.hostPaths = parts.hostPaths;
    this.admission = parts.admission;
    const executor = options.executor?.executor;
    if (!options.withoutWorkers) {
      this.pool = new WorkerPool({
        queue: this.queue,
        registry: this.registry,
        caps: this.caps,
        concurrency: config.worker.concurrency,
        mode: config.worker.mode,
        ...(options.excludeKinds && { excludeKinds: options.excludeKinds }),
        // One-shot children use the executor chosen here rather than choosing again.
        config: executor ? { ...config, sandbox: { ...config.sandbox, executor: executor.name } } : config,
        // A one-shot child killed mid-run cleans nothing up: its sandboxes carry an owner tag
        // of its own, and everything with that tag is removed here once it has exited.
        ...(executor && { childScope: () => sandboxScope(executor) }),
        ...(options.oneShotEntry && { oneShotEntry: options.oneShotEntry }),
        ...(options.exitAfterIdleMs !== undefined && { exitAfterIdleMs: options.exitAfterIdleMs }),
        ...(options.log && { log: options.log }),
        ...(options.tracer && { tracer: options.tracer }),
        ...(options.childReport && { childReport: options.childReport }),
        ...(parts.admission && { gate: parts.admission.gate }),
      });
      this.pool.start();
      const pool = this.pool;
      this.ownPool = () => {
        const status = pool.status();
        return { id: pool.id, caps: status.caps, kinds: pool.kinds, mode: status.mode, slots: status.count, busy: status.busy, accepts: pool.acceptors, ...(options.passing && { passing: true }) };
      };
      this.heartbeat = startWorkerHeartbeat(this.queue, this.ownPool, { ...(options.log && { log: options.log }) });
    }
  }

  /**
   * Queues a task. `beforeEnqueue` sees the task once it is accepted and before it is queued,
   * so a caller can follow its updates from the first (`queued`) on.
   */
  async submit(spec: TaskSpec, beforeEnqueue?: (task: Task) => void): Promise<Task> {
    const secret = this.admission?.policy.secret;
    const task = secret === undefined ? newTask(spec) : signTask(newTask(spec), secret);
    // A private queue has no other workers: refuse what nobody here can ever run
    // instead of letting it wait forever.
    if (this.queue.backend === 'memory' && !canAccept(task, this.registry.acceptorsFor(this.caps))) {
      const kinds = this.registry.acceptorsFor(this.caps).map((acceptor) => acceptor.kind);
      throw new Error(
        `no worker here can run a "${task.kind}" task requiring [${task.requires.join(', ')}] (worker caps [${this.caps.join(', ')}], kinds: ${kinds.join(', ') || 'none'})`,
      );
    }
    beforeEnqueue?.(task);
    this.hostPaths?.trust(task.id);
    this.admission?.submittedHere(task);
    try {
      await this.queue.enqueue(task);
    } catch (error) {
      this.hostPaths?.forget(task.id);
      // A duplicate id is another's task: it must not be trusted as this one.
      this.admission?.forget(task.id);
      throw error;
    }
    return task;
  }

  /** Whether the queue holds the task or its result (false: a mistyped id, or an expired result). */
  knows(taskId: string): Promise<boolean> {
    return this.queue.knows(taskId);
  }

  result(taskId: string, waitMs: number, signal?: AbortSignal): Promise<Result | null> {
    return this.queue.waitForResult(taskId, waitMs, signal);
  }

  /**
   * Withdraws a queued task, or asks the worker holding a running one (here or in another
   * process) to stop it; false when the task is unknown or already finished.
   */
  cancel(taskId: string): Promise<boolean> {
    return this.queue.cancel(taskId);
  }

  async status(): Promise<EngineStatus> {
    return {
      queue: { backend: this.queue.backend, url: this.queue.url, ...(await this.queueStats()) },
      workers: this.pool?.status() ?? { count: 0, busy: 0, caps: [], mode: this.config.worker.mode },
      sandbox: this.executor
        ? { executor: this.executor.executor.name, isolates: this.executor.executor.isolates, reason: this.executor.reason }
        : { executor: 'none', isolates: false, reason: 'no executor: sandboxed tasks are not offered' },
    };
  }

  /**
   * Every worker serving the queue (from any host) and its depth per requirement set. Asked
   * for by status requests only: it costs queue round trips that task updates must not pay.
   */
  async cluster(): Promise<ClusterStatus> {
    const [listed, depth] = await Promise.all([this.queue.listWorkers(), this.queue.depth().catch(unlessDamagedKey([]))]);
    // The directory holds this process's pool as its last heartbeat saw it, up to 15 s ago:
    // shown beside the live `workers` of status(), the two disagreed on how many were busy.
    const own = this.ownPool?.();
    const workers = own ? listed.map((record) => (record.id === own.id ? { ...record, ...own } : record)) : listed;
    return { workers, depth };
  }

  /**
   * The queue's counts; a queue key that something else wrote (QueueKeyError) never blocks a
   * status: it is reported as the problem, with its fix, and the counts as unknown (zero).
   */
  private queueStats(): Promise<QueueStats> {
    return this.queue.stats().catch((error: unknown) => unlessDamagedKey<QueueStats>({ pending: 0, inFlight: 0, delayed: 0, dead: 0, problems: [(error as Error).message] })(error));
  }

  /** Stops the workers (finishing or handing back their tasks), then the queue. */
  async stop({ drain }: { drain: boolean }): Promise<void> {
    await this.pool?.stop({ drain });
    await this.heartbeat?.stop();
    this.unsubscribe();
    await this.queue.close();
    await this.executor?.executor.close();
  }

  /** Queue state events become client updates; results are fetched with getResult. */
  private forward(event: TaskEvent): void {
    if (event.type !== 'state') return;
    if (event.state === 'done' || event.state === 'dead' || event.state === 'cancelled') {
      this.hostPaths?.forget(event.taskId);
      this.admission?.forget(event.taskId);
    }
    this.emit('update', {
      taskId: event.taskId,
      kind: event.kind,
      state: event.state,
      attempts: event.attempts,
      ...(event.reason !== undefined && { reason: event.reason }),
    } satisfies TaskUpdate.Params);
  }
}

function sandboxScope(executor: Executor): ChildScope {
  const owner = newSandboxOwner();
  return { env: { [SANDBOX_OWNER_ENV]: owner }, release: () => executor.reclaim(owner) };
}

/** `fallback` when the error is a damaged queue key (its message says which and how to fix it); any other error again. */
function unlessDamagedKey<T>(fallback: T): (error: unknown) => T {
  return (error) => {
    if (error instanceof QueueKeyError) return fallback;
    throw error;
  };
}
