import { HandlerRegistry } from '../fabric/worker/HandlerRegistry';
import { activePlugins } from '../plugins/activePlugins';
import type { Executor } from '../sandbox/Executor';
import type { HostPathPolicy } from '../sandbox/hostPaths';
import { echoHandler } from './echo';
import { createEvaluateHandler } from './evaluate';
import { createExecuteHandler } from './execute';
import { createMutateHandler, type MutateHandlerOptions } from './mutate';
import { createRenderHandler } from './render';
import { sleepHandler } from './sleep';

/**
 * The built-in handlers plus those of the allowed plugins (the allow-list: package names or
 * paths, docs/plugins.md); a plugin that fails to load is reported and skipped. With an
 * executor, the sandboxed handlers (execute, evaluate) run on it; with LLM settings, `mutate`
 * is offered (with the `llm` capability only when a model is configured here), with the
 * plugins' mutators beside the built-in ones. With `hostPaths`, host paths in payloads are
 * taken only inside the directories it serves.
 */
export function createRegistry(allowList: readonly string[] = [], executor?: Executor, mutate?: MutateHandlerOptions, hostPaths?: HostPathPolicy): HandlerRegistry {
  const plugins = activePlugins({ worker: { plugins: allowList } }, mutate?.log);
  const registry = new HandlerRegistry().register(echoHandler).register(sleepHandler);
  if (mutate) {
    const withPlugins = { ...mutate, mutators: plugins.mutators, llmBackends: plugins.llmBackends, ...(hostPaths && { hostPaths }) };
    registry.register(createMutateHandler(withPlugins)).register(createRenderHandler(withPlugins));
  }
  if (executor) registry.register(createExecuteHandler(executor, hostPaths)).register(createEvaluateHandler(executor, hostPaths));
  for (const handler of plugins.handlers) {
    // BUILT_IN_NAMES refuses these at load; this is the backstop that keeps a clash from
    // stopping the worker should the two lists ever disagree.
    if (registry.get(handler.kind)) (mutate?.log ?? console.error)(`plugin handler "${handler.kind}": a built-in handler has this kind — skipped`);
    else registry.register(handler);
  }
  return registry;
}
