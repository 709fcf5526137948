import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import * as z from 'zod';
import { ConfigSchema } from '../../daemon/config';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import type { Claim, ClaimOptions } from '../../daemon/fabric/queue/TaskQueue';
import { HandlerRegistry } from '../../daemon/fabric/worker/HandlerRegistry';
import type { TaskHandler } from '../../daemon/fabric/worker/TaskHandler';
import type { TaskEnd } from '../../daemon/fabric/worker/WorkerPool';
import { WorkerPool } from '../../daemon/fabric/worker/WorkerPool';
import { runTask } from '../../daemon/fabric/worker/runTask';
import { createRegistry } from '../../daemon/handlers';
import { newTask, type Result, type Task } from '../../shared/task';
import { TEST_PLUGIN } from '../fixtures/paths';

function pool(queue: MemoryQueue, caps: string[], extra: Partial<ConstructorParameters<typeof WorkerPool>[0]> = {}): WorkerPool {
  return new WorkerPool({ queue, registry: createRegistry([TEST_PLUGIN]), caps, concurrency: 1, mode: 'in-process', claimBlockMs: 100, ...extra });
}

/** A worker busy with a minute-long sleep task. */
async function busyWorker(): Promise<{ queue: MemoryQueue; worker: WorkerPool; task: Task }> {
  const queue = new MemoryQueue();
  const worker = pool(queue, ['cpu']).start();
  const task = newTask({ kind: 'sleep', payload: { ms: 60_000 } });
  const started = once(worker, 'taskStart');
  await queue.enqueue(task);
  await started;
  return { queue, worker, task };
}

/** A memory queue that counts the claim() calls made on it. */
function countingClaims(): { queue: MemoryQueue; claims: () => number } {
  const queue = new MemoryQueue();
  let claims = 0;
  const claim = queue.claim.bind(queue);
  queue.claim = (options: ClaimOptions) => {
    claims++;
    return claim(options);
  };
  return { queue, claims: () => claims };
}

function nextEnd(worker: WorkerPool): Promise<[Task, TaskEnd, Result | undefined]> {
  return once(worker, 'taskEnd') as Promise<[Task, TaskEnd, Result | undefined]>;
}

describe('capability matching', () => {
  it('offers a handler only when the worker has every capability it provides', () => {
    const registry = createRegistry([TEST_PLUGIN]);
    const cpuKinds = registry.acceptorsFor(['cpu']).map((acceptor) => acceptor.kind);
    assert.ok(cpuKinds.includes('echo'));
    assert.ok(!cpuKinds.includes('gpu-echo'), 'a handler providing gpu must not run on a cpu-only worker');
    assert.ok(registry.acceptorsFor(['cpu', 'gpu']).some((acceptor) => acceptor.kind === 'gpu-echo'));
    assert.deepEqual(registry.acceptorsFor([]), []);
  });

  it('a cpu worker leaves a gpu task queued, without claiming it, while a gpu worker runs it', async () => {
    const { queue, claims } = countingClaims();
    const cpuWorker = pool(queue, ['cpu'], { claimBlockMs: 400 }).start();
    const task = newTask({ kind: 'gpu-echo', requires: ['gpu'] });
    await queue.enqueue(task);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(await queue.stats(), { pending: 1, inFlight: 0, delayed: 0, dead: 0 });
    assert.ok(claims() <= 3, `the cpu worker must block in claim, not spin (made ${claims()} claim calls)`);
    const gpuWorker = pool(queue, ['cpu', 'gpu']).start();
    assert.equal((await queue.waitForResult(task.id, 5_000))?.status, 'ok');
    await Promise.all([cpuWorker.stop({ drain: true }), gpuWorker.stop({ drain: true })]);
    await queue.close();
  });
});

describe('runTask', () => {
  const registry = createRegistry([TEST_PLUGIN]);
  const signal = new AbortController().signal;

  it('answers a malformed payload with invalid_payload instead of throwing', async () => {
    const outcome = await runTask(newTask({ kind: 'sleep', payload: { ms: 'soon' } }), registry, 'w', signal);
    assert.equal(outcome.kind, 'result');
    if (outcome.kind === 'result') assert.equal(outcome.result.error?.code, 'invalid_payload');
  });

  it('answers an unknown kind and a too-new schema with errors', async () => {
    const unknown = await runTask(newTask({ kind: 'nope' }), registry, 'w', signal);
    assert.equal(unknown.kind === 'result' && unknown.result.error?.code, 'no_handler');
    const future = await runTask({ ...newTask({ kind: 'echo' }), schemaV: '9.0' }, registry, 'w', signal);
    assert.equal(future.kind === 'result' && future.result.error?.code, 'schema_version');
  });

  it('turns retryable handler errors into a retry and others into a final error', async () => {
    assert.equal((await runTask(newTask({ kind: 'flaky' }), registry, 'w', signal)).kind, 'retry');
    const refused = await runTask(newTask({ kind: 'refuse' }), registry, 'w', signal);
    assert.equal(refused.kind === 'result' && refused.result.error?.code, 'refused');
  });

  it('skips a task whose deadline has passed', async () => {
    const outcome = await runTask(newTask({ kind: 'echo', deadline: Date.now() - 1 }), registry, 'w', signal);
    assert.equal(outcome.kind === 'result' && outcome.result.status, 'skip');
  });
});

describe('WorkerPool (in-process)', () => {
  it('runs a task and publishes its result with attempts and worker id', async () => {
    const queue = new MemoryQueue();
    const worker = pool(queue, ['cpu']).start();
    const task = newTask({ kind: 'echo', payload: { message: 'hello' } });
    await queue.enqueue(task);
    const result = await queue.waitForResult(task.id, 5_000);
    assert.equal(result?.status, 'ok');
    assert.deepEqual(result?.data, { message: 'hello' });
    assert.equal(result?.attempts, 1);
    assert.match(result?.workerId ?? '', /\/0$/);
    await worker.stop({ drain: true });
    await queue.close();
  });

  it('retries a flaky task and dead-letters it after max attempts', async () => {
    const queue = new MemoryQueue({ retryBaseMs: 20, maxAttempts: 3 });
    const worker = pool(queue, ['cpu']).start();
    const task = newTask({ kind: 'flaky' });
    await queue.enqueue(task);
    const result = await queue.waitForResult(task.id, 5_000);
    assert.equal(result?.error?.code, 'dead_letter');
    assert.equal((await queue.listDead())[0]?.task.attempts, 3);
    await worker.stop({ drain: true });
    await queue.close();
  });

  it('cancels a running task when the queue is asked to', async () => {
    const { queue, worker, task } = await busyWorker();
    const ended = nextEnd(worker);
    assert.equal(await queue.cancel(task.id), true);
    const [, end, result] = await ended;
    assert.equal(end, 'done');
    assert.equal(result?.status, 'skip');
    assert.equal(result?.error?.code, 'cancelled');
    assert.equal((await queue.getResult(task.id))?.error?.code, 'cancelled');
    await worker.stop({ drain: true });
    await queue.close();
  });

  it('cancels a task whose cancel arrives before the slot has registered its claim', async () => {
    const queue = new MemoryQueue();
    const claim = queue.claim.bind(queue);
    // The cancel lands between the queue leasing the task and the slot starting it.
    queue.claim = async (options: ClaimOptions) => {
      const claimed = await claim(options);
      if (claimed) assert.equal(await queue.cancel(claimed.task.id), true);
      return claimed;
    };
    const worker = pool(queue, ['cpu']).start();
    const task = newTask({ kind: 'sleep', payload: { ms: 60_000 } });
    await queue.enqueue(task);
    const result = await queue.waitForResult(task.id, 20_000);
    assert.equal(result?.error?.code, 'cancelled');
    await worker.stop({ drain: false });
    await queue.close();
  });

  it('aborts the running handler with lease_lost when the lease cannot be renewed, and discards its result', async () => {
    /** A queue that refuses to renew the first delivery's lease, as after a network partition. */
    class LosingQueue extends MemoryQueue {
      override async extendLease(held: Claim): Promise<boolean> {
        return held.task.attempts === 0 ? false : super.extendLease(held);
      }
    }
    const queue = new LosingQueue({ leaseMs: 300 });
    const abortReasons: unknown[] = [];
    const blocking: TaskHandler<Record<string, unknown>> = {
      kind: 'block-until-aborted',
      provides: ['cpu'],
      payloadSchema: z.object({}).passthrough(),
      async handle(task, { signal }) {
        if (task.attempts > 0) return { status: 'ok', data: 'fresh' };
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        abortReasons.push(signal.reason);
        // A handler that ignores the abort and answers anyway must not have its answer count.
        return { status: 'ok', data: 'stale' };
      },
    };
    const worker = new WorkerPool({
      queue,
      registry: new HandlerRegistry().register(blocking),
      caps: ['cpu'],
      concurrency: 1,
      mode: 'in-process',
      claimBlockMs: 100,
    }).start();
    const task = newTask({ kind: 'block-until-aborted' });
    await queue.enqueue(task);
    const result = await queue.waitForResult(task.id, 20_000);
    assert.deepEqual(abortReasons, ['lease_lost']);
    assert.equal(result?.data, 'fresh', 'only the redelivery counts');
    assert.equal(result?.attempts, 2);
    await worker.stop({ drain: true });
    await queue.close();
  });

  it('survives a task it cannot even start: the task is retried then dead-lettered, the slots keep claiming, stop resolves', async () => {
    const queue = new MemoryQueue({ retryBaseMs: 20, maxAttempts: 2 });
    const worker = pool(queue, ['cpu'], {
      mode: 'one-shot',
      concurrency: 2,
      config: ConfigSchema.parse({}),
      // An environment that makes every child's spawn throw at once.
      childEnv: { BROKEN: 'nul\u0000byte' },
    }).start();
    for (let round = 0; round < 2; round++) {
      const task = newTask({ kind: 'echo' });
      await queue.enqueue(task);
      const result = await queue.waitForResult(task.id, 20_000);
      assert.equal(result?.error?.code, 'dead_letter', `round ${round + 1}: the task must end`);
      assert.match(result?.error?.message ?? '', /worker_error/);
    }
    assert.deepEqual(await queue.stats(), { pending: 0, inFlight: 0, delayed: 0, dead: 2 });
    await worker.stop({ drain: true });
    await queue.close();
  });

  it('on stop without drain hands a running task back to the queue untouched', async () => {
    const { queue, worker } = await busyWorker();
    const ended = nextEnd(worker);
    await worker.stop({ drain: false });
    assert.equal((await ended)[1], 'released');
    assert.deepEqual(await queue.stats(), { pending: 1, inFlight: 0, delayed: 0, dead: 0 });
    await queue.close();
  });

  it('works through a backlog leasing each next task with the ack, not with a claim of its own', async () => {
    const { queue, claims } = countingClaims();
    const tasks = Array.from({ length: 6 }, (_, index) => newTask({ kind: 'echo', payload: { message: `m${index}` } }));
    for (const task of tasks) await queue.enqueue(task);
    const worker = pool(queue, ['cpu']).start();
    for (const task of tasks) assert.equal((await queue.waitForResult(task.id, 5_000))?.status, 'ok');
    await worker.stop({ drain: true });
    assert.ok(claims() <= 2, `one claim for the first task, the rest leased with each ack (made ${claims()} claim calls)`);
    await queue.close();
  });

  it('hands back, attempts unchanged, a task leased with the last ack of a pool that stopped meanwhile', async () => {
    let stopped: Promise<void> | undefined;
    /** Stops the pool while its first ack is on the way, as a shutdown can. */
    class StopDuringAck extends MemoryQueue {
      override async ackAndClaimNext(...args: Parameters<MemoryQueue['ackAndClaimNext']>): ReturnType<MemoryQueue['ackAndClaimNext']> {
        stopped ??= worker.stop({ drain: true });
        return super.ackAndClaimNext(...args);
      }
    }
    const queue = new StopDuringAck();
    const first = newTask({ kind: 'echo', payload: { message: 'first' } });
    const second = newTask({ kind: 'echo', payload: { message: 'second' } });
    await queue.enqueue(first);
    await queue.enqueue(second);
    const ends: [string, TaskEnd][] = [];
    const worker = pool(queue, ['cpu']);
    worker.on('taskEnd', (task, end) => ends.push([task.id, end]));
    worker.start();
    assert.equal((await queue.waitForResult(first.id, 5_000))?.status, 'ok');
    await new Promise((resolve) => setTimeout(resolve, 0));
    await stopped;
    assert.deepEqual(ends, [[first.id, 'done']], 'the task leased ahead must not run on a stopped pool');
    assert.deepEqual(await queue.stats(), { pending: 1, inFlight: 0, delayed: 0, dead: 0 });
    const again = await queue.claim({ consumer: 'next-worker', accepts: [{ kind: 'echo', provides: ['cpu'] }], blockMs: 1_000 });
    assert.equal(again?.task.id, second.id);
    assert.equal(again?.task.attempts, 0, 'handing back a task leased ahead counts no attempt');
    await queue.close();
  });

  it('waits with a dozen slots without Node warning of a listener leak (an evolve run with 4 workers has 12)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const queue = new MemoryQueue();
      const worker = pool(queue, ['cpu'], { concurrency: 12, claimBlockMs: 50 }).start();
      // Every slot blocks in claim (listening to the pool's stop signal), times out and claims again.
      await new Promise((resolve) => setTimeout(resolve, 150));
      await worker.stop({ drain: true });
      await queue.close();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map((warning) => warning.message), []);
  });

  it('stops by itself after the idle limit', async () => {
    const queue = new MemoryQueue();
    const worker = pool(queue, ['cpu'], { exitAfterIdleMs: 150, claimBlockMs: 50 }).start();
    await once(worker, 'idleExit');
    await worker.stop({ drain: true });
    await queue.close();
  });
});

describe('a pool at scale (issue 21)', () => {
  it('has one slot at a time waiting on the queue, and still runs a task in every slot', async () => {
    const queue = new MemoryQueue();
    let waiting = 0;
    let mostWaiting = 0;
    const claim = queue.claim.bind(queue);
    queue.claim = async (options: ClaimOptions) => {
      mostWaiting = Math.max(mostWaiting, ++waiting);
      try {
        return await claim(options);
      } finally {
        waiting--;
      }
    };
    const worker = pool(queue, ['cpu'], { concurrency: 8 }).start();
    try {
      const tasks = Array.from({ length: 8 }, () => newTask({ kind: 'sleep', payload: { ms: 60_000 } }));
      let started = 0;
      const allStarted = new Promise<void>((resolve) => worker.on('taskStart', () => ++started === tasks.length && resolve()));
      for (const task of tasks) await queue.enqueue(task);
      await allStarted;
      assert.equal(worker.status().busy, 8, 'every slot runs a task');
      assert.equal(mostWaiting, 1, 'idle slots take turns on the queue instead of each waiting on it');
    } finally {
      await worker.stop({ drain: false });
    }
  });

  it('leaves the kinds it is told to exclude to other workers', async () => {
    const queue = new MemoryQueue();
    const worker = pool(queue, ['cpu'], { excludeKinds: ['echo'] }).start();
    assert.ok(!worker.kinds.includes('echo') && worker.kinds.includes('sleep'));
    const echo = newTask({ kind: 'echo', payload: { message: 'left' } });
    await queue.enqueue(echo);
    const sleep = newTask({ kind: 'sleep', payload: { ms: 1 } });
    await queue.enqueue(sleep);
    assert.equal((await queue.waitForResult(sleep.id, 5_000))?.status, 'ok');
    assert.equal((await queue.stats()).pending, 1, 'the echo task is still queued');
    await worker.stop({ drain: false });
  });

  it('takes over a kind it left to other workers, with the slots it is given, when they are gone', async () => {
    const queue = new MemoryQueue();
    const worker = pool(queue, ['cpu'], { excludeKinds: ['echo'], concurrency: 1 }).start();
    const echo = newTask({ kind: 'echo', payload: { message: 'left' } });
    await queue.enqueue(echo);
    assert.equal(await queue.waitForResult(echo.id, 300), null, 'left to other workers');
    worker.takeOver(['echo'], 3);
    assert.equal((await queue.waitForResult(echo.id, 5_000))?.status, 'ok');
    assert.ok(worker.kinds.includes('echo'));
    assert.deepEqual(worker.leftToOthers, []);
    assert.equal(worker.status().count, 3);
    await worker.stop({ drain: false });
  });
});
