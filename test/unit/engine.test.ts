import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import { ConfigSchema } from '../../daemon/config';
import { Engine } from '../../daemon/engine/Engine';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { WorkerPool } from '../../daemon/fabric/worker/WorkerPool';
import { createRegistry } from '../../daemon/handlers';
import type { TaskUpdate } from '../../shared/protocol';

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Resolves with the updates seen once one for `taskId` reaches `state`. */
function updatesUntil(engine: Engine, taskId: string, state: TaskUpdate.Params['state']): Promise<TaskUpdate.Params[]> {
  const seen: TaskUpdate.Params[] = [];
  return new Promise((resolve) => {
    const onUpdate = (update: TaskUpdate.Params): void => {
      if (update.taskId !== taskId) return;
      seen.push(update);
      if (update.state === state) {
        engine.off('update', onUpdate);
        resolve(seen);
      }
    };
    engine.on('update', onUpdate);
  });
}

describe('Engine task updates and cancel (through the queue)', function () {
  this.timeout(20_000);

  it('reports the states of a task from the queue, without its result', async () => {
    const engine = new Engine(ConfigSchema.parse({ worker: { concurrency: 1 } }), { queue: new MemoryQueue(), registry: createRegistry() });
    try {
      const updates: TaskUpdate.Params[] = [];
      engine.on('update', (update) => updates.push(update));
      const task = await engine.submit({ kind: 'echo', payload: { message: 'x'.repeat(100) } });
      assert.equal((await engine.result(task.id, 10_000))?.status, 'ok');
      await until(() => updates.some((update) => update.taskId === task.id && update.state === 'done'));
      const mine = updates.filter((update) => update.taskId === task.id);
      assert.deepEqual(
        mine.map((update) => [update.state, update.kind, update.attempts]),
        [
          ['queued', 'echo', 0],
          ['running', 'echo', 1],
          ['done', 'echo', 1],
        ],
      );
      assert.ok(
        mine.every((update) => !('result' in update)),
        'updates carry the state; clients fetch results with getResult',
      );
    } finally {
      await engine.stop({ drain: false });
    }
  });

  it('cancels a task that a worker pool it does not own is running', async () => {
    // The engine runs no workers; the pool shares only the queue with it, as a worker in
    // another process would.
    const engine = new Engine(ConfigSchema.parse({}), { queue: new MemoryQueue(), registry: createRegistry() }, { withoutWorkers: true });
    const elsewhere = new WorkerPool({
      queue: engine.queue,
      registry: createRegistry(),
      caps: ['cpu'],
      concurrency: 1,
      mode: 'in-process',
      claimBlockMs: 100,
    }).start();
    try {
      const updates: TaskUpdate.Params[] = [];
      engine.on('update', (update) => updates.push(update));
      const started = once(elsewhere, 'taskStart');
      const task = await engine.submit({ kind: 'sleep', payload: { ms: 60_000 } });
      const cancelled = updatesUntil(engine, task.id, 'cancelled');
      await started;
      assert.equal(await engine.cancel(task.id), true);
      const result = await engine.result(task.id, 10_000);
      assert.equal(result?.status, 'skip');
      assert.equal(result?.error?.code, 'cancelled');
      await cancelled;
      assert.deepEqual(
        updates.filter((update) => update.taskId === task.id).map((update) => update.state),
        ['queued', 'running', 'cancelled'],
      );
      assert.equal(await engine.cancel(task.id), false, 'a finished task cannot be cancelled again');
    } finally {
      await elsewhere.stop({ drain: false });
      await engine.stop({ drain: false });
    }
  });
});
