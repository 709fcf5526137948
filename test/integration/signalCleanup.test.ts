/**
 * Ctrl-C of a process that runs sandboxes itself (the embedded `peagen eval`): Node runs no
 * `finally` and no `exit` handler when a signal ends it, so its SIGINT handler must call
 * reclaimOwnSandboxes() before it exits. A real process, a real sandbox mid-run, a real SIGINT.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cgroupsOf, hostProcessesWith } from '../conformance/executor';
import { REPO } from '../fixtures/paths';

const OUT = path.join(REPO, 'out', 'daemon', 'sandbox');

/** A process that starts a long run and, on SIGINT, does `onSigint` (JS), then exits 130. */
/** The marker comes in the environment: the script's own command line must not carry it. */
function script(executor: 'bwrap' | 'process', onSigint: string): string {
  const make =
    executor === 'bwrap'
      ? `new (require(${JSON.stringify(path.join(OUT, 'bwrap', 'BwrapExecutor.js'))}).BwrapExecutor)()`
      : `new (require(${JSON.stringify(path.join(OUT, 'ProcessExecutor.js'))}).ProcessExecutor)(() => {})`;
  return `
const { reclaimOwnSandboxes } = require(${JSON.stringify(path.join(OUT, 'liveSandboxes.js'))});
const executor = ${make};
process.once('SIGINT', () => { ${onSigint} });
executor.run({ command: ['python3', '-c', 'import time; time.sleep(300)', process.env.MARKER], limits: { timeoutMs: 120000 } });
`;
}

describe('SIGINT of a process running sandboxes (reclaimOwnSandboxes)', function () {
  this.timeout(60_000);
  let tmp: string;
  let child: ChildProcess | undefined;
  let marker: string;

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-sigint-'));
    marker = `peagen-sigint-${randomUUID().slice(0, 8)}`;
  });
  afterEach(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    for (const pid of hostProcessesWith(marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function interrupt(executor: 'bwrap' | 'process', onSigint: string): Promise<{ code: number | null; left: string[]; processes: number[]; cgroups: string[] }> {
    const started = spawn(process.execPath, ['-e', script(executor, onSigint)], { env: { ...process.env, TMPDIR: tmp, MARKER: marker }, stdio: 'ignore' });
    child = started;
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
    const giveUpAt = Date.now() + 30_000;
    while (hostProcessesWith(marker).length === 0) {
      assert.ok(Date.now() < giveUpAt, 'the sandboxed command never started');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    started.kill('SIGINT');
    const code = await exited;
    return {
      code,
      left: fs.readdirSync(tmp).filter((entry) => entry.startsWith('peagen-sbx-')),
      processes: hostProcessesWith(marker),
      cgroups: cgroupsOf(String(started.pid)),
    };
  }

  for (const executor of ['bwrap', 'process'] as const) {
    it(`${executor}: the handler's one call removes the live sandbox: directory, processes, cgroup`, async () => {
      const after = await interrupt(executor, 'void reclaimOwnSandboxes().finally(() => process.exit(130));');
      assert.equal(after.code, 130);
      assert.deepEqual(after.left, []);
      assert.deepEqual(after.processes, []);
      assert.deepEqual(after.cgroups, []);
    });
  }
});
