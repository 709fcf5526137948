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
import { type CliContext, createEngine } from './context';

export interface Fabric {
  client: TaskClient;
  /** `this process` or `the daemon (pid N)`. */
  where: string;
  close(): Promise<void>;
}

export async function openFabric(ctx: CliContext, config: PeagenConfig, { sync, slots }: { sync?: boolean; slots: number }): Promise<Fabric> {
  // This process may run the evolution run (its root and job spans) and, embedded, the tasks:
  // traced like the daemon when an endpoint is configured (a no-op otherwise).
  await startTracing(config.observability, 'peagen-cli', { log: (line) => ctx.info(line) });
  try {
    return await connectOrEmbed(ctx, config, { ...(sync !== undefined && { sync }), slots });
  } catch (error) {
    await shutdownTracing();
    throw error;
  }
}

async function connectOrEmbed(ctx: CliContext, config: PeagenConfig, { sync, slots }: { sync?: boolean; slots: number }): Promise<Fabric> {
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
  const engine: Engine = await createEngine(ctx, { ...config, worker: { ...config.worker, concurrency: Math.max(1, slots) } });
  const sandbox = (await engine.status()).sandbox;
  return {
    client: engineTaskClient(engine),
    where: `this process (${sandbox.executor} sandbox${sandbox.isolates ? '' : ', NOT isolated'})`,
    close: async () => {
      await engine.stop({ drain: false });
      await reclaimOwnSandboxes();
      await shutdownTracing();
    },
  };
}

/** An AbortSignal that Ctrl-C aborts, for work that checkpoints and ends cleanly. */
export function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSigint = (): void => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSigint);
  return { signal: controller.signal, dispose: () => process.removeListener('SIGINT', onSigint) };
}
