/** What both entry scripts (dist/daemon.js, dist/cli.js) run when started as a one-shot child. */
import { z } from 'zod';
import { createWorkerRegistry } from './composition';
import { ConfigSchema } from './config';
import { HARNESS_PATH } from './evaluation/evaluateProgram';
import { HARNESS_LIBRARY_PATH } from './evaluation/harnessLibrary';
import { ONE_SHOT_ENV, runOneShotChild } from './fabric/worker/oneShot';
import type { Executor, PreparedSandbox } from './sandbox/Executor';
import { selectExecutor } from './sandbox/selectExecutor';

/** Where an evaluation's read-only mounts appear: what a warm child's sandbox is prepared for. */
export const WARM_MOUNT_POINTS: readonly string[] = [HARNESS_PATH, HARNESS_LIBRARY_PATH];

export function isOneShotChild(): boolean {
  return Boolean(process.env[ONE_SHOT_ENV]);
}

export function startOneShotChild(): void {
  runOneShotChild(async (sent, { warm }) => {
    // The parent's resolved configuration (its peagen.json, environment and flags), not
    // this process's defaults: the child must run the task exactly as the parent would.
    const parsed = ConfigSchema.safeParse(sent);
    if (!parsed.success) throw new Error(`the parent sent an invalid configuration:\n${z.prettifyError(parsed.error)}`);
    const config = parsed.data;
    const selection = await selectExecutor(config.sandbox, (line) => process.stderr.write(`${line}\n`));
    let executor = selection.executor;
    if (warm) {
      // Made now, while no task waits; what it leaves if this child is killed unused carries
      // the owner tag the parent gave us, and the parent reclaims it.
      executor = preparedFirst(executor, await executor.prepare({ mountPoints: [...WARM_MOUNT_POINTS] }));
    }
    return createWorkerRegistry(config, executor);
  });
}

/**
 * The executor whose first run uses the sandbox prepared ahead (which runs a request it does
 * not fit cold by itself); later runs are made as usual. The seam where the sandbox layer's
 * PreparedFirstExecutor replaces this.
 */
export function preparedFirst(inner: Executor, prepared: PreparedSandbox): Executor {
  let unused: PreparedSandbox | undefined = prepared;
  return {
    name: inner.name,
    isolates: inner.isolates,
    available: () => inner.available(),
    async run(request) {
      const sandbox = unused;
      unused = undefined;
      if (!sandbox) return inner.run(request);
      // `warm` (whether the request fitted) is the prepared sandbox's answer, not the executor's.
      const { warm, ...result } = await sandbox.run(request);
      void warm;
      return result;
    },
    prepare: (options) => inner.prepare(options),
    reclaim: (owner) => inner.reclaim(owner),
    async close() {
      const sandbox = unused;
      unused = undefined;
      await sandbox?.discard();
      await inner.close();
    },
  };
}
