/**
 * Picks the executor: the one asked for, or with `auto` the strongest that works here —
 * docker if an engine answers and the sandbox image exists, else bubblewrap, else the
 * unisolated process fallback. The choice and why the others were passed over are reported
 * (`peagen daemon status`, run reports).
 */
import { ConfigError } from './config';
import { instrumentExecutor } from './observability/sandboxMetrics';
import type { ExecutorPlugin } from './plugins/plugPoints';
import { BwrapExecutor } from './sandbox/bwrap/BwrapExecutor';
import { DockerExecutor } from './sandbox/docker/DockerExecutor';
import type { Executor, ExecutorName, ExecutorSelection, SandboxSettings } from './sandbox/Executor';
import { ProcessExecutor } from './sandbox/ProcessExecutor';

type Factory = (settings: SandboxSettings, warn: (message: string) => void) => Executor;

// Every run is timed for the sandbox metrics (daemon/observability/sandboxMetrics.ts).
const FACTORIES: Record<ExecutorName, Factory> = {
  docker: (settings) => instrumentExecutor(new DockerExecutor({ image: settings.image, dockerHost: settings.dockerHost })),
  bwrap: () => instrumentExecutor(new BwrapExecutor()),
  process: (_settings, warn) => instrumentExecutor(new ProcessExecutor(warn)),
};

const AUTO_ORDER: ExecutorName[] = ['docker', 'bwrap', 'process'];

const isBuiltIn = (name: string): name is ExecutorName => Object.hasOwn(FACTORIES, name);

/**
 * `plugins`: the executors of the allowed plugins (daemon/plugins); one is used only when the
 * settings name it, never by `auto`, whose order is about isolation Peagen can vouch for.
 */
export async function selectExecutor(settings: SandboxSettings, warn: (message: string) => void, plugins: readonly ExecutorPlugin[] = []): Promise<ExecutorSelection> {
  const chosen = settings.executor;
  if (chosen !== 'auto') {
    if (!isBuiltIn(chosen)) return pluginExecutor(settings, warn, plugins);
    const executor = FACTORIES[chosen](settings, warn);
    const availability = await executor.available();
    if (!availability.ok) {
      await executor.close();
      throw new Error(`the ${settings.executor} executor cannot run here: ${availability.reason}`);
    }
    return { executor, reason: `${settings.executor} (as configured): ${availability.detail}` };
  }
  const passedOver: string[] = [];
  for (const name of AUTO_ORDER) {
    let executor: Executor;
    try {
      executor = FACTORIES[name](settings, warn);
    } catch (error) {
      passedOver.push(`${name}: ${(error as Error).message}`);
      continue;
    }
    const availability = await executor.available();
    if (availability.ok) {
      const skipped = passedOver.length > 0 ? ` (passed over: ${passedOver.join('; ')})` : '';
      return { executor, reason: `auto chose ${name}: ${availability.detail}${skipped}` };
    }
    passedOver.push(`${name}: ${availability.reason}`);
    await executor.close();
  }
  throw new Error(`no executor can run here: ${passedOver.join('; ')}`);
}

async function pluginExecutor(settings: SandboxSettings, warn: (message: string) => void, plugins: readonly ExecutorPlugin[]): Promise<ExecutorSelection> {
  const name = settings.executor;
  const plugin = plugins.find((candidate) => candidate.name === name);
  if (!plugin) {
    const offered = plugins.length > 0 ? `; allowed plugins provide: ${plugins.map((candidate) => candidate.name).join(', ')}` : '';
    throw new ConfigError(
      `sandbox.executor "${name}" is neither built in (auto, ${AUTO_ORDER.join(', ')}) nor provided by an allowed plugin${offered}; allow the plugin that provides it in peagen.json "plugins" (see \`peagen plugins\`)`,
      'sandbox.executor',
    );
  }
  let executor: Executor;
  try {
    executor = plugin.create(settings, warn);
  } catch (error) {
    throw new Error(`the plugin executor "${name}" failed to start: ${(error as Error).message}`);
  }
  const availability = await executor.available();
  if (!availability.ok) {
    await executor.close();
    throw new Error(`the plugin executor "${name}" cannot run here: ${availability.reason}`);
  }
  return { executor: instrumentExecutor(executor), reason: `${name} (a plugin's executor, as configured): ${availability.detail}` };
}
