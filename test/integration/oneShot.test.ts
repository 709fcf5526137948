import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigSchema, type PeagenConfig } from '../../daemon/config';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { runOneShot } from '../../daemon/fabric/worker/oneShot';
import { WorkerPool } from '../../daemon/fabric/worker/WorkerPool';
import { createRegistry } from '../../daemon/handlers';
import type { ExecutionResult } from '../../daemon/sandbox/Executor';
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import { newTask } from '../../shared/task';
import { DAEMON, TEST_PLUGIN, tempDir } from '../fixtures/paths';

/**
 * The parent's configuration, deliberately unlike the defaults: the test plugin is listed
 * only here (not in WORKER_PLUGINS), and the sandbox executor is fixed instead of `auto`.
 */
function parentConfig(): PeagenConfig {
  return ConfigSchema.parse({ worker: { mode: 'one-shot', plugins: [TEST_PLUGIN] }, sandbox: { executor: 'process' } });
}

describe('one-shot workers (a fresh process per task)', function () {
  this.timeout(30_000);
  let queue: MemoryQueue;
  let worker: WorkerPool;
  /** What the children sent beside their outcomes (the daemon's child sends its sandbox timings). */
  let reports: unknown[];

  beforeEach(() => {
    reports = [];
    queue = new MemoryQueue({ retryBaseMs: 20, maxAttempts: 2 });
    worker = new WorkerPool({
      queue,
      registry: createRegistry([TEST_PLUGIN], new ProcessExecutor(() => {})),
      caps: ['cpu'],
      concurrency: 2,
      mode: 'one-shot',
      oneShotEntry: DAEMON,
      config: parentConfig(),
      claimBlockMs: 100,
      childReport: { take: () => undefined, receive: (report) => reports.push(report) },
    }).start();
  });
  afterEach(async () => {
    await worker.stop({ drain: false });
    await queue.close();
  });

  it('runs each task in its own process and records a completed exit', async () => {
    const first = newTask({ kind: 'whoami' });
    const second = newTask({ kind: 'whoami' });
    await queue.enqueue(first);
    await queue.enqueue(second);
    const a = await queue.waitForResult(first.id, 20_000);
    const b = await queue.waitForResult(second.id, 20_000);
    assert.equal(a?.status, 'ok', JSON.stringify(a?.error));
    const pidA = (a?.data as { pid: number }).pid;
    const pidB = (b?.data as { pid: number }).pid;
    assert.notEqual(pidA, process.pid, 'the task must not run in the worker process');
    assert.notEqual(pidA, pidB, 'each task gets a fresh process');
    assert.equal(worker.exitReasons.completed, 2);
  });

  it("builds the child's handlers from the parent's resolved configuration, not from defaults", async () => {
    // `whoami` exists only in the plugin the parent's configuration lists; the sandbox
    // executor is `process` only because the parent's configuration says so (the default
    // `auto` picks docker or bubblewrap where they work).
    const workspace = tempDir('oneshot-config');
    fs.writeFileSync(path.join(workspace, 'marker.txt'), 'x');
    try {
      const whoami = newTask({ kind: 'whoami' });
      const execute = newTask({ kind: 'execute', payload: { command: ['true'], workspace } });
      await queue.enqueue(whoami);
      await queue.enqueue(execute);
      const plugin = await queue.waitForResult(whoami.id, 20_000);
      assert.equal(plugin?.status, 'ok', `the plugin from the parent's configuration must be loaded: ${JSON.stringify(plugin?.error)}`);
      const executed = await queue.waitForResult(execute.id, 20_000);
      assert.equal(executed?.status, 'ok', JSON.stringify(executed?.error));
      assert.equal((executed?.data as ExecutionResult).executor, 'process');
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("hands the child's sandbox timings to the parent, which serves /metrics", async () => {
    const workspace = tempDir('oneshot-timings');
    try {
      const execute = newTask({ kind: 'execute', payload: { command: ['true'], workspace } });
      await queue.enqueue(execute);
      assert.equal((await queue.waitForResult(execute.id, 20_000))?.status, 'ok');
      // The result is published once the child has answered, so its report is in by now.
      assert.equal(reports.length, 1);
      const timings = reports[0] as { executor: string; startSeconds: number; runSeconds: number }[];
      assert.equal(timings.length, 1, JSON.stringify(reports));
      assert.equal(timings[0]?.executor, 'process');
      assert.ok(timings[0].startSeconds >= 0 && timings[0].runSeconds >= 0, JSON.stringify(timings));
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('records a crash, retries the task, and dead-letters it when it crashes every time', async () => {
    const task = newTask({ kind: 'crash' });
    await queue.enqueue(task);
    const result = await queue.waitForResult(task.id, 20_000);
    assert.equal(result?.error?.code, 'dead_letter');
    assert.match(result?.error?.message ?? '', /exited with code 3/);
    assert.equal(worker.exitReasons.crashed, 2);
  });

  it('kills a task that ignores its deadline and records a timeout', async () => {
    const task = newTask({ kind: 'hang', deadline: Date.now() + 1_500 });
    await queue.enqueue(task);
    const result = await queue.waitForResult(task.id, 20_000);
    assert.equal(result?.status, 'error');
    assert.equal(result?.error?.code, 'timeout');
    assert.equal(worker.exitReasons.timeout, 1);
  });

  it('kills a task cancelled through the queue and records the cancellation', async () => {
    const task = newTask({ kind: 'hang' });
    const started = once(worker, 'taskStart');
    await queue.enqueue(task);
    await started;
    assert.equal(await queue.cancel(task.id), true);
    const result = await queue.waitForResult(task.id, 20_000);
    assert.equal(result?.status, 'skip');
    assert.equal(result?.error?.code, 'cancelled');
    assert.equal(worker.exitReasons.cancelled, 1);
  });
});

describe('one-shot workers that cannot start', function () {
  this.timeout(30_000);

  it('answers a process that could not be spawned as a crash instead of waiting for an exit that never comes', async () => {
    const run = runOneShot(newTask({ kind: 'echo' }), {
      entry: DAEMON,
      execPath: '/nonexistent/node',
      config: parentConfig(),
      workerId: 'w',
      signal: new AbortController().signal,
    });
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([run, new Promise<'no answer'>((resolve) => (timer = setTimeout(() => resolve('no answer'), 20_000)))]);
    clearTimeout(timer);
    assert.notEqual(answered, 'no answer', 'runOneShot must answer');
    if (answered === 'no answer') return;
    assert.equal(answered.exitReason, 'crashed');
    assert.equal(answered.outcome.kind, 'retry');
    if (answered.outcome.kind === 'retry') assert.match(answered.outcome.error.message, /could not be started.*ENOENT/s);
  });

  it('dead-letters the tasks of a pool whose entry script does not exist, keeps its slots and stops', async () => {
    const queue = new MemoryQueue({ retryBaseMs: 20, maxAttempts: 2 });
    const worker = new WorkerPool({
      queue,
      registry: createRegistry(),
      caps: ['cpu'],
      concurrency: 2,
      mode: 'one-shot',
      oneShotEntry: path.join(tempDir('no-entry'), 'missing.js'),
      config: parentConfig(),
      claimBlockMs: 100,
    }).start();
    try {
      const tasks = [newTask({ kind: 'echo' }), newTask({ kind: 'echo' }), newTask({ kind: 'echo' })];
      for (const task of tasks) await queue.enqueue(task);
      for (const task of tasks) assert.equal((await queue.waitForResult(task.id, 20_000))?.error?.code, 'dead_letter');
      assert.equal(worker.exitReasons.crashed, 6, 'every attempt of every task ran and crashed');
      assert.equal(worker.status().busy, 0);
    } finally {
      await worker.stop({ drain: true });
      await queue.close();
    }
  });
});
