/**
 * Prepared (warm) bwrap sandboxes against the real bubblewrap and cgroups: the whole executor
 * conformance suite and both isolation suites with every run made in a sandbox prepared for
 * it (warmEveryRun), then PreparedFirstExecutor, and a one-shot child SIGKILLed while it
 * holds a prepared sandbox.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BwrapExecutor } from '../../daemon/sandbox/bwrap/BwrapExecutor';
import { openCgroups } from '../../daemon/sandbox/cgroup';
import { newSandboxOwner, SANDBOX_OWNER_ENV } from '../../daemon/sandbox/owner';
import { PreparedFirstExecutor } from '../../daemon/sandbox/warm/PreparedFirstExecutor';
import { describeExecutorConformance, hostProcessesWith, leftoversOf, warmEveryRun } from '../conformance/executor';
import { describeHostileCandidates, describeIsolationStress } from '../conformance/isolation';
import { REPO } from '../fixtures/paths';

const limitsPids = openCgroups().ok || process.getuid?.() !== 0;
const warm = async (): Promise<ReturnType<typeof warmEveryRun>> => warmEveryRun(new BwrapExecutor());

describeExecutorConformance('bwrap, every run prepared', warm, { isolates: true, limitsMemory: true, limitsPids });
describeIsolationStress('bwrap, every run prepared', warm, { tasks: 100 });
describeHostileCandidates('bwrap, every run prepared', warm, { isolates: true, limitsMemory: true, limitsPids });

describe('PreparedFirstExecutor (bwrap)', function () {
  this.timeout(60_000);
  const executor = new BwrapExecutor();
  let harness: string;

  before(() => {
    harness = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-harness-'));
    fs.writeFileSync(path.join(harness, 'evaluate.py'), 'import sys\nprint("score", open(sys.argv[1]).read())\n');
  });
  after(async () => {
    await executor.close();
    fs.rmSync(harness, { recursive: true, force: true });
  });

  it('runs the first task in the prepared sandbox and the next ones cold, with the same answers', async () => {
    const sandboxes = new PreparedFirstExecutor(executor, await executor.prepare({ mountPoints: ['/harness'] }));
    const request = { command: ['python3', '/harness/evaluate.py', '/workspace/program.txt'], files: { 'program.txt': '42' }, mounts: [{ hostPath: harness, sandboxPath: '/harness' }], cwd: '/harness' };
    const first = await sandboxes.run(request);
    const second = await sandboxes.run(request);
    assert.deepEqual([sandboxes.warmRuns, sandboxes.coldRuns], [1, 1]);
    for (const result of [first, second]) {
      assert.equal(result.exitCode, 0, result.stderr);
      assert.equal(result.stdout, 'score 42\n');
      assert.equal('warm' in result, false);
    }
    await sandboxes.close();
  });

  it('runs a first task that does not fit cold, and close() discards a prepared sandbox no task took', async () => {
    const owner = newSandboxOwner();
    const saved = process.env[SANDBOX_OWNER_ENV];
    process.env[SANDBOX_OWNER_ENV] = owner;
    let unfit: PreparedFirstExecutor;
    let untaken: PreparedFirstExecutor;
    try {
      unfit = new PreparedFirstExecutor(executor, await executor.prepare({ mountPoints: ['/harness'] }));
      untaken = new PreparedFirstExecutor(executor, await executor.prepare());
    } finally {
      if (saved === undefined) delete process.env[SANDBOX_OWNER_ENV];
      else process.env[SANDBOX_OWNER_ENV] = saved;
    }
    const result = await unfit.run({ command: ['sh', '-c', 'echo cold'] });
    assert.equal(result.stdout, 'cold\n');
    assert.deepEqual([unfit.warmRuns, unfit.coldRuns], [0, 1]);
    assert.notDeepEqual(await leftoversOf(owner, {}), []);
    await untaken.close();
    assert.deepEqual(await leftoversOf(owner, {}), []);
    assert.deepEqual(hostProcessesWith(owner), []);
  });

  it('a one-shot child SIGKILLed while it holds a prepared sandbox leaves nothing once its parent reclaims', async () => {
    const owner = newSandboxOwner();
    const script = `
      const { BwrapExecutor } = require(${JSON.stringify(path.join(REPO, 'out', 'daemon', 'sandbox', 'bwrap', 'BwrapExecutor.js'))});
      new BwrapExecutor().prepare({ mountPoints: ['/harness'] }).then(() => console.log('prepared'));
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, [SANDBOX_OWNER_ENV]: owner }, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('prepared') && resolve());
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it prepared a sandbox`)));
    });
    assert.notDeepEqual(await leftoversOf(owner, {}), []);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    await executor.reclaim(owner);
    const giveUpAt = Date.now() + 10_000;
    while (hostProcessesWith(owner).length > 0 && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(hostProcessesWith(owner), []);
    assert.deepEqual(await leftoversOf(owner, {}), []);
  });
});
