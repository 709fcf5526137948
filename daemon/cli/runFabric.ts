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
   * On a shared queue (QUEUE_URL) whose workers already serve `leave` (the evolve run's
   * evaluations), the embedded engine serves only the other kinds (its mutate tasks: LLM calls,
   * waits on the network) with `ownSlots` slots, so that the workers' slots are the run's
   * evaluation slots and none of them waits on a model. Without such workers it serves all.
   */
  share?: { leave: string; ownSlots: number };
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
  const served = share && !config.queue.url.startsWith('memory:') ? await workersServing(ctx, config, share.leave) : undefined;
  const own = served && share ? { slots: share.ownSlots, excludeKinds: [share.leave] } : { slots, excludeKinds: undefined };
  const engine: Engine = await createEngine(ctx, { ...config, worker: { ...config.worker, concurrency: Math.max(1, own.slots) } }, own.excludeKinds ? { excludeKinds: own.excludeKinds } : {});
  const sandbox = (await engine.status()).sandbox;
  const here = `this process (${sandbox.executor} sandbox${sandbox.isolates ? '' : ', NOT isolated'})`;
  return {
    client: engineTaskClient(engine),
    where: served
      ? `the queue's workers (${share!.leave}: ${served.slots} slot(s) in ${served.pools} pool(s)) and ${here} (${engine.pool?.kinds.join(', ') || 'nothing'}: ${own.slots} slot(s))`
      : here,
    close: async () => {
      await engine.stop({ drain: false });
      await reclaimOwnSandboxes();
      await shutdownTracing();
    },
  };
}

/**
 * Slots of the workers listed on the shared queue that serve `kind`; undefined when none does
 * (a laptop with QUEUE_URL set and no worker started: this process serves everything).
 */
async function workersServing(ctx: CliContext, config: PeagenConfig, kind: string): Promise<{ slots: number; pools: number } | undefined> {
  let queue;
  try {
    queue = await createQueue(config.queue.url, config.queue);
    const pools = (await queue.listWorkers()).filter((worker) => worker.kinds.includes(kind));
    return pools.length > 0 ? { slots: pools.reduce((sum, pool) => sum + pool.slots, 0), pools: pools.length } : undefined;
  } catch {
    // The engine below opens the same queue and reports what is wrong with it.
    return undefined;
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
