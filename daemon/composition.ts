/**
 * Where Peagen's parts are put together (the composition root): the executor the
 * configuration chooses, the queue its URL names, and the handlers a worker offers. The
 * daemon, the CLI's embedded engine, `worker start` and one-shot children all assemble here,
 * so every one of them runs the same handlers on the same kind of sandbox. The fabric itself
 * (queue, worker pool) knows nothing of handlers, configuration files or sandboxes.
 */
import { ConfigError, type PeagenConfig } from './config';
import { Engine, type EngineOptions } from './engine/Engine';
import { createQueue } from './fabric/queue/createQueue';
import type { HandlerRegistry } from './fabric/worker/HandlerRegistry';
import { createRegistry } from './handlers';
import type { Executor } from './sandbox/Executor';
import { selectExecutor } from './sandbox/selectExecutor';

/** The handlers a worker with this configuration runs; sandboxed ones only with an executor. */
export function createWorkerRegistry(config: PeagenConfig, executor?: Executor, log?: (line: string) => void): HandlerRegistry {
  return createRegistry(config.worker.plugins, executor, { llm: config.llm, ...(log && { log }) });
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
  const executor = await selectExecutor(config.sandbox, log);
  try {
    const queue = createQueue(config.queue.url, config.queue);
    const registry = createWorkerRegistry(config, executor.executor, log);
    return new Engine(config, { queue, registry }, { ...options, executor, extraCaps: detectedCapabilities(registry) });
  } catch (error) {
    await executor.executor.close();
    throw error;
  }
}
