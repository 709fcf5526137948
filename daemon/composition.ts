/**
 * Where Peagen's parts are put together (the composition root): the executor the
 * configuration chooses, the queue its URL names, and the handlers a worker offers. The
 * daemon, the CLI's embedded engine, `worker start` and one-shot children all assemble here,
 * so every one of them runs the same handlers on the same kind of sandbox. The fabric itself
 * (queue, worker pool) knows nothing of handlers, configuration files or sandboxes.
 */
import { ConfigError, type PeagenConfig } from './config';
import { Engine, type EngineOptions } from './engine/Engine';
import { startWorkerHeartbeat } from './engine/workerHeartbeat';
import { createQueue } from './fabric/queue/createQueue';
import type { TaskQueue } from './fabric/queue/TaskQueue';
import { HandlerRegistry } from './fabric/worker/HandlerRegistry';
import type { ChildScope } from './fabric/worker/oneShot';
import { TaskAdmission } from './fabric/worker/taskAdmission';
import { TaskSecretError, taskSecretFrom } from './fabric/queue/taskSignature';
import { WarmSpawner, type WarmSpawnerOptions, type WarmSpawnerStopRecord } from './fabric/worker/WarmSpawner';
import { createRegistry } from './handlers';
import { sandboxTimingReport } from './observability/sandboxMetrics';
import { taskTracer } from './observability/tracing';
import { activePlugins, allowListOf } from './plugins/activePlugins';
import { type Executor, executorCapabilities } from './sandbox/Executor';
import { bundledExamplesDir, HostPathPolicy } from './sandbox/hostPaths';
import { ceilingExecutor } from './sandbox/limitCeilings';
import { newSandboxOwner, SANDBOX_OWNER_ENV } from './sandbox/owner';
import { selectExecutor } from './selectExecutor';

/** The handlers a worker with this configuration runs; sandboxed ones only with an executor. */
export function createWorkerRegistry(config: PeagenConfig, executor?: Executor, log?: (line: string) => void, hostPaths = hostPathsOf(config)): HandlerRegistry {
  // No task's limits go above this worker's ceilings, whichever handler runs it.
  const bounded = executor && ceilingExecutor(executor, config.sandbox.maxLimits);
  const registry = createRegistry(allowListOf(config), bounded, { llm: config.llm, ...(log && { log }) }, hostPaths);
  return config.worker.kinds ? onlyKinds(registry, config.worker.kinds) : registry;
}

/**
 * The handlers of `kinds` alone (worker.kinds): the pool, a warm spawner and its one-shot
 * children all build their claims from this registry, so none of them takes another kind.
 */
function onlyKinds(registry: HandlerRegistry, kinds: readonly string[]): HandlerRegistry {
  const served = registry.list().map((handler) => handler.kind);
  const unknown = kinds.filter((kind) => !served.includes(kind));
  if (unknown.length > 0) {
    throw new ConfigError(`worker.kinds names ${unknown.join(', ')}, which no handler of this worker serves (it serves ${served.join(', ')}); fix --kinds or WORKER_KINDS`);
  }
  const kept = new HandlerRegistry();
  for (const handler of registry.list()) if (kinds.includes(handler.kind)) kept.register(handler);
  return kept;
}

/**
 * Which host paths this worker's tasks may name: any on a private memory:// queue (only this
 * process and its own user's clients put tasks there); on a shared queue, only paths inside
 * worker.roots (default: the current directory and the bundled examples).
 */
export function hostPathsOf(config: PeagenConfig): HostPathPolicy | undefined {
  if (config.queue.url.startsWith('memory:')) return undefined;
  return new HostPathPolicy(config.worker.roots ?? [process.cwd(), bundledExamplesDir()]);
}

/**
 * Which claimed tasks this worker runs at all (fabric/worker/taskAdmission.ts): signed ones
 * only with a cluster secret, and task code from a shared queue only in an isolating sandbox
 * unless sandbox.allowUnisolated. Says at start when this worker will refuse such tasks.
 */
function admissionOf(config: PeagenConfig, registry: HandlerRegistry, executor: Executor, queue: TaskQueue, log: (line: string) => void, secret: string | undefined): TaskAdmission {
  const admission = new TaskAdmission(registry, {
    isolates: executor.isolates,
    executorName: executor.name,
    allowUnisolated: config.sandbox.allowUnisolated,
    privateQueue: queue.backend === 'memory',
    secret,
  });
  const refused = admission.refusedForeignKinds;
  if (refused.length > 0) {
    log(
      `warning: the ${executor.name} executor does not isolate, so this worker refuses ${refused.join(' and ')} tasks queued by other processes on ${queue.url} ` +
        '(dead letter isolation_required); install Docker or bubblewrap here, or allow it with --allow-unisolated (sandbox.allowUnisolated, PEAGEN_ALLOW_UNISOLATED=1) if everyone who can write to the queue is trusted',
    );
  }
  return admission;
}

/** The cluster's task secret (PEAGEN_TASK_SECRET), read before anything is opened: a bad one is a configuration error. */
export function taskSecretOf(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    return taskSecretFrom(env);
  } catch (error) {
    if (error instanceof TaskSecretError) throw new ConfigError(error.message);
    throw error;
  }
}

/** Capabilities this host proves beyond the configured ones: `llm` when a model is configured here. */
export function detectedCapabilities(registry: HandlerRegistry): string[] {
  return registry.provides().includes('llm') ? ['llm'] : [];
}

/** Picks the executor, opens the queue and builds the registry, then the engine on them. */
export async function assembleEngine(config: PeagenConfig, options: Omit<EngineOptions, 'executor'> = {}): Promise<Engine> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (options.withoutWorkers && config.queue.url.startsWith('memory:')) {
    // Nobody else can reach a private queue: its tasks would wait forever.
    throw new ConfigError(
      'daemon.workers is false but the queue is memory:// (private to this process); point QUEUE_URL at a shared Redis (redis://host:port) so that `peagen worker start` elsewhere can serve it',
    );
  }
  const secret = taskSecretOf();
  const executor = await selectExecutor(config.sandbox, log, activePlugins(config, log).executors);
  try {
    const queue = await createQueue(config.queue.url, config.queue);
    const hostPaths = hostPathsOf(config);
    const registry = createWorkerRegistry(config, executor.executor, log, hostPaths);
    const admission = admissionOf(config, registry, executor.executor, queue, log, secret);
    return new Engine(config, { queue, registry, admission, ...(hostPaths && { hostPaths }) }, { tracer: taskTracer, childReport: sandboxTimingReport, ...options, executor, extraCaps: detectedCapabilities(registry) });
  } catch (error) {
    await executor.executor.close();
    throw error;
  }
}

/** The warm spawner with what it runs on; `close` stops it, then the queue and executor. */
export interface AssembledSpawner {
  spawner: WarmSpawner;
  queue: TaskQueue;
  /** The executor the children use (this process only reclaims with it). */
  executor: Executor;
  /** Capabilities its workers claim with: the configured ones plus what this host proves. */
  caps: string[];
  close(options: { drain: boolean }): Promise<WarmSpawnerStopRecord>;
}

/**
 * `worker start --warm-pool`: the supervisor of warm one-shot workers. It chooses the
 * executor once (children use the same one, by name) and keeps it only to reclaim what a
 * dead child's sandboxes left behind; it runs no sandbox itself.
 */
export async function assembleWarmSpawner(
  config: PeagenConfig,
  options: Pick<WarmSpawnerOptions, 'warmPool' | 'maxWorkers' | 'exitAfterIdleMs' | 'entry'> & Partial<WarmSpawnerOptions>,
): Promise<AssembledSpawner> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const secret = taskSecretOf();
  const selection = await selectExecutor(config.sandbox, log, activePlugins(config, log).executors);
  const executor = selection.executor;
  let queue: TaskQueue | undefined;
  try {
    queue = await createQueue(config.queue.url, config.queue);
    const registry = createWorkerRegistry(config, executor, log);
    const caps = [...new Set([...config.worker.caps, ...executorCapabilities(executor), ...detectedCapabilities(registry)])];
    const spawner = new WarmSpawner({
      queue,
      registry,
      caps,
      // This process submits nothing: every task it claims is another's.
      gate: admissionOf(config, registry, executor, queue, log, secret).gate,
      // Children use the executor chosen here rather than choosing again: `auto` is resolved
      // to the built-in it chose; a named one (built in or a plugin's) is passed on as named,
      // since a plugin's executor object may carry another name than the one it is chosen by.
      config: { ...config, sandbox: { ...config.sandbox, executor: config.sandbox.executor === 'auto' ? executor.name : config.sandbox.executor } },
      childScope: () => childSandboxScope(executor),
      childReport: sandboxTimingReport,
      log,
      ...options,
    }).start();
    // Listed in the cluster directory like any pool; `processes` shows it at zero.
    const heartbeat = startWorkerHeartbeat(
      queue,
      () => {
        const status = spawner.status();
        return { id: spawner.id, caps, kinds: spawner.kinds, accepts: spawner.acceptors, mode: 'warm', slots: status.maxWorkers, busy: status.running, processes: status.processes };
      },
      { log },
    );
    // The directory learns of a scale change at once, not at the next beat.
    spawner.on('exit', () => {
      if (spawner.status().processes === 0) void heartbeat.beat();
    });
    spawner.on('ready', () => {
      if (spawner.status().ready === 1) void heartbeat.beat();
    });
    const opened = queue;
    return {
      spawner,
      queue,
      executor,
      caps,
      async close({ drain }) {
        const record = await spawner.stop({ drain });
        await heartbeat.stop();
        await opened.close();
        await executor.close();
        return record;
      },
    };
  } catch (error) {
    await queue?.close();
    await executor.close();
    throw error;
  }
}

/**
 * A child's sandboxes (its prepared one too) carry an owner tag of its own, so that
 * everything it leaves, even when SIGKILLed while it waited, is removed once it has exited.
 */
export function childSandboxScope(executor: Executor): ChildScope {
  const owner = newSandboxOwner();
  return { env: { [SANDBOX_OWNER_ENV]: owner }, release: () => executor.reclaim(owner) };
}
