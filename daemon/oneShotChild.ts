/** What both entry scripts (dist/daemon.js, dist/cli.js) run when started as a one-shot child. */
import { z } from 'zod';
import { createWorkerRegistry } from './composition';
import { ConfigSchema } from './config';
import { ONE_SHOT_ENV, runOneShotChild } from './fabric/worker/oneShot';
import { selectExecutor } from './sandbox/selectExecutor';

export function isOneShotChild(): boolean {
  return Boolean(process.env[ONE_SHOT_ENV]);
}

export function startOneShotChild(): void {
  runOneShotChild(async (sent) => {
    // The parent's resolved configuration (its peagen.json, environment and flags), not
    // this process's defaults: the child must run the task exactly as the parent would.
    const parsed = ConfigSchema.safeParse(sent);
    if (!parsed.success) throw new Error(`the parent sent an invalid configuration:\n${z.prettifyError(parsed.error)}`);
    const config = parsed.data;
    const selection = await selectExecutor(config.sandbox, (line) => process.stderr.write(`${line}\n`));
    return createWorkerRegistry(config, selection.executor);
  });
}
