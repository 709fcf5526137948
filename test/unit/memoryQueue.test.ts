import * as assert from 'node:assert/strict';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import type { Acceptor } from '../../daemon/fabric/queue/TaskQueue';
import { newTask, type Task } from '../../shared/task';
import { describeTaskQueueConformance } from '../conformance/taskQueue';

describeTaskQueueConformance('MemoryQueue', async (options) => ({ queue: new MemoryQueue(options) }));

describe('MemoryQueue memory bounds', () => {
  const ECHO: Acceptor[] = [{ kind: 'echo', provides: [] }];
  const MiB = 1024 * 1024;

  async function finish(queue: MemoryQueue, output: string): Promise<Task> {
    const task = newTask({ kind: 'echo' });
    await queue.enqueue(task);
    const claim = await queue.claim({ consumer: 'w', accepts: ECHO, blockMs: 1_000 });
    assert.ok(claim);
    assert.equal(await queue.ack(claim, { taskId: task.id, status: 'ok', data: { output }, attempts: 1 }), true);
    return task;
  }

  async function bury(queue: MemoryQueue, payloadBytes: number): Promise<Task> {
    const task = newTask({ kind: 'echo', payload: { blob: 'd'.repeat(payloadBytes) } });
    await queue.enqueue(task);
    const claim = await queue.claim({ consumer: 'w', accepts: ECHO, blockMs: 1_000 });
    assert.ok(claim);
    assert.equal(await queue.fail(claim, { code: 'invalid', message: 'bad', retryable: false }), 'dead');
    return task;
  }

  it('keeps results within their byte budget, dropping the oldest first', async () => {
    const queue = new MemoryQueue({ maxResultBytes: 5 * MiB });
    const tasks: Task[] = [];
    // Ten results of 1 MiB each: only about the five newest fit.
    for (let i = 0; i < 10; i++) tasks.push(await finish(queue, String(i).repeat(MiB)));
    const kept = [];
    for (const task of tasks) kept.push((await queue.getResult(task.id)) !== null);
    assert.deepEqual(kept, [false, false, false, false, false, false, true, true, true, true]);
    assert.equal(((await queue.getResult(tasks[9]!.id))?.data as { output: string }).output.length, MiB, 'a kept result is whole');
    await queue.close();
  });

  it('keeps the newest result even when it alone exceeds the budget', async () => {
    const queue = new MemoryQueue({ maxResultBytes: MiB });
    const small = await finish(queue, 'small');
    const big = await finish(queue, 'b'.repeat(2 * MiB));
    assert.equal(await queue.getResult(small.id), null);
    assert.notEqual(await queue.getResult(big.id), null);
    await queue.close();
  });

  it('keeps dead letters within their byte budget, dropping the oldest first', async () => {
    const queue = new MemoryQueue({ maxDeadLetterBytes: 3 * MiB });
    const tasks: Task[] = [];
    for (let i = 0; i < 6; i++) tasks.push(await bury(queue, MiB));
    const dead = await queue.listDead();
    assert.deepEqual(
      dead.map((letter) => letter.task.id),
      tasks.slice(4).map((task) => task.id),
    );
    assert.equal((await queue.stats()).dead, 2);
    await queue.close();
  });

  it('bounds results by default: 100 results of 1 MiB keep no more than 64 MiB', async () => {
    const queue = new MemoryQueue();
    const tasks: Task[] = [];
    const output = 'o'.repeat(MiB);
    for (let i = 0; i < 100; i++) tasks.push(await finish(queue, output));
    let kept = 0;
    for (const task of tasks) if (await queue.getResult(task.id)) kept++;
    assert.ok(kept > 0 && kept <= 64, `kept ${kept} results of 1 MiB`);
    assert.notEqual(await queue.getResult(tasks[99]!.id), null, 'the newest is kept');
    await queue.close();
  });
});
