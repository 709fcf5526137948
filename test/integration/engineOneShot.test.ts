/**
 * The engine as the daemon runs it in one-shot mode: a one-shot child killed mid-run (here by
 * a cancel) cleans nothing up itself, so the engine must remove the sandbox it left.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { assembleEngine } from '../../daemon/composition';
import { ConfigSchema } from '../../daemon/config';
import type { Engine } from '../../daemon/engine/Engine';
import { DAEMON, tempDir } from '../fixtures/paths';

/** Sandbox directories owned by this process (one-shot children get owner tags that start with its pid). */
const sandboxDirs = (): string[] => fs.readdirSync(os.tmpdir()).filter((entry) => entry.startsWith(`peagen-sbx-${process.pid}-`));

describe('engine in one-shot mode (bwrap sandboxes)', function () {
  this.timeout(60_000);
  let engine: Engine;
  const workspace = tempDir('engine-one-shot');

  before(async () => {
    const config = ConfigSchema.parse({ worker: { mode: 'one-shot', concurrency: 1 }, sandbox: { executor: 'bwrap' } });
    engine = await assembleEngine(config, { oneShotEntry: DAEMON, log: () => {} });
  });
  after(async () => {
    await engine.stop({ drain: false });
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('removes the sandbox of a one-shot child that was killed while its command ran', async () => {
    const before = sandboxDirs();
    const task = await engine.submit({ kind: 'execute', payload: { command: ['sleep', '60'], workspace } });
    // Cancel once the child's sandbox exists: the command is running inside it. A loaded
    // machine can take many seconds to start the child (a node process, then bubblewrap).
    for (let i = 0; i < 800 && sandboxDirs().filter((dir) => !before.includes(dir)).length === 0; i++) await delay(50);
    if (sandboxDirs().filter((dir) => !before.includes(dir)).length === 0) {
      // Say what became of the task, so a failure here tells a slow start from a child that died.
      const result = await engine.result(task.id, 1000);
      assert.fail(`no sandbox with an owner tag of this process appeared in 40 s: the engine must give each one-shot child its own tag, to reclaim what the child leaves (the task: ${result ? JSON.stringify(result).slice(0, 2000) : 'no result yet'})`);
    }
    assert.equal(await engine.cancel(task.id), true);
    const result = await engine.result(task.id, 30_000);
    assert.equal(result?.error?.code, 'cancelled', JSON.stringify(result));
    assert.deepEqual(sandboxDirs().filter((dir) => !before.includes(dir)), []);
  });
});
