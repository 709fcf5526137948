import * as assert from 'node:assert/strict';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { WorkerPool } from '../../daemon/fabric/worker/WorkerPool';
import { createRegistry } from '../../daemon/handlers';
import { newTask } from '../../shared/task';
import { DAEMON, TEST_PLUGIN } from '../fixtures/paths';

describe('one-shot workers (a fresh process per task)', function () {
  this.timeout(30_000);
  let queue: MemoryQueue;
  let worker: WorkerPool;

  beforeEach(() => {
    queue = new MemoryQueue({ retryBaseMs: 20, maxAttempts: 2 });
    worker = new WorkerPool({
      queue,
      registry: createRegistry([TEST_PLUGIN]),
      caps: ['cpu'],
      concurrency: 2,
      mode: 'one-shot',
      oneShotEntry: DAEMON,
      plugins: [TEST_PLUGIN],
      claimBlockMs: 100,
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
    assert.equal(a?.status, 'ok');
    const pidA = (a?.data as { pid: number }).pid;
    const pidB = (b?.data as { pid: number }).pid;
    assert.notEqual(pidA, process.pid, 'the task must not run in the worker process');
    assert.notEqual(pidA, pidB, 'each task gets a fresh process');
    assert.equal(worker.exitReasons.completed, 2);
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

  it('kills a cancelled task and records the cancellation', async () => {
    const task = newTask({ kind: 'hang' });
    const started = new Promise((resolve) => worker.once('taskStart', resolve));
    await queue.enqueue(task);
    await started;
    assert.equal(worker.cancel(task.id), true);
    const result = await queue.waitForResult(task.id, 20_000);
    assert.equal(result?.status, 'skip');
    assert.equal(worker.exitReasons.cancelled, 1);
  });
});
