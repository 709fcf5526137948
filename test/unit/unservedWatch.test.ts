import * as assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { watchUnservedKinds } from '../../daemon/evolution/controller/unservedWatch';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import type { WorkerRecord } from '../../shared/task';

describe('a daemon without workers watches that some worker serves each kind its runs need', () => {
  const pool = (id: string, record: Partial<WorkerRecord> = {}): WorkerRecord => ({
    id,
    host: 'h',
    pid: 1,
    caps: ['cpu'],
    kinds: ['evaluate', 'mutate'],
    accepts: [
      { kind: 'evaluate', provides: ['cpu'] },
      { kind: 'mutate', provides: ['cpu'] },
    ],
    mode: 'in-process',
    slots: 2,
    busy: 0,
    startedAt: 0,
    seenAt: 0,
    ...record,
  });
  const tasks = [
    { kind: 'evaluate', requires: [] },
    { kind: 'mutate', requires: ['cpu'] },
  ];
  let queue: MemoryQueue;
  let stopWatch: () => void;
  let notices: { runId: string; notice: string | undefined }[];
  let stops: { runId: string; notice: string }[];
  const watch = (waitMs: number): void => {
    stopWatch = watchUnservedKinds({
      directory: queue,
      runs: () => [{ runId: 'r1', tasks }],
      notice: (runId, notice) => notices.push({ runId, notice }),
      stop: (runId, notice) => stops.push({ runId, notice }),
      waitMs,
      intervalMs: 10,
    });
  };
  const until = async (condition: () => boolean, what: string): Promise<void> => {
    for (let i = 0; i < 300 && !condition(); i++) await delay(10);
    assert.ok(condition(), `timed out waiting until ${what}`);
  };
  beforeEach(() => {
    queue = new MemoryQueue();
    notices = [];
    stops = [];
  });
  afterEach(async () => {
    stopWatch();
    await queue.close();
  });

  it('says at once which kind nobody serves, and says it no longer waits when a pool serves it again', async () => {
    await queue.announceWorker(pool('evaluator', { kinds: ['evaluate'], accepts: [{ kind: 'evaluate', provides: ['cpu'] }] }), 60_000);
    // Another evolve run's own slots serve both kinds, but leave with that run: not counted on.
    await queue.announceWorker(pool('other-run', { passing: true }), 60_000);
    watch(60_000);
    await until(() => notices.length >= 1, 'the first notice');
    assert.equal(notices[0]!.runId, 'r1');
    assert.match(notices[0]!.notice!, /no worker on the queue serves mutate tasks .*this daemon runs no workers.*peagen worker start.*after 1 min/);
    await queue.announceWorker(pool('mutator', { kinds: ['mutate'], accepts: [{ kind: 'mutate', provides: ['cpu'] }] }), 60_000);
    await until(() => notices.length >= 2, 'the all-clear');
    assert.deepEqual(notices[1], { runId: 'r1', notice: undefined });
    await delay(50);
    assert.equal(notices.length, 2, 'said once each, not at every check');
    assert.deepEqual(stops, []);
  });

  it('stops the run with a checkpoint when nobody served a kind it needs for the wait', async () => {
    await queue.announceWorker(pool('both'), 60_000);
    watch(200);
    await delay(60);
    assert.equal(notices.length, 0, 'served: nothing to say');
    await queue.retireWorker('both');
    await until(() => stops.length >= 1, 'the stop');
    assert.match(notices[0]!.notice!, /serves evaluate tasks or mutate tasks/);
    assert.equal(stops[0]!.runId, 'r1');
    assert.match(stops[0]!.notice, /no worker served evaluate tasks or mutate tasks for 0\.2 s: the run stopped with a checkpoint/);
    assert.match(stops[0]!.notice, /peagen evolve run --resume r1/);
    await delay(100);
    assert.equal(stops.length, 1, 'a run is stopped once');
    assert.equal(notices.length, 1, 'and says nothing more while it ends');
  });
});
