/** What both entry scripts (dist/daemon.js, dist/cli.js) run when started as a one-shot child. */
import { loadConfig, splitList } from '../../config';
import { createRegistry } from '../../handlers';
import { selectExecutor } from '../../sandbox/selectExecutor';
import { ONE_SHOT_ENV, runOneShotChild } from './oneShot';

export function isOneShotChild(): boolean {
  return Boolean(process.env[ONE_SHOT_ENV]);
}

export function startOneShotChild(): void {
  runOneShotChild(async () => {
    // The parent passes its executor's name in PEAGEN_EXECUTOR (read by loadConfig).
    const { sandbox } = loadConfig(undefined);
    const selection = await selectExecutor(sandbox, (line) => process.stderr.write(`${line}\n`));
    return createRegistry(splitList(process.env.WORKER_PLUGINS ?? ''), selection.executor);
  });
}
