/**
 * The Executor contract as a mocha suite, run unchanged by every implementation:
 *
 *   describeExecutorConformance('bwrap', async () => new BwrapExecutor(), { isolates: true, ... });
 *
 * Commands use `sh` and `python3`, which every sandbox image must provide.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ExecutionRequest, Executor, PrepareOptions } from '../../daemon/sandbox/Executor';
import { newSandboxOwner, SANDBOX_OWNER_ENV } from '../../daemon/sandbox/owner';
import { SandboxDir } from '../../daemon/sandbox/sandboxDir';

export interface ExecutorTraits {
  /** Real isolation: read-only mounts, no network, no view of the host's files. */
  isolates: boolean;
  /** Enforces memoryMb and reports stoppedBy 'memory'. */
  limitsMemory: boolean;
  /** Enforces pids and reports stoppedBy 'pids'. */
  limitsPids: boolean;
  /** Resources of `owner` only this executor knows of (e.g. docker containers), by name. */
  ownedResources?: (owner: string) => Promise<string[]>;
  /** prepare() makes real sandboxes ahead (runs that fit say `warm: true`); default: `isolates`. */
  prepares?: boolean;
}

/**
 * The same executor, but every run() goes through a sandbox prepared for exactly that
 * request (`prepare({ mountPoints, limits })`, then `run`), and must be warm: the whole
 * conformance and isolation suites then hold for warm runs too (but for a request with a
 * writable mount, which no prepared sandbox has).
 */
export function warmEveryRun(inner: Executor): Executor {
  return {
    name: inner.name,
    isolates: inner.isolates,
    available: () => inner.available(),
    async run(request) {
      // A prepared sandbox has no writable mount: such a request is always run cold.
      if (request.writableMount) return inner.run(request);
      const prepared = await inner.prepare({ mountPoints: (request.mounts ?? []).map((mount) => mount.sandboxPath), ...(request.limits && { limits: request.limits }) });
      const { warm, ...result } = await prepared.run(request);
      assert.equal(warm, true, `a request that fits its prepared sandbox ran cold: ${JSON.stringify(request.command)}`);
      return result;
    },
    prepare: (options) => inner.prepare(options),
    reclaim: (owner) => inner.reclaim(owner),
    close: () => inner.close(),
  };
}

/** Runs `work` with this process's sandboxes owned by a fresh tag (as a spawner's child would), which it returns. */
export async function asOwner<T>(owner: string, work: () => Promise<T>): Promise<T> {
  const saved = process.env[SANDBOX_OWNER_ENV];
  process.env[SANDBOX_OWNER_ENV] = owner;
  try {
    return await work();
  } finally {
    if (saved === undefined) delete process.env[SANDBOX_OWNER_ENV];
    else process.env[SANDBOX_OWNER_ENV] = saved;
  }
}

/** Extra time a sandbox may take to start and to die, beyond the command's deadline. */
export const KILL_GRACE_MS = 1_000;

export function hostProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** Run cgroups (any hierarchy below /sys/fs/cgroup) whose name carries `owner`'s tag. */
export function cgroupsOf(owner: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      if (entry.name.startsWith(`peagen-${owner}-`)) found.push(path.join(dir, entry.name));
      else if (depth < 6) walk(path.join(dir, entry.name), depth + 1);
    }
  };
  walk('/sys/fs/cgroup', 0);
  return found;
}

/** Everything of `owner`'s on this host that an executor may have left. */
export async function leftoversOf(owner: string, traits: Pick<ExecutorTraits, 'ownedResources'>): Promise<string[]> {
  return [...SandboxDir.owned(owner).map((dir) => dir.root), ...cgroupsOf(owner), ...((await traits.ownedResources?.(owner)) ?? [])];
}

async function waitFor(what: string, ready: () => boolean, ms = 30_000): Promise<void> {
  const giveUpAt = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function describeExecutorConformance(name: string, factory: () => Promise<Executor>, traits: ExecutorTraits): void {
  describe(`Executor conformance: ${name}`, function () {
    this.timeout(60_000);
    let executor: Executor;
    let workspace: string;
    let harness: string;

    before(async () => {
      executor = await factory();
      const availability = await executor.available();
      assert.ok(availability.ok, `executor ${name} is not available: ${availability.ok ? '' : availability.reason}`);
    });
    after(async () => executor?.close());
    beforeEach(() => {
      workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-ws-'));
      fs.writeFileSync(path.join(workspace, 'candidate.txt'), 'original');
      harness = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-harness-'));
      fs.writeFileSync(path.join(harness, 'check.py'), 'import sys\nprint("harness says", sys.argv[1])\n');
    });
    afterEach(() => {
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(harness, { recursive: true, force: true });
    });

    function run(command: string[], extra: Partial<ExecutionRequest> = {}) {
      return executor.run({ command, workspace, ...extra });
    }
    const sh = (script: string, extra: Partial<ExecutionRequest> = {}) => run(['sh', '-c', script], extra);

    it('runs a command and returns its exit code, output and timing', async () => {
      const result = await sh('echo out; echo err >&2; exit 3');
      assert.equal(result.executor, executor.name);
      assert.equal(result.exitCode, 3);
      assert.equal(result.stdout, 'out\n');
      assert.equal(result.stderr, 'err\n');
      assert.equal(result.stoppedBy, undefined);
      assert.ok(result.wallMs >= 0);
    });

    it('passes stdin', async () => {
      assert.equal((await sh('cat', { stdin: 'from stdin' })).stdout, 'from stdin');
    });

    it('gives the command a writable copy of the workspace, never the original', async () => {
      const result = await sh('cat candidate.txt; echo; echo changed > candidate.txt; echo new > made.txt');
      assert.equal(result.exitCode, 0, result.stderr);
      assert.match(result.stdout, /^original\n/);
      assert.equal(fs.readFileSync(path.join(workspace, 'candidate.txt'), 'utf8'), 'original');
      assert.equal(fs.existsSync(path.join(workspace, 'made.txt')), false);
    });

    it('runs trusted files from a read-only mount', async () => {
      const result = await run(['python3', '/harness/check.py', 'hello'], { mounts: [{ hostPath: harness, sandboxPath: '/harness' }] });
      assert.equal(result.exitCode, 0, result.stderr);
      assert.equal(result.stdout, 'harness says hello\n');
    });

    it('lets the command write into its writable mount, whose files stay on the host after the run', async () => {
      const output = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-out-'));
      try {
        // Paths as arguments: the process executor translates arguments, not shell text.
        const result = await run(['sh', '-c', 'mkdir "$1/lib" && echo built > "$1/lib/made.txt" && cat "$2/check.py" > /dev/null', 'sh', '/peagen-out', '/harness'], {
          mounts: [{ hostPath: harness, sandboxPath: '/harness' }],
          writableMount: { hostPath: output, sandboxPath: '/peagen-out' },
        });
        assert.equal(result.exitCode, 0, result.stderr);
        assert.equal(fs.readFileSync(path.join(output, 'lib', 'made.txt'), 'utf8'), 'built\n');
      } finally {
        fs.rmSync(output, { recursive: true, force: true });
      }
    });

    if (traits.isolates) {
      it('keeps read-only mounts read-only beside a writable mount', async () => {
        const output = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-out-'));
        try {
          const result = await sh('echo hacked > /harness/check.py', { mounts: [{ hostPath: harness, sandboxPath: '/harness' }], writableMount: { hostPath: output, sandboxPath: '/peagen-out' } });
          assert.notEqual(result.exitCode, 0);
          assert.match(fs.readFileSync(path.join(harness, 'check.py'), 'utf8'), /harness says/);
        } finally {
          fs.rmSync(output, { recursive: true, force: true });
        }
      });

      it('does not let the command change a read-only mount', async () => {
        const result = await sh('echo hacked > /harness/check.py', { mounts: [{ hostPath: harness, sandboxPath: '/harness' }] });
        assert.notEqual(result.exitCode, 0);
        assert.match(fs.readFileSync(path.join(harness, 'check.py'), 'utf8'), /harness says/);
      });

      it('has no network: a server on the host loopback cannot be reached', async () => {
        let contacted = false;
        const server = net.createServer((socket) => {
          contacted = true;
          socket.destroy();
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const port = (server.address() as net.AddressInfo).port;
        const result = await run([
          'python3',
          '-c',
          `import socket\ntry:\n  socket.create_connection(("127.0.0.1", ${port}), timeout=2)\n  print("connected")\nexcept OSError as e:\n  print("refused", e)`,
        ]);
        server.close();
        assert.match(result.stdout, /refused/);
        assert.equal(contacted, false);
      });

      it("cannot read the host user's files", async () => {
        const secretDir = fs.mkdtempSync(path.join(os.homedir(), '.peagen-secret-'));
        fs.writeFileSync(path.join(secretDir, 'id_rsa'), 'PRIVATE-KEY-MATERIAL');
        try {
          const result = await sh(`cat ${secretDir}/id_rsa; ls ${os.homedir()}`);
          assert.doesNotMatch(result.stdout, /PRIVATE-KEY-MATERIAL/);
          assert.doesNotMatch(result.stdout, /\.peagen-secret-/);
        } finally {
          fs.rmSync(secretDir, { recursive: true, force: true });
        }
      });
    }

    it('passes only allowed environment variables; host secrets stay out', async () => {
      process.env.PEAGEN_CONFORMANCE_SECRET = 'sk-planted-secret';
      try {
        const result = await run(['python3', '-c', 'import os, json; print(json.dumps(dict(os.environ)))'], { env: { ALLOWED: 'yes' } });
        assert.equal(result.exitCode, 0, result.stderr);
        const env = JSON.parse(result.stdout) as Record<string, string>;
        assert.equal(env.ALLOWED, 'yes');
        assert.equal(env.PEAGEN_CONFORMANCE_SECRET, undefined);
        assert.doesNotMatch(result.stdout, /sk-planted-secret/);
        assert.ok(env.HOME, 'HOME is set');
        assert.notEqual(env.HOME, os.homedir());
      } finally {
        delete process.env.PEAGEN_CONFORMANCE_SECRET;
      }
    });

    it('gives each run an empty, writable HOME and TMPDIR of its own', async () => {
      const first = await sh('ls -A "$HOME" "$TMPDIR"; echo x > "$HOME/left"; echo y > "$TMPDIR/left"; echo done');
      assert.equal(first.exitCode, 0, first.stderr);
      const second = await sh('ls -A "$HOME" "$TMPDIR"');
      assert.doesNotMatch(second.stdout, /left/);
    });

    it('kills a command at its deadline, everything it started included', async () => {
      const marker = `peagen-marker-${randomUUID()}`;
      const started = Date.now();
      const result = await run(['python3', '-c', `import subprocess, time\nsubprocess.Popen(["sleep", "300"])\ntime.sleep(300)`, marker], {
        limits: { timeoutMs: 1_000 },
      });
      const elapsed = Date.now() - started;
      assert.equal(result.stoppedBy, 'timeout');
      assert.ok(elapsed < 1_000 + KILL_GRACE_MS + 1_500, `took ${elapsed} ms`);
      assert.deepEqual(hostProcessesWith(marker), []);
    });

    it('kills at the deadline what the command started in a session of its own (setsid)', async () => {
      const marker = `peagen-marker-${randomUUID()}`;
      const escape = `import subprocess, time\nsubprocess.Popen(["python3", "-c", "import time; time.sleep(300)", "${marker}"], start_new_session=True)\ntime.sleep(300)`;
      const result = await run(['python3', '-c', escape], { limits: { timeoutMs: 1_000 } });
      assert.equal(result.stoppedBy, 'timeout');
      assert.deepEqual(hostProcessesWith(marker), []);
    });

    it('leaves no background process behind after a normal exit', async () => {
      const marker = `peagen-marker-${randomUUID()}`;
      const result = await run(['sh', '-c', `python3 -c "import time; time.sleep(300)" ${marker} & echo started`], { limits: { timeoutMs: 10_000 } });
      assert.equal(result.stdout, 'started\n');
      assert.notEqual(result.stoppedBy, 'timeout');
      assert.deepEqual(hostProcessesWith(marker), []);
    });

    it('caps output and stops a command that floods it', async () => {
      const result = await run(['python3', '-c', 'import sys\nwhile True: sys.stdout.write("x" * 65536)'], {
        limits: { outputBytes: 64 * 1024, timeoutMs: 20_000 },
      });
      assert.equal(result.stoppedBy, 'output');
      assert.equal(result.stdoutTruncated, true);
      assert.equal(result.stdout.length, 64 * 1024);
    });

    it('stops a run when its signal aborts', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const result = await sh('sleep 30', { signal: controller.signal, limits: { timeoutMs: 20_000 } });
      assert.equal(result.stoppedBy, 'cancelled');
    });

    if (traits.limitsMemory) {
      it('stops a command that exceeds its memory limit', async () => {
        const result = await run(['python3', '-c', 'x = bytearray(1024 * 1024 * 1024)\nprint(len(x))'], {
          limits: { memoryMb: 128, timeoutMs: 20_000 },
        });
        assert.equal(result.stoppedBy, 'memory');
        assert.notEqual(result.exitCode, 0);
      });
    }

    if (traits.limitsPids) {
      it('stops a command that exceeds its process limit', async () => {
        const result = await sh('i=0; while [ $i -lt 200 ]; do sleep 30 & i=$((i+1)); done; wait', {
          limits: { pids: 32, timeoutMs: 20_000 },
        });
        assert.equal(result.stoppedBy, 'pids');
      });
    }

    describe('prepared sandboxes', () => {
      const warm = traits.prepares ?? traits.isolates;
      const harnessMount = () => [{ hostPath: harness, sandboxPath: '/harness' }];

      it(`runs a task like a cold run, ${warm ? 'warm' : 'cold (this executor prepares nothing ahead)'}`, async () => {
        const script = 'cat candidate.txt; echo; cat given.txt; echo changed > candidate.txt; echo new > made.txt; cat; echo err >&2; exit 3';
        const request = { command: ['sh', '-c', script], workspace, files: { 'given.txt': 'given' }, stdin: 'in' };
        const cold = await executor.run(request);
        const prepared = await executor.prepare();
        assert.equal(prepared.executor, executor.name);
        const { warm: ranWarm, ...result } = await prepared.run(request);
        assert.equal(ranWarm, warm);
        for (const key of ['executor', 'exitCode', 'signal', 'stdout', 'stderr', 'stoppedBy'] as const) assert.deepEqual(result[key], cold[key], key);
        assert.equal(result.stdout, 'original\ngivenin');
        assert.equal(fs.readFileSync(path.join(workspace, 'candidate.txt'), 'utf8'), 'original');
        assert.equal(fs.existsSync(path.join(workspace, 'made.txt')), false);
      });

      it('runs trusted files from a prepared read-only mount, which the task cannot change', async () => {
        const prepared = await executor.prepare({ mountPoints: ['/harness'] });
        const result = await prepared.run({
          command: ['sh', '-c', 'python3 /harness/check.py hi; echo hacked > /harness/check.py; echo hacked > /harness/new.py; ls /harness'],
          workspace,
          mounts: harnessMount(),
          cwd: '/harness',
        });
        assert.equal(result.warm, warm);
        if (traits.isolates) {
          assert.match(result.stdout, /^harness says hi\ncheck\.py\n$/);
          assert.match(fs.readFileSync(path.join(harness, 'check.py'), 'utf8'), /harness says/);
          assert.deepEqual(fs.readdirSync(harness), ['check.py']);
        }
      });

      it('is single-use: a second run, or a run after discard(), is refused', async () => {
        const prepared = await executor.prepare();
        assert.equal((await prepared.run({ command: ['sh', '-c', 'echo once'] })).stdout, 'once\n');
        await assert.rejects(prepared.run({ command: ['sh', '-c', 'echo twice'] }), /one task only/);
        const discarded = await executor.prepare();
        await Promise.all([discarded.discard(), discarded.discard()]);
        await assert.rejects(discarded.run({ command: ['sh', '-c', 'echo late'] }), /one task only/);
      });

      it('never shares state between two prepared sandboxes', async () => {
        const [first, second] = await Promise.all([executor.prepare(), executor.prepare()]);
        const leave = await first.run({ command: ['sh', '-c', 'echo x > left.txt; echo x > "$HOME/left"; echo x > "$TMPDIR/left"; echo done'], workspace });
        assert.equal(leave.stdout, 'done\n', leave.stderr);
        const look = await second.run({ command: ['sh', '-c', 'ls -A . "$HOME" "$TMPDIR"'], workspace });
        assert.equal(look.exitCode, 0, look.stderr);
        assert.doesNotMatch(look.stdout, /left/);
        assert.match(look.stdout, /candidate\.txt/);
      });

      it('counts the deadline from the task start, not from the preparation, and still enforces it', async () => {
        const prepared = await executor.prepare();
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const inTime = await prepared.run({ command: ['sh', '-c', 'sleep 0.2; echo in time'], limits: { timeoutMs: 1_500 } });
        assert.equal(inTime.stoppedBy, undefined);
        assert.equal(inTime.stdout, 'in time\n');
        const late = await executor.prepare();
        const started = Date.now();
        const stopped = await late.run({ command: ['sh', '-c', 'sleep 30'], limits: { timeoutMs: 1_000 } });
        assert.equal(stopped.stoppedBy, 'timeout');
        assert.equal(stopped.warm, warm);
        assert.ok(Date.now() - started < 1_000 + KILL_GRACE_MS + 1_500, `took ${Date.now() - started} ms`);
      });

      it('stops a prepared run when its signal aborts', async () => {
        const prepared = await executor.prepare();
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 300);
        const result = await prepared.run({ command: ['sh', '-c', 'sleep 30'], signal: controller.signal, limits: { timeoutMs: 20_000 } });
        assert.equal(result.stoppedBy, 'cancelled');
      });

      it('runs a request that does not fit (other mounts, a writable mount, memory, pids or network) cold, with the right answer', async () => {
        const cases: Array<[PrepareOptions, Partial<ExecutionRequest>]> = [
          [{ mountPoints: ['/harness'] }, {}],
          [{}, { mounts: harnessMount() }],
          [{ limits: { memoryMb: 256 } }, { limits: { memoryMb: 300 } }],
          [{ limits: { pids: 40 } }, {}],
          [{}, { limits: { network: true } }],
          [{}, { writableMount: { hostPath: harness, sandboxPath: '/peagen-out' } }],
        ];
        for (const [options, extra] of cases) {
          const prepared = await executor.prepare(options);
          const result = await prepared.run({ command: ['sh', '-c', 'cat candidate.txt'], workspace, ...extra });
          assert.equal(result.warm, false, JSON.stringify(options));
          assert.equal(result.stdout, 'original', result.stderr);
        }
        // The deadline and the output caps are not part of the sandbox: they may differ.
        const prepared = await executor.prepare({ limits: { timeoutMs: 5_000, outputBytes: 10 } });
        const fits = await prepared.run({ command: ['sh', '-c', 'echo 0123456789abc'], limits: { timeoutMs: 20_000 } });
        assert.equal(fits.warm, warm);
        assert.equal(fits.stdout, '0123456789abc\n');
      });

      it('discard() and reclaim(owner) remove an unused prepared sandbox: no directory, cgroup, container or process', async () => {
        for (const how of ['discard', 'reclaim'] as const) {
          const owner = newSandboxOwner();
          const prepared = await asOwner(owner, () => executor.prepare({ mountPoints: ['/harness'] }));
          if (warm) assert.notDeepEqual(await leftoversOf(owner, traits), [], 'a prepared sandbox holds something');
          if (how === 'discard') await prepared.discard();
          else await executor.reclaim(owner);
          await waitFor('its processes are gone', () => hostProcessesWith(owner).length === 0);
          assert.deepEqual(await leftoversOf(owner, traits), [], how);
          if (how === 'reclaim') {
            // Its task, should one still come, runs cold and leaves nothing either.
            const result = await prepared.run({ command: ['sh', '-c', 'echo after'], mounts: harnessMount() });
            assert.equal(result.stdout, 'after\n');
            await prepared.discard();
          }
          assert.deepEqual(await leftoversOf(owner, traits), [], `${how}, then its task`);
        }
      });
    });

    it("reclaim(owner) kills a sandbox of that owner mid-run and removes all it holds, and touches no other owner's", async () => {
      // As a one-shot child's parent would after the child's SIGKILL: the run here stands in
      // for the child's, made under the tag the parent gave it.
      const owner = newSandboxOwner();
      const marker = `peagen-marker-${randomUUID()}`;
      const saved = process.env[SANDBOX_OWNER_ENV];
      process.env[SANDBOX_OWNER_ENV] = owner;
      let orphan: Promise<unknown>;
      try {
        orphan = run(['python3', '-c', 'import time; time.sleep(300)', marker], { limits: { timeoutMs: 60_000 } }).catch((error: unknown) => error);
        await waitFor('the sandbox runs', () => hostProcessesWith(marker).length > 0 && SandboxDir.owned(owner).length > 0);
      } finally {
        if (saved === undefined) delete process.env[SANDBOX_OWNER_ENV];
        else process.env[SANDBOX_OWNER_ENV] = saved;
      }
      const neighbour = sh('sleep 1; cat candidate.txt', { limits: { timeoutMs: 30_000 } });
      await executor.reclaim(owner);
      assert.deepEqual(hostProcessesWith(marker), [], 'the sandbox still runs');
      assert.deepEqual(await leftoversOf(owner, traits), []);
      await orphan;
      assert.deepEqual(await leftoversOf(owner, traits), [], 'the interrupted run recreated something');
      const other = await neighbour;
      assert.equal(other.exitCode, 0, other.stderr);
      assert.equal(other.stdout, 'original');
    });

    it('reclaim(owner) with nothing left is a no-op; anything but an owner tag is refused', async () => {
      await executor.reclaim(newSandboxOwner());
      await assert.rejects(executor.reclaim('../../etc'), /not a sandbox owner tag/);
      await assert.rejects(executor.reclaim('*'), /not a sandbox owner tag/);
    });

    it('close() is idempotent, waits for a run in progress, and the executor runs again afterwards', async () => {
      const running = sh('sleep 0.5; echo finished', { limits: { timeoutMs: 30_000 } });
      await Promise.all([executor.close(), executor.close()]);
      const result = await running;
      assert.equal(result.exitCode, 0, result.stderr);
      assert.equal(result.stdout, 'finished\n');
      await executor.close();
      assert.ok((await executor.available()).ok);
      const again = await sh('echo again');
      assert.equal(again.stdout, 'again\n', again.stderr);
    });

    it('cleans up its sandbox directory', async () => {
      // A private TMPDIR, so that sandboxes of other processes on this machine do not count.
      const saved = process.env.TMPDIR;
      const privateTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-cleanup-'));
      process.env.TMPDIR = privateTmp;
      try {
        const result = await sh('echo hi > file');
        assert.equal(result.exitCode, 0, result.stderr);
        assert.deepEqual(fs.readdirSync(privateTmp).filter((entry) => entry.startsWith('peagen-sbx-')), []);
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
        fs.rmSync(privateTmp, { recursive: true, force: true });
      }
    });
  });
}
