import { HandlerRegistry } from '../fabric/worker/HandlerRegistry';
import { loadPlugins } from '../plugins/loadPlugins';
import type { Executor } from '../sandbox/Executor';
import { echoHandler } from './echo';
import { createEvaluateHandler } from './evaluate';
import { createExecuteHandler } from './execute';
import { createMutateHandler, type MutateHandlerOptions } from './mutate';
import { createRenderHandler } from './render';
import { sleepHandler } from './sleep';

/**
 * The built-in handlers plus those of the plugin modules named (WORKER_PLUGINS). With an
 * executor, the sandboxed handlers (execute, evaluate) run on it; with LLM settings, `mutate`
 * is offered (with the `llm` capability only when a model is configured here).
 */
export function createRegistry(pluginPaths: readonly string[] = [], executor?: Executor, mutate?: MutateHandlerOptions): HandlerRegistry {
  const registry = new HandlerRegistry().register(echoHandler).register(sleepHandler);
  if (mutate) registry.register(createMutateHandler(mutate)).register(createRenderHandler(mutate));
  if (executor) registry.register(createExecuteHandler(executor)).register(createEvaluateHandler(executor));
  for (const handler of loadPlugins(pluginPaths)) registry.register(handler);
  return registry;
}
