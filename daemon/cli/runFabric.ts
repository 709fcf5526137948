/**
 * The fabric a CLI command's tasks run on: the running daemon's (and so every worker
 * attached to its queue), or, with --sync or when no daemon runs, an embedded engine with an
 * in-memory queue and in-process workers (P-8: nothing but Node needed).
 */
import type { PeagenConfig } from '../config';
import { shutdownTracing, startTracing } from '../observability/tracing';
import type { Engine } from '../engine/Engine';
import type { TaskClient } from '../evolution/controller/TaskClient';
import { daemonTaskClient, engineTaskClient } from '../evolution/controller/taskClients';
import { DaemonClient } from '../rpc/client';
import { readLiveRecord } from '../../shared/discovery';
import { reclaimOwnSandboxes } from '../sandbox/liveSandboxes';
import { createQueue } from '../fabric/queue/createQueue';
import type { Task } from '../../shared/task';
import { poolsServing } from '../fabric/worker/servingPools';
import { takeOverWhenWorkersLeave } from './servingWorkers';
import { type CliContext, createEngine } from './context';

export interface Fabric {
  client: TaskClient;
  /** `this process` or `the daemon (pid N)`. */
  where: string;
  close(): Promise<void>;
}

export interface FabricRequest {
  sync?: boolean;
  /** Slots of the embedded engine when it serves every task. */
  slots: number;
  /**
   * On a shared queue (QUEUE_URL), the run's tasks that workers listed there already serve are
   * left to them: with workers serving evaluations they are the run's W evaluation slots, and
   * with workers serving mutate tasks (`worker start --kinds mutate` with a model) this process
   * makes no LLM call either and is the controller alone. The embedded engine serves the rest
   * with `ownSlots` slots (all of them, with `slots`, when no worker is listed, and from the
   * moment no listed worker serves a kind left to them any more).
   */
  share?: { tasks: readonly Pick<Task, 'kind' | 'requires'>[]; ownSlots: number };
}

export async function openFabric(ctx: CliContext, config: PeagenConfig, request: FabricRequest): Promise<Fabric> {
  // This process may run the evolution run (its root and job spans) and, embedded, the tasks:
  // traced like the daemon when an endpoint is configured (a no-op otherwise).
  await startTracing(config.observability, 'peagen-cli', { log: (line) => ctx.info(line) });
  try {
    return await connectOrEmbed(ctx, config, request);
  } catch (error) {
    await shutdownTracing();
    throw error;
  }
}

async function connectOrEmbed(ctx: CliContext, config: PeagenConfig, { sync, slots, share }: FabricRequest): Promise<Fabric> {
  if (!sync && readLiveRecord(ctx.stateDir)) {
    const daemon = await DaemonClient.connectToRunning(ctx.stateDir).catch(() => undefined);
    if (daemon) {
      return {
        client: daemonTaskClient(daemon),
        where: `the daemon (pid ${daemon.handshake.pid})`,
        close: async () => {
          daemon.close();
          await shutdownTracing();
        },
      };
    }
  }
  const served = share && !config.queue.url.startsWith('memory:') ? await workersServing(config, share.tasks) : [];
  const own = served.length > 0 && share ? { slots: share.ownSlots, excludeKinds: served.map((pools) => pools.kind) } : { slots, excludeKinds: undefined };
  const engine: Engine = await createEngine(ctx, { ...config, worker: { ...config.worker, concurrency: Math.max(1, own.slots) } }, own.excludeKinds ? { excludeKinds: own.excludeKinds } : {});
  // Workers that leave for good hand their kinds back to this process (servingWorkers.ts).
  const stopWatching =
    own.excludeKinds && engine.pool && share
      ? takeOverWhenWorkersLeave({ directory: engine.queue, pool: engine.pool, tasks: share.tasks, slots, log: (line) => ctx.info(line) })
      : () => undefined;
  const sandbox = (await engine.status()).sandbox;
  const here = `this process (${sandbox.executor} sandbox${sandbox.isolates ? '' : ', NOT isolated'})`;
  return {
    client: engineTaskClient(engine),
    where:
      served.length > 0
        ? `the queue's workers (${served.map((pools) => `${pools.kind}: ${pools.slots} slot(s) in ${pools.pools} pool(s)`).join('; ')}) and ${here} (${engine.pool?.kinds.join(', ') || 'nothing'}: ${own.slots} slot(s))`
        : here,
    close: async () => {
      stopWatching();
      await engine.stop({ drain: false });
      await reclaimOwnSandboxes();
      await shutdownTracing();
    },
  };
}

/**
 * For each of `tasks` that workers listed on the shared queue serve (the kind, and caps that
 * cover its requirements), their slots; empty when none does (a laptop with QUEUE_URL set and
 * no worker started: this process serves everything).
 */
async function workersServing(config: PeagenConfig, tasks: readonly Pick<Task, 'kind' | 'requires'>[]): Promise<{ kind: string; slots: number; pools: number }[]> {
  let queue;
  try {
    queue = await createQueue(config.queue.url, config.queue);
    return poolsServing(await queue.listWorkers(), tasks);
  } catch {
    // The engine below opens the same queue and reports what is wrong with it.
    return [];
  } finally {
    await queue?.close().catch(() => {});
  }
}

/** An AbortSignal that Ctrl-C aborts, for work that checkpoints and ends cleanly. */
export function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSigint = (): void => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSigint);
  return { signal: controller.signal, dispose: () => process.removeListener('SIGINT', onSigint) };
}
