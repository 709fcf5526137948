/**
 * The warm spawner with real child processes: one-shot workers made ahead of their tasks,
 * following the queue's depth up to the maximum, scaling to zero when idle and coming back
 * when work arrives. The spawner runs in this process on a memory queue; its workers are
 * counted both by its own status and by /proc (children of this process running the entry).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ConfigSchema, type PeagenConfig } from '../../daemon/config';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { TASK_SECRET_ENV } from '../../daemon/fabric/queue/taskSignature';
import { WarmSpawner, type WarmSpawnerOptions } from '../../daemon/fabric/worker/WarmSpawner';
import { WorkerPool } from '../../daemon/fabric/worker/WorkerPool';
import { createRegistry } from '../../daemon/handlers';
import type { ExecutionResult } from '../../daemon/sandbox/Executor';
import { newSandboxOwner, SANDBOX_OWNER_ENV } from '../../daemon/sandbox/owner';
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import { newTask, type Result, type Task } from '../../shared/task';
import { CLI, DAEMON, TEST_PLUGIN, tempDir } from '../fixtures/paths';

/** Live children of `parent` that run a one-shot worker (zombies have no command line). */
function oneShotChildrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent) continue;
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('daemon.js')) continue;
      if (!fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes('PEAGEN_ONE_SHOT=1')) continue;
      found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found.sort((a, b) => a - b);
}

function environOf(pid: number): Record<string, string> {
  return Object.fromEntries(
    fs
      .readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
async function waitFor(what: string, condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) assert.fail(`timed out waiting for ${what}`);
    await delay(20);
  }
}

function parentConfig(plugins = [TEST_PLUGIN]): PeagenConfig {
  return ConfigSchema.parse({ worker: { mode: 'one-shot', plugins }, sandbox: { executor: 'process' } });
}

describe('warm spawner (real one-shot processes, memory queue)', function () {
  this.timeout(120_000);
  let queue: MemoryQueue;
  let spawner: WarmSpawner | undefined;
  const executor = new ProcessExecutor(() => {});
  /** Owner tags given to children, and those whose sandboxes were reclaimed. */
  let owners: string[];
  let reclaimed: string[];

  function startSpawner(options: Partial<WarmSpawnerOptions> & Pick<WarmSpawnerOptions, 'warmPool' | 'maxWorkers' | 'exitAfterIdleMs'>): WarmSpawner {
    spawner = new WarmSpawner({
      queue,
      registry: createRegistry([TEST_PLUGIN], executor),
      caps: ['cpu'],
      entry: DAEMON,
      config: parentConfig(),
      childScope: () => {
        const owner = newSandboxOwner();
        owners.push(owner);
        return {
          env: { [SANDBOX_OWNER_ENV]: owner },
          release: async () => {
            await executor.reclaim(owner);
            reclaimed.push(owner);
          },
        };
      },
      claimBlockMs: 500,
      ...options,
    }).start();
    return spawner;
  }

  beforeEach(() => {
    queue = new MemoryQueue({ retryBaseMs: 20, maxAttempts: 2 });
    owners = [];
    reclaimed = [];
  });
  afterEach(async () => {
    await spawner?.stop({ drain: false });
    spawner = undefined;
    await queue.close();
    await waitFor('every worker process of the test to be gone', () => oneShotChildrenOf(process.pid).length === 0);
  });

  it('has N ready worker processes before any task, and no more', async () => {
    const warm = startSpawner({ warmPool: 2, maxWorkers: 4, exitAfterIdleMs: 60_000 });
    await waitFor('2 ready workers', () => warm.status().ready === 2);
    await delay(500);
    const status = warm.status();
    assert.equal(status.processes, 2);
    assert.equal(status.ready, 2);
    assert.deepEqual(oneShotChildrenOf(process.pid), [...status.pids].sort((a, b) => a - b));
    assert.deepEqual(warm.exitReasons, {});
    assert.deepEqual(await queue.stats(), { pending: 0, inFlight: 0, delayed: 0, dead: 0 }, 'nothing is claimed without a task');
  });

  for (const { warmPool, maxWorkers, burst } of [
    { warmPool: 1, maxWorkers: 3, burst: 6 },
    { warmPool: 1, maxWorkers: 10, burst: 3 },
  ]) {
    const target = Math.min(maxWorkers, burst + warmPool);
    it(`grows to min(M, pending + N) = ${target} for a burst of ${burst} (N=${warmPool}, M=${maxWorkers}), never above`, async () => {
      const warm = startSpawner({ warmPool, maxWorkers, exitAfterIdleMs: 60_000 });
      await waitFor('the warm pool', () => warm.status().ready === warmPool);
      let most = 0;
      let mostInProc = 0;
      let sample = true;
      const sampling = (async () => {
        while (sample) {
          most = Math.max(most, warm.status().processes);
          mostInProc = Math.max(mostInProc, oneShotChildrenOf(process.pid).length);
          await delay(10);
        }
      })();
      const tasks = Array.from({ length: burst }, () => newTask({ kind: 'sleep', payload: { ms: 1_500 } }));
      for (const task of tasks) await queue.enqueue(task);
      for (const task of tasks) assert.equal((await queue.waitForResult(task.id, 60_000))?.status, 'ok');
      sample = false;
      await sampling;
      assert.equal(most, target, `at most ${target} worker processes, and that many at the peak`);
      assert.ok(mostInProc <= target, `/proc saw ${mostInProc} worker processes at once (limit ${target})`);
      await waitFor(`${burst} completed exits`, () => warm.exitReasons.completed === burst);
    });
  }

  it('runs every task in a fresh process and a fresh sandbox, on a process that was ready before its task', async () => {
    const warm = startSpawner({ warmPool: 2, maxWorkers: 3, exitAfterIdleMs: 60_000 });
    const readyPids = new Set<number>();
    warm.on('ready', (pid) => readyPids.add(pid));
    const workspace = tempDir('warm-fresh');
    fs.writeFileSync(path.join(workspace, 'input.txt'), 'input\n');
    try {
      const results: Result[] = [];
      for (let index = 0; index < 4; index++) {
        const whoami = newTask({ kind: 'whoami' });
        // Each run lists its workspace, then leaves a marker in it and a global in its process.
        const execute = newTask({
          kind: 'execute',
          payload: { command: ['sh', '-c', `ls; touch leftover-${index}`], workspace },
        });
        await queue.enqueue(whoami);
        await queue.enqueue(execute);
        for (const task of [whoami, execute]) {
          const result = await queue.waitForResult(task.id, 30_000);
          assert.equal(result?.status, 'ok', JSON.stringify(result?.error));
          results.push(result);
        }
      }
      const pids = results.filter((_, index) => index % 2 === 0).map((result) => (result.data as { pid: number }).pid);
      assert.equal(new Set(pids).size, pids.length, `every task in its own process: ${pids.join(', ')}`);
      assert.ok(!pids.includes(process.pid));
      for (const pid of pids) assert.ok(readyPids.has(pid), `task ran in ${pid}, which never reported ready ahead of its task`);
      for (const result of results.filter((_, index) => index % 2 === 1)) {
        const listing = (result.data as ExecutionResult).stdout;
        assert.equal(listing, 'input.txt\n', 'the sandbox starts from the workspace alone, with nothing an earlier task left');
      }
      assert.deepEqual(fs.readdirSync(workspace), ['input.txt'], 'the workspace the tasks were given is untouched');
      // The last exit is counted once its process is gone, a moment after its result.
      await waitFor('8 completed exits', () => warm.exitReasons.completed === 8);
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('scales to zero after the idle time, stays there without using the CPU, and comes back when a task is queued', async () => {
    const idleMs = 1_000;
    // The tasks are queued at once: with nothing to do the spawner would go to zero after 1 s.
    const warm = startSpawner({ warmPool: 2, maxWorkers: 4, exitAfterIdleMs: idleMs, recheckMs: 5_000 });
    let lastEnd = 0;
    warm.on('taskEnd', () => (lastEnd = Date.now()));
    const tasks = [newTask({ kind: 'echo' }), newTask({ kind: 'sleep', payload: { ms: 300 } }), newTask({ kind: 'echo' })];
    for (const task of tasks) await queue.enqueue(task);
    for (const task of tasks) assert.equal((await queue.waitForResult(task.id, 30_000))?.status, 'ok');

    await waitFor('zero worker processes', () => oneShotChildrenOf(process.pid).length === 0 && warm.status().processes === 0, 30_000);
    const tookMs = Date.now() - lastEnd;
    console.log(`      scaled to zero ${tookMs} ms after the last task ended (exit-after-idle ${idleMs} ms)`);
    assert.ok(tookMs <= idleMs + 3_000, `zero workers only ${tookMs} ms after the last task (idle limit ${idleMs} ms)`);
    assert.equal(warm.status().scaledToZero, true);

    // An idle window: no worker process appears, and the spawner does (almost) nothing.
    const cpuBefore = process.cpuUsage();
    const windowMs = 2_000;
    const windowEnds = Date.now() + windowMs;
    let seen = 0;
    while (Date.now() < windowEnds) {
      seen = Math.max(seen, oneShotChildrenOf(process.pid).length, warm.status().processes);
      await delay(100);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    console.log(`      idle window: ${cpuMs.toFixed(0)} ms CPU in ${windowMs} ms (this test's /proc sampling included)`);
    assert.equal(seen, 0, 'no worker process while scaled to zero');
    assert.ok(cpuMs < windowMs / 4, `the scaled-down spawner used ${cpuMs} ms of CPU in ${windowMs} ms`);
    assert.ok((warm.exitReasons.idle ?? 0) >= 2, JSON.stringify(warm.exitReasons));

    const scaledUp = once(warm, 'scaledUp');
    const late = newTask({ kind: 'whoami' });
    await queue.enqueue(late);
    await scaledUp;
    const result = await queue.waitForResult(late.id, 30_000);
    assert.equal(result?.status, 'ok', JSON.stringify(result?.error));
    assert.notEqual((result?.data as { pid: number }).pid, process.pid);
    await waitFor('4 completed exits', () => warm.exitReasons.completed === 4);
    await waitFor('zero worker processes again', () => warm.status().processes === 0 && oneShotChildrenOf(process.pid).length === 0, 30_000);
    const record = await warm.stop({ drain: true });
    assert.equal(record.scaledToZero, 2);
  });

  it('records why every worker process ended: completed, crashed, timeout, cancelled, idle and shutdown', async () => {
    const warm = startSpawner({ warmPool: 1, maxWorkers: 3, exitAfterIdleMs: 60_000 });
    const echo = newTask({ kind: 'echo' });
    const crash = newTask({ kind: 'crash' });
    const hangUntilDeadline = newTask({ kind: 'hang', deadline: Date.now() + 3_000 });
    await queue.enqueue(echo);
    await queue.enqueue(crash);
    await queue.enqueue(hangUntilDeadline);
    assert.equal((await queue.waitForResult(echo.id, 30_000))?.status, 'ok');
    assert.equal((await queue.waitForResult(crash.id, 30_000))?.error?.code, 'dead_letter');
    assert.equal((await queue.waitForResult(hangUntilDeadline.id, 30_000))?.error?.code, 'timeout');

    const cancelled = newTask({ kind: 'hang' });
    let started = waitForStart(warm, cancelled);
    await queue.enqueue(cancelled);
    await started;
    assert.equal(await queue.cancel(cancelled.id), true);
    assert.equal((await queue.waitForResult(cancelled.id, 30_000))?.error?.code, 'cancelled');

    const interrupted = newTask({ kind: 'hang' });
    started = waitForStart(warm, interrupted);
    await queue.enqueue(interrupted);
    await started;
    await waitFor('a ready worker beside the running one', () => warm.status().ready >= 1);
    const record = await warm.stop({ drain: false });
    spawner = undefined;
    assert.equal(record.exitReasons.completed, 1);
    assert.equal(record.exitReasons.crashed, 2, 'the crash task ran twice (max attempts 2)');
    assert.equal(record.exitReasons.timeout, 1);
    assert.equal(record.exitReasons.cancelled, 1);
    assert.ok((record.exitReasons.shutdown ?? 0) >= 2, `the running task and the ready worker end with shutdown: ${JSON.stringify(record.exitReasons)}`);
    assert.deepEqual(await queue.stats(), { pending: 1, inFlight: 0, delayed: 0, dead: 1 }, 'the interrupted task is handed back');
    assert.equal(record.tasks.released, 1);
  });

  it('dead-letters a task its gate refuses without handing it to the process, which goes; the next task runs; the task secret never reaches a process', async () => {
    const saved = process.env[TASK_SECRET_ENV];
    process.env[TASK_SECRET_ENV] = 'a-cluster-secret-of-32-characters';
    try {
      const gate = (task: Task) => ((task.payload as { refuse?: boolean }).refuse ? { code: 'isolation_required', message: 'refused by the test gate', retryable: false } : undefined);
      const warm = startSpawner({ warmPool: 1, maxWorkers: 1, exitAfterIdleMs: 60_000, gate });
      await waitFor('a ready worker', () => warm.status().ready === 1);
      for (const pid of oneShotChildrenOf(process.pid)) assert.equal(environOf(pid)[TASK_SECRET_ENV], undefined, 'the secret stays in the parent');
      const refused = newTask({ kind: 'echo', requires: ['cpu'], payload: { refuse: true } });
      await queue.enqueue(refused);
      const result = await queue.waitForResult(refused.id, 30_000);
      assert.equal(result?.error?.code, 'dead_letter');
      assert.deepEqual((await queue.listDead()).map((letter) => letter.reason), ['isolation_required: refused by the test gate']);
      await waitFor('the unused process to go', () => (warm.exitReasons.cancelled ?? 0) === 1);
      const next = newTask({ kind: 'echo', requires: ['cpu'], payload: { message: 'next' } });
      await queue.enqueue(next);
      assert.deepEqual((await queue.waitForResult(next.id, 30_000))?.data, { message: 'next' });
    } finally {
      if (saved === undefined) delete process.env[TASK_SECRET_ENV];
      else process.env[TASK_SECRET_ENV] = saved;
    }
  });

  it('records setup_failed for workers that cannot set up, and backs off instead of forking in a loop', async () => {
    const warm = startSpawner({
      warmPool: 1,
      maxWorkers: 2,
      exitAfterIdleMs: 60_000,
      // A missing plugin is skipped, not fatal; an executor nothing provides is fatal to a worker.
      config: { ...parentConfig(), sandbox: { ...parentConfig().sandbox, executor: 'no-such-executor' } },
      setupRetryMs: 1_000,
    });
    const task = newTask({ kind: 'echo' });
    await queue.enqueue(task);
    await waitFor('a setup failure', () => (warm.exitReasons.setup_failed ?? 0) >= 1);
    await delay(2_500);
    const failures = warm.exitReasons.setup_failed ?? 0;
    // Back-off 1 s, then 2 s: at most a few forks in ~3 s, never dozens.
    assert.ok(failures <= 4, `${failures} setup failures in about 3 s`);
    assert.deepEqual(await queue.stats(), { pending: 1, inFlight: 0, delayed: 0, dead: 0 }, 'the task waits for a worker that can run it; it is never claimed');
  });

  it('replaces a ready worker killed with SIGKILL and reclaims its sandbox by its owner tag', async () => {
    const warm = startSpawner({ warmPool: 2, maxWorkers: 3, exitAfterIdleMs: 60_000 });
    await waitFor('2 ready workers', () => warm.status().ready === 2);
    const [victim] = warm.status().pids;
    assert.ok(victim !== undefined);
    const owner = environOf(victim)[SANDBOX_OWNER_ENV];
    assert.ok(owner && owners.includes(owner), 'each worker process has an owner tag of its own');
    process.kill(victim, 'SIGKILL');
    await waitFor('the crash to be recorded', () => warm.exitReasons.crashed === 1);
    assert.ok(reclaimed.includes(owner), 'the killed worker sandboxes are reclaimed by its tag');
    await waitFor('a replacement', () => warm.status().ready === 2 && !warm.status().pids.includes(victim));
    assert.equal(oneShotChildrenOf(process.pid).length, 2);
    // The pool still works.
    const task = newTask({ kind: 'whoami' });
    await queue.enqueue(task);
    assert.equal((await queue.waitForResult(task.id, 30_000))?.status, 'ok');
  });

  it('measures claim → task start with a warm worker and with a cold fork (printed)', async function () {
    const rounds = 5;
    const warmLatencies: number[] = [];
    const warm = startSpawner({ warmPool: 1, maxWorkers: 2, exitAfterIdleMs: 60_000 });
    for (let round = 0; round < rounds; round++) {
      await waitFor('a ready worker', () => warm.status().ready >= 1);
      warmLatencies.push(await claimToStart(warm, queue));
    }
    await warm.stop({ drain: true });
    spawner = undefined;

    const coldLatencies: number[] = [];
    const pool = new WorkerPool({
      queue,
      registry: createRegistry([TEST_PLUGIN], executor),
      caps: ['cpu'],
      concurrency: 1,
      mode: 'one-shot',
      oneShotEntry: DAEMON,
      config: parentConfig(),
      claimBlockMs: 200,
    }).start();
    try {
      for (let round = 0; round < rounds; round++) coldLatencies.push(await claimToStart(pool, queue));
    } finally {
      await pool.stop({ drain: true });
    }
    const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
    console.log(`      claim → handler start, median of ${rounds}: warm ${median(warmLatencies)} ms [${warmLatencies.join(', ')}], cold fork ${median(coldLatencies)} ms [${coldLatencies.join(', ')}]`);
    this.test!.title += ` [warm ${median(warmLatencies)} ms, cold ${median(coldLatencies)} ms]`;
  });
});

function waitForStart(worker: WarmSpawner, task: Task): Promise<void> {
  return new Promise((resolve) => {
    const listener = (started: Task): void => {
      if (started.id !== task.id) return;
      worker.off('taskStart', listener);
      resolve();
    };
    worker.on('taskStart', listener);
  });
}

/** Milliseconds from the claim (the worker's taskStart) to the handler's start in the child. */
async function claimToStart(worker: WarmSpawner | WorkerPool, queue: MemoryQueue): Promise<number> {
  const task = newTask({ kind: 'whoami' });
  let claimedAt = 0;
  const listener = (started: Task): void => {
    if (started.id === task.id) claimedAt = Date.now();
  };
  (worker as WarmSpawner).on('taskStart', listener);
  await queue.enqueue(task);
  const result = await queue.waitForResult(task.id, 30_000);
  (worker as WarmSpawner).off('taskStart', listener);
  assert.equal(result?.status, 'ok');
  return Date.parse(result.startedAt!) - claimedAt;
}

describe('peagen worker start --warm-pool (the CLI)', function () {
  this.timeout(60_000);

  const run = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, QUEUE_URL: 'memory://' }, cwd: tempDir('warm-cli') });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });

  for (const [args, message] of [
    [['--warm-pool', '0'], /--warm-pool must be at least 1/],
    [['--warm-pool', '3', '--max-workers', '2'], /--max-workers \(2\) must be at least --warm-pool \(3\)/],
    [['--warm-pool', '2', '--max-workers', '0'], /--max-workers must be at least 1/],
    [['--warm-pool', '2', '--exit-after-idle', '0'], /--exit-after-idle must be at least 1/],
    [['--max-workers', '4'], /--max-workers applies to the warm spawner/],
    [['--warm-pool', '2', '--mode', 'in-process'], /cannot be combined with --mode in-process/],
  ] as const) {
    it(`refuses ${args.join(' ')} with exit code 2`, async () => {
      const { code, stderr } = await run(['worker', 'start', ...args]);
      assert.equal(code, 2, stderr);
      assert.match(stderr, message);
    });
  }

  it('documents the warm spawner in --help', async () => {
    const { code, stdout } = await run(['worker', 'start', '--help']);
    assert.equal(code, 0);
    assert.match(stdout, /--warm-pool <n>/);
    assert.match(stdout, /--max-workers <m>/);
    assert.match(stdout, /scale to zero/);
  });

  it('keeps the warm workers, scales them to zero when idle, and prints every exit reason as JSON when stopped', async () => {
    const child = spawn(process.execPath, [CLI, 'worker', 'start', '--warm-pool', '2', '--max-workers', '3', '--exit-after-idle', '2', '--json'], {
      env: { ...process.env, QUEUE_URL: 'memory://', PEAGEN_EXECUTOR: 'process' },
      cwd: tempDir('warm-cli'),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit');
    try {
      await waitFor(`2 warm workers under the CLI (stderr: ${stderr})`, () => oneShotChildrenOf(child.pid!).length === 2, 30_000);
      await waitFor(`zero workers under the CLI (stderr: ${stderr})`, () => /scaling to zero/.test(stderr) && oneShotChildrenOf(child.pid!).length === 0, 30_000);
      assert.ok(child.exitCode === null, 'the spawner itself stays running at zero workers');
    } finally {
      child.kill('SIGINT');
    }
    const [code] = await exited;
    assert.equal(code, 0, stderr);
    const record = JSON.parse(stdout) as { stopped: boolean; reason: string; exitReasons: Record<string, number>; scaledToZero: number };
    assert.equal(record.reason, 'interrupted');
    assert.deepEqual(record.exitReasons, { idle: 2 });
    assert.equal(record.scaledToZero, 1);
  });
});
