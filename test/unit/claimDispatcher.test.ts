/**
 * The Redis adapter's claim line (ClaimDispatcher) against a fake Redis: a worker's concurrent
 * claims share one blocking read and one script call, every lease reaches the claim it was
 * made for, and aborts, timeouts and failures answer the claims they concern.
 */
import * as assert from 'node:assert/strict';
import { ClaimDispatcher, type ClaimBatch, type ClaimPort, type LeasedEntry } from '../../daemon/fabric/queue/redis/ClaimDispatcher';
import type { Claim } from '../../daemon/fabric/queue/TaskQueue';
import { newTask } from '../../shared/task';

/** Streams as a list of waiting entries; records every script call and blocking read. */
class FakeRedis implements ClaimPort {
  readonly waitingEntries: LeasedEntry[] = [];
  readonly calls: string[][] = [];
  readonly buried: string[] = [];
  readsInProgress = 0;
  maxReadsAtOnce = 0;
  /** Set to hold the next script call until `release()` is called. */
  holdNextCall = false;
  failNextCall: Error | undefined;
  private releaseHeld: (() => void) | undefined;
  private wakeReaders = new Set<() => void>();
  closed = false;

  add(taskId: string, valid = true): void {
    const task = newTask({ kind: 'echo', payload: { n: 1 } });
    this.waitingEntries.push({ entryId: `${this.waitingEntries.length}-0`, taskJson: valid ? JSON.stringify({ ...task, id: taskId }) : '{not json', attempts: 0, taskId });
    for (const wake of [...this.wakeReaders]) wake();
  }

  release(): void {
    this.releaseHeld?.();
  }

  async claimBatch(consumers: readonly string[]): Promise<ClaimBatch> {
    this.calls.push([...consumers]);
    if (this.holdNextCall) {
      this.holdNextCall = false;
      await new Promise<void>((resolve) => (this.releaseHeld = resolve));
    }
    if (this.failNextCall) {
      const error = this.failNextCall;
      this.failNextCall = undefined;
      throw error;
    }
    const leased = this.waitingEntries.splice(0, consumers.length);
    const batch: ClaimBatch = { leased, sentAt: Date.now() };
    if (leased.length < consumers.length) batch.idle = { wakeInMs: -1, streamsAndIds: ['s', '0-0'] };
    return batch;
  }

  toClaim(entry: LeasedEntry, consumer: string, sentAt: number): Claim | { invalid: string } {
    try {
      const task = JSON.parse(entry.taskJson) as Claim['task'];
      return { task, leaseId: entry.entryId, leaseUntil: sentAt + 60_000, consumer };
    } catch {
      return { invalid: 'malformed' };
    }
  }

  async bury(entry: LeasedEntry): Promise<void> {
    this.buried.push(entry.taskId);
  }

  async waitForEntry(_streamsAndIds: string[], waitMs: number, signal: AbortSignal): Promise<void> {
    this.readsInProgress++;
    this.maxReadsAtOnce = Math.max(this.maxReadsAtOnce, this.readsInProgress);
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeReaders.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      if (this.waitingEntries.length > 0) return done();
      this.wakeReaders.add(done);
      signal.addEventListener('abort', done);
    });
    this.readsInProgress--;
  }

  isClosed(): boolean {
    return this.closed;
  }
}

describe('ClaimDispatcher (the Redis adapter coalescing its claims)', () => {
  let redis: FakeRedis;
  let dispatcher: ClaimDispatcher;
  beforeEach(() => {
    redis = new FakeRedis();
    dispatcher = new ClaimDispatcher(redis, 1_000);
  });
  afterEach(() => {
    redis.closed = true;
    redis.add('wake-up');
  });

  it("fills a pool's free slots with one script call, each task leased to its own claimer's consumer", async () => {
    for (const id of ['a', 'b', 'c']) redis.add(id);
    const claims = await Promise.all(['w/0', 'w/1', 'w/2'].map((consumer) => dispatcher.claim(consumer, 5_000)));
    assert.deepEqual(redis.calls, [['w/0', 'w/1', 'w/2']]);
    assert.deepEqual(
      claims.map((claim) => [claim?.consumer, claim?.task.id]),
      [
        ['w/0', 'a'],
        ['w/1', 'b'],
        ['w/2', 'c'],
      ],
    );
  });

  it('keeps idle claims in one blocking read, and wakes them with one call when tasks arrive', async () => {
    const claims = ['w/0', 'w/1', 'w/2', 'w/3'].map((consumer) => dispatcher.claim(consumer, 5_000));
    while (redis.readsInProgress === 0) await new Promise((resolve) => setImmediate(resolve));
    redis.add('a');
    redis.add('b');
    const [first, second] = await Promise.all(claims.slice(0, 2));
    assert.deepEqual([first?.task.id, second?.task.id], ['a', 'b']);
    assert.equal(redis.maxReadsAtOnce, 1, 'one blocking read for all the idle claims');
    assert.deepEqual(redis.calls.slice(-1), [['w/0', 'w/1', 'w/2', 'w/3']], 'one call leasing for every waiting claim');
    redis.add('c');
    assert.equal((await claims[2])?.task.id, 'c');
  });

  it('answers an aborted claim null at once and goes on serving the others', async () => {
    const stop = new AbortController();
    const aborted = dispatcher.claim('w/0', 60_000, stop.signal);
    const other = dispatcher.claim('w/1', 60_000);
    while (redis.readsInProgress === 0) await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    assert.equal(await aborted, null);
    redis.add('a');
    const claim = await other;
    assert.deepEqual([claim?.consumer, claim?.task.id], ['w/1', 'a']);
  });

  it('gives a claim aborted while its call was out the task leased for it: a lease is never left without its claimer', async () => {
    redis.add('a');
    redis.holdNextCall = true;
    const stop = new AbortController();
    const claim = dispatcher.claim('w/0', 60_000, stop.signal);
    while (redis.calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    redis.release();
    assert.equal((await claim)?.task.id, 'a');
  });

  it('answers null once blockMs has passed and a claim made after that found nothing', async () => {
    assert.equal(await dispatcher.claim('w/0', 20), null);
    assert.ok(redis.calls.length >= 1);
  });

  it('answers a due claim in time when more than one call can lease for are waiting, without a call per turn of the line', async () => {
    // A 64-slot pool and a 70-slot pool in one process: 134 claims in line, one due soon.
    const patient = Array.from({ length: 134 }, (_, slot) => dispatcher.claim(`w/${slot}`, 60_000));
    const due = dispatcher.claim('late/0', 30);
    const answer = await Promise.race([due, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 10_000))]);
    assert.equal(answer, null, 'the due claim is answered null once a claim after its blockMs found nothing');
    assert.ok(redis.calls.length <= 6, `${redis.calls.length} script calls for one timeout: the line is not spun`);
    redis.add('a');
    assert.equal((await patient[0])?.task.id, 'a', 'the claims that keep waiting are still served first come, first served');
    redis.closed = true;
    redis.add('wake-up');
    await Promise.all(patient);
  });

  it('dead-letters a leased entry that holds no valid task and serves its claimer the next one', async () => {
    redis.add('broken', false);
    redis.add('good');
    const claim = await dispatcher.claim('w/0', 5_000);
    assert.equal(claim?.task.id, 'good');
    assert.deepEqual(redis.buried, ['broken']);
  });

  it('fails every waiting claim when Redis fails, and serves later claims again', async () => {
    redis.failNextCall = new Error('connection lost');
    const claims = ['w/0', 'w/1'].map((consumer) => dispatcher.claim(consumer, 5_000));
    for (const claim of claims) await assert.rejects(claim, /connection lost/);
    redis.add('a');
    assert.equal((await dispatcher.claim('w/0', 5_000))?.task.id, 'a');
  });

  it('answers every waiting claim null when the queue closes', async () => {
    const claims = ['w/0', 'w/1'].map((consumer) => dispatcher.claim(consumer, 60_000));
    while (redis.readsInProgress === 0) await new Promise((resolve) => setImmediate(resolve));
    redis.closed = true;
    redis.add('wake-up');
    assert.deepEqual(await Promise.all(claims), [null, null]);
  });
});
