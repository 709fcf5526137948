import { HandlerRegistry } from '../fabric/worker/HandlerRegistry';
import { loadPlugins } from '../plugins/loadPlugins';
import { echoHandler } from './echo';
import { sleepHandler } from './sleep';

/** The built-in handlers plus those of the plugin modules named (WORKER_PLUGINS). */
export function createRegistry(pluginPaths: readonly string[] = []): HandlerRegistry {
  const registry = new HandlerRegistry().register(echoHandler).register(sleepHandler);
  for (const handler of loadPlugins(pluginPaths)) registry.register(handler);
  return registry;
}
