import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { CLI, REPO, tempDir } from '../fixtures/paths';

/** A running `peagen` process whose stderr we can wait on. */
class CliProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
    this.child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Resolves with the first match of `pattern` on stderr; fails if the process exits first. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const match = this.stderr.match(pattern);
        if (match) resolve(match);
        return match !== null;
      };
      if (check()) return;
      // Registered after the collector above, so it sees each chunk already appended.
      this.child.stderr?.on('data', check);
      void this.exited.then(() => {
        if (!check()) reject(new Error(`exited without printing ${pattern}; stderr:\n${this.stderr}`));
      });
    });
  }
}

const TASK_ID = /task (t-[a-z0-9-]+)/;
// Far longer than any test: if Ctrl-C did not stop it, the test times out.
const LONG_SLEEP = JSON.stringify({ ms: 600_000 });

describe('Ctrl-C on a command that waits for a task (real daemon and CLI processes)', function () {
  this.timeout(60_000);
  const daemon = new DaemonProcess();
  const cwd = tempDir('cli-interrupt');
  const env = { PEAGEN_HOME: daemon.home };
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });

  before(async () => {
    await daemon.start();
  });
  after(async () => {
    if (daemon.child?.pid) process.kill(daemon.child.pid, 'SIGCONT');
    await daemon.stop();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it('`task submit --wait` prints the task id, cancels the task in the daemon on SIGINT and exits 130', async () => {
    const run = new CliProcess(['task', 'submit', 'sleep', '--payload', LONG_SLEEP, '--wait', '600'], env, cwd);
    const [, taskId] = await run.waitForStderr(TASK_ID);
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    assert.equal(code, 130, run.stderr);
    assert.match(run.stderr, new RegExp(`task ${taskId} cancelled`));

    const result = cli('--json', 'task', 'result', taskId!, '--wait', '10');
    const parsed = JSON.parse(result.stdout) as { status: string; error?: { code: string } };
    assert.equal(parsed.error?.code, 'cancelled', result.stdout);
  });

  it('with --json, the interruption is one JSON error document on stdout', async () => {
    const run = new CliProcess(['--json', 'task', 'submit', 'sleep', '--payload', LONG_SLEEP, '--wait', '600'], env, cwd);
    await run.waitForStderr(TASK_ID);
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    assert.equal(code, 130);
    const document = JSON.parse(run.stdout) as { error: { code: string; exitCode: number; message: string } };
    assert.equal(document.error.code, 'interrupted');
    assert.equal(document.error.exitCode, 130);
  });

  it('`task submit --sync` stops its embedded engine without draining and exits 130', async () => {
    const run = new CliProcess(['task', 'submit', 'sleep', '--payload', LONG_SLEEP, '--sync'], env, cwd);
    await run.waitForStderr(/running here/);
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    assert.equal(code, 130, run.stderr);
    assert.match(run.stderr, /interrupted/);
  });

  it('says the task keeps running, with its id and the cancel command, when the daemon cannot cancel it', async () => {
    const run = new CliProcess(['task', 'submit', 'sleep', '--payload', LONG_SLEEP, '--wait', '600'], env, cwd);
    const [, taskId] = await run.waitForStderr(TASK_ID);
    // A daemon that no longer answers (stopped, not dead: the connection stays open).
    const pid = daemon.child?.pid;
    assert.ok(pid);
    process.kill(pid, 'SIGSTOP');
    try {
      run.child.kill('SIGINT');
      const { code } = await run.exited;
      assert.equal(code, 130, `${run.stderr} (signal ${(await run.exited).signal})`);
      assert.match(run.stderr, /keeps running/);
      assert.ok(run.stderr.includes(`peagen task cancel ${taskId}`), run.stderr);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });
});

describe('Ctrl-C on an embedded evaluation', function () {
  this.timeout(120_000);
  const tmp = tempDir('cli-interrupt-tmp');
  const home = tempDir('cli-interrupt-home');
  after(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('leaves no sandbox directory behind', async () => {
    const hangs = path.join(home, 'hangs.py');
    fs.writeFileSync(hangs, 'while True:\n    pass\n');
    // Its own TMPDIR: every sandbox directory of this run lands there, and nothing else does.
    const run = new CliProcess(['eval', path.join(REPO, 'examples', 'bad_sort'), '--program', hangs, '--executor', 'bwrap'], { TMPDIR: tmp, PEAGEN_HOME: home }, home);
    const sandboxes = (): string[] => fs.readdirSync(tmp).filter((entry) => entry.startsWith('peagen-sbx-'));
    // A loaded CI machine can take many seconds to start the CLI and its sandbox: wait for
    // the sandbox itself (up to 90 s), never for a fixed time.
    for (let i = 0; i < 1800 && sandboxes().length === 0 && run.child.exitCode === null; i++) await delay(50);
    if (sandboxes().length === 0) {
      run.child.kill('SIGKILL');
      await run.exited;
      assert.fail(`no sandbox appeared; stderr:\n${run.stderr}`);
    }
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    assert.equal(code, 130, run.stderr);
    assert.deepEqual(fs.readdirSync(tmp).filter((entry) => entry.startsWith('peagen-')), []);
  });
});
