/** What both entry scripts (dist/daemon.js, dist/cli.js) run when started as a one-shot child. */
import * as z from 'zod';
import { createWorkerRegistry } from './composition';
import { ConfigSchema } from './config';
import { HARNESS_PATH } from './evaluation/evaluateProgram';
import { HARNESS_LIBRARY_PATH } from './evaluation/harnessLibrary';
import { runOneShotChild } from './fabric/worker/oneShot';
import { keepTimingsForParent, sandboxTimingReport } from './observability/sandboxMetrics';
import { shutdownTracing, startTracing, taskTracer } from './observability/tracing';
import type { Executor } from './sandbox/Executor';
import { activePlugins } from './plugins/activePlugins';
import { selectExecutor } from './selectExecutor';
import { PreparedFirstExecutor } from './sandbox/warm/PreparedFirstExecutor';

/** Where an evaluation's read-only mounts appear: what a warm child's sandbox is prepared for. */
export const WARM_MOUNT_POINTS: readonly string[] = [HARNESS_PATH, HARNESS_LIBRARY_PATH];

export { isOneShotChild } from './fabric/worker/oneShotEnv';

export function startOneShotChild(): void {
  // This process's sandbox timings go to the parent with the outcome, not to a /metrics here.
  keepTimingsForParent();
  runOneShotChild(async (sent, { warm }) => {
    // The parent's resolved configuration (its peagen.json, environment and flags), not
    // this process's defaults: the child must run the task exactly as the parent would.
    const parsed = ConfigSchema.safeParse(sent);
    if (!parsed.success) throw new Error(`the parent sent an invalid configuration:\n${z.prettifyError(parsed.error)}`);
    const config = parsed.data;
    await startTracing(config.observability, 'peagen-task');
    const log = (line: string): void => void process.stderr.write(`${line}\n`);
    const selection = await selectExecutor(config.sandbox, log, activePlugins(config, log).executors);
    let executor: Executor = selection.executor;
    if (warm) {
      // Made now, while no task waits; what it leaves if this child is killed unused carries
      // the owner tag the parent gave us, and the parent reclaims it.
      executor = new PreparedFirstExecutor(executor, await executor.prepare({ mountPoints: [...WARM_MOUNT_POINTS] }));
    }
    return createWorkerRegistry(config, executor);
  }, { beforeExit: () => shutdownTracing(ONE_SHOT_FLUSH_LIMIT_MS), tracer: taskTracer, childReport: sandboxTimingReport });
}

/** The child's last spans are sent before it exits, but a dead collector holds it no longer than this. */
const ONE_SHOT_FLUSH_LIMIT_MS = 1_500;
