import * as assert from 'node:assert/strict';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { newTask } from '../../shared/task';

describe('MemoryQueue waitForResult', () => {
  it('is answered by a result published just after it was called', async () => {
    const queue = new MemoryQueue();
    const task = newTask({ kind: 'echo' });
    await queue.enqueue(task);
    const claim = await queue.claim({ consumer: 'w', accepts: [{ kind: 'echo', provides: [] }], blockMs: 1_000 });
    assert.ok(claim);
    // The ack publishes synchronously, before the waiter's first await has returned: a waiter
    // that registered its listener only after that await slept through the result.
    const waiting = queue.waitForResult(task.id, 20_000);
    void queue.ack(claim, { taskId: task.id, status: 'ok', data: 'done', attempts: 1 });
    const result = await Promise.race([waiting, new Promise<'missed'>((resolve) => setTimeout(() => resolve('missed'), 10_000).unref())]);
    assert.ok(result !== 'missed', 'the waiter missed the result');
    assert.equal(result?.data, 'done');
    await queue.close();
  });
});
