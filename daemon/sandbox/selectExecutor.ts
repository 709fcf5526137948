/**
 * Picks the executor: the one asked for, or with `auto` the strongest that works here —
 * docker if an engine answers and the sandbox image exists, else bubblewrap, else the
 * unisolated process fallback. The choice and why the others were passed over are reported
 * (`peagen daemon status`, run reports).
 */
import type { Executor, ExecutorName } from './Executor';
import { BwrapExecutor } from './BwrapExecutor';
import { DockerExecutor } from './docker/DockerExecutor';
import { ProcessExecutor } from './ProcessExecutor';
import { instrumentExecutor } from '../observability/sandboxMetrics';

export type ExecutorChoice = ExecutorName | 'auto';

export interface SandboxSettings {
  executor: ExecutorChoice;
  /** Docker image for the docker executor. */
  image: string;
  /** Docker engine socket; default DOCKER_HOST or /var/run/docker.sock. */
  dockerHost?: string | undefined;
}

export interface ExecutorSelection {
  executor: Executor;
  /** What made the choice, e.g. "auto: docker unavailable (...); bwrap ok". */
  reason: string;
}

type Factory = (settings: SandboxSettings, warn: (message: string) => void) => Executor;

// Every run is timed for the sandbox metrics (daemon/observability/sandboxMetrics.ts).
const FACTORIES: Record<ExecutorName, Factory> = {
  docker: (settings) => instrumentExecutor(new DockerExecutor({ image: settings.image, dockerHost: settings.dockerHost })),
  bwrap: () => instrumentExecutor(new BwrapExecutor()),
  process: (_settings, warn) => instrumentExecutor(new ProcessExecutor(warn)),
};

const AUTO_ORDER: ExecutorName[] = ['docker', 'bwrap', 'process'];

export async function selectExecutor(settings: SandboxSettings, warn: (message: string) => void): Promise<ExecutorSelection> {
  if (settings.executor !== 'auto') {
    const executor = FACTORIES[settings.executor](settings, warn);
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
