/**
 * CallCoalescer: the calls of one event-loop turn become one batch call (the Redis adapter's
 * acks), each caller gets its own answer, and a failed batch fails exactly its calls.
 */
import * as assert from 'node:assert/strict';
import { CallCoalescer } from '../../daemon/fabric/queue/redis/CallCoalescer';

describe('CallCoalescer (one script call for the acks of one turn)', () => {
  it('sends the calls of one turn as one batch and answers each caller with its own item', async () => {
    const batches: number[][] = [];
    const doubler = new CallCoalescer<number, number>(async (items) => {
      batches.push(items);
      return items.map((item) => item * 2);
    });
    const answers = await Promise.all([1, 2, 3].map((item) => doubler.call(item)));
    assert.deepEqual(answers, [2, 4, 6]);
    assert.deepEqual(batches, [[1, 2, 3]]);
    assert.equal(await doubler.call(5), 10);
    assert.deepEqual(batches, [[1, 2, 3], [5]]);
  });

  it('closes a batch before it would pass its weight bound (a large item goes alone)', async () => {
    const batches: string[][] = [];
    const echo = new CallCoalescer<string, string>(
      async (items) => {
        batches.push(items);
        return items;
      },
      (item) => item.length,
      10,
    );
    await Promise.all(['aaaa', 'bbbb', 'c'.repeat(20), 'dd'].map((item) => echo.call(item)));
    assert.deepEqual(batches, [['aaaa', 'bbbb'], ['c'.repeat(20)], ['dd']]);
  });

  it('fails every call of a failed batch, and only those', async () => {
    let fail = true;
    const flaky = new CallCoalescer<number, number>(async (items) => {
      if (fail) throw new Error('connection lost');
      return items;
    });
    const failed = [flaky.call(1), flaky.call(2)];
    for (const call of failed) await assert.rejects(call, /connection lost/);
    fail = false;
    assert.equal(await flaky.call(3), 3);
  });
});
