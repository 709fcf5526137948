/**
 * The TaskQueue contract as a mocha suite. Every adapter runs this file unchanged:
 *
 *   describeTaskQueueConformance('MemoryQueue', async (options) => ({ queue: new MemoryQueue(options) }));
 *
 * Times are real (a Redis adapter cannot fake its clock), so leases and back-offs are short
 * and every assertion is about order and ownership, never about speed.
 */
import * as assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type Acceptor,
  type Claim,
  DuplicateTaskError,
  MAX_TASK_BYTES,
  type QueueOptions,
  type TaskEvent,
  type TaskQueue,
  type TaskStateEvent,
  TaskTooLargeError,
} from '../../daemon/fabric/queue/TaskQueue';
import { newTask, type Result, type Task, type TaskSpec } from '../../shared/task';

export interface QueueUnderTest {
  queue: TaskQueue;
  /** Removes what the adapter left behind (keys, files); close() is called by the suite. */
  cleanup?: () => Promise<void>;
}

export type QueueFactory = (options: Required<QueueOptions>) => Promise<QueueUnderTest>;

const LEASE_MS = 300;
// Wide enough that "not before the back-off" holds on a loaded machine, where the claim
// that checks it may start a hundred milliseconds or more after the failure it follows.
const RETRY_BASE_MS = 400;
const MAX_ATTEMPTS = 3;

const CPU: Acceptor[] = [{ kind: 'echo', provides: ['cpu'] }];

function okResult(task: Task, data: unknown = { ok: true }): Result {
  return { taskId: task.id, status: 'ok', data, attempts: task.attempts + 1 };
}

function cancelledResult(task: Task): Result {
  return { taskId: task.id, status: 'skip', error: { code: 'cancelled', message: 'stopped', retryable: false }, attempts: task.attempts + 1 };
}

/** Events may arrive asynchronously (pub/sub): wait until `check` holds, bounded generously. */
async function eventually(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > giveUpAt) assert.fail(`timed out waiting for ${what}`);
    await delay(10);
  }
}

export function describeTaskQueueConformance(name: string, factory: QueueFactory): void {
  describe(`TaskQueue conformance: ${name}`, function () {
    this.timeout(20_000);
    let subject: QueueUnderTest;
    let queue: TaskQueue;

    beforeEach(async () => {
      subject = await factory({ leaseMs: LEASE_MS, maxAttempts: MAX_ATTEMPTS, retryBaseMs: RETRY_BASE_MS });
      queue = subject.queue;
    });
    afterEach(async () => {
      await queue.close();
      await subject.cleanup?.();
    });

    async function submit(spec: Partial<TaskSpec> = {}): Promise<Task> {
      const task = newTask({ kind: 'echo', payload: { n: Math.random() }, requires: ['cpu'], ...spec });
      await queue.enqueue(task);
      return task;
    }
    function claim(accepts: Acceptor[] = CPU, blockMs = 1_000, consumer = 'test-worker'): Promise<Claim | null> {
      return queue.claim({ consumer, accepts, blockMs });
    }
    async function mustClaim(accepts: Acceptor[] = CPU, blockMs = 3_000): Promise<Claim> {
      const claimed = await claim(accepts, blockMs);
      assert.ok(claimed, 'expected a task to be claimable');
      return claimed;
    }
    /** Records every event the queue emits from now on. */
    function record(): { events: TaskEvent[]; states: (taskId: string) => TaskStateEvent[]; stop: () => void } {
      const events: TaskEvent[] = [];
      const stop = queue.subscribe((event) => events.push(event));
      const states = (taskId: string): TaskStateEvent[] =>
        events.filter((event): event is TaskStateEvent => event.type === 'state' && event.taskId === taskId);
      return { events, states, stop };
    }
    const stateNames = (events: TaskStateEvent[]): string[] => events.map((event) => event.state);

    describe('enqueue and claim', () => {
      it('delivers an enqueued task intact, leased to the claimer', async () => {
        const task = await submit();
        const claimed = await mustClaim();
        assert.deepEqual(claimed.task, task);
        assert.equal(claimed.consumer, 'test-worker');
        assert.ok(claimed.leaseUntil > Date.now(), 'the lease must lie in the future');
        assert.deepEqual(await queue.stats(), { pending: 0, inFlight: 1, delayed: 0, dead: 0 });
      });

      it('knows a task from enqueue through its result, and no id it never had', async () => {
        assert.equal(await queue.knows('t-never-enqueued'), false);
        const task = await submit();
        assert.equal(await queue.knows(task.id), true, 'queued');
        const claimed = await mustClaim();
        assert.equal(await queue.knows(task.id), true, 'running');
        await queue.ack(claimed, { taskId: task.id, status: 'ok', data: null, attempts: 1 });
        assert.equal(await queue.knows(task.id), true, 'finished, its result kept');
      });

      it('answers null when nothing arrives within blockMs', async () => {
        assert.equal(await claim(CPU, 100), null);
      });

      it('wakes a blocked claim when a task is enqueued', async () => {
        const waiting = claim(CPU, 5_000);
        await delay(100);
        const task = await submit();
        const claimed = await waiting;
        assert.equal(claimed?.task.id, task.id);
      });

      it('delivers eligible tasks in the order they were enqueued', async () => {
        const first = await submit();
        const second = await submit();
        const third = await submit();
        const order = [];
        for (let i = 0; i < 3; i++) order.push((await mustClaim()).task.id);
        assert.deepEqual(order, [first.id, second.id, third.id]);
      });

      it('delivers each task to exactly one of many concurrent claimers', async () => {
        const tasks = await Promise.all(Array.from({ length: 20 }, () => submit()));
        const seen: string[] = [];
        await Promise.all(
          Array.from({ length: 4 }, async (_, worker) => {
            for (;;) {
              const claimed = await claim(CPU, 200, `worker-${worker}`);
              if (!claimed) return;
              seen.push(claimed.task.id);
              assert.equal(await queue.ack(claimed, okResult(claimed.task)), true);
            }
          }),
        );
        assert.deepEqual([...seen].sort(), tasks.map((task) => task.id).sort());
      });

      it('unblocks waiting claimers when the queue closes', async () => {
        const waiting = claim(CPU, 10_000);
        await delay(50);
        await queue.close();
        assert.equal(await waiting, null);
      });
    });

    describe('capability matching', () => {
      it('hands a task only to a handler that provides every capability it requires', async () => {
        const gpuTask = await submit({ requires: ['cpu', 'gpu'] });
        assert.equal(await claim([{ kind: 'echo', provides: ['cpu'] }], 150), null, 'a cpu-only worker must not get a gpu task');
        assert.equal((await queue.stats()).pending, 1, 'the unclaimable task stays pending for others');
        const claimed = await mustClaim([{ kind: 'echo', provides: ['cpu', 'gpu', 'cuda12'] }]);
        assert.equal(claimed.task.id, gpuTask.id);
      });

      it('hands a task only to a handler of its kind', async () => {
        const render = await submit({ kind: 'render', requires: ['cpu'] });
        assert.equal(await claim([{ kind: 'echo', provides: ['cpu'] }], 150), null);
        assert.equal((await mustClaim([{ kind: 'render', provides: ['cpu'] }])).task.id, render.id);
      });

      it('skips tasks it cannot run to reach one it can, leaving them in place', async () => {
        const gpuTask = await submit({ requires: ['gpu'] });
        const cpuTask = await submit({ requires: ['cpu'] });
        assert.equal((await mustClaim([{ kind: 'echo', provides: ['cpu'] }])).task.id, cpuTask.id);
        assert.equal((await mustClaim([{ kind: 'echo', provides: ['gpu'] }])).task.id, gpuTask.id);
      });
    });

    describe('results', () => {
      it('publishes the result on ack, readable and awaitable by task id', async () => {
        const task = await submit();
        const waiting = queue.waitForResult(task.id, 5_000);
        const claimed = await mustClaim();
        assert.equal(await queue.ack(claimed, okResult(task, { answer: 42 })), true);
        const result = await waiting;
        assert.equal(result?.status, 'ok');
        assert.deepEqual(result?.data, { answer: 42 });
        assert.deepEqual(await queue.getResult(task.id), result);
        assert.deepEqual(await queue.stats(), { pending: 0, inFlight: 0, delayed: 0, dead: 0 });
      });

      it('answers an already published result at once and null for an unknown task after the timeout', async () => {
        const task = await submit();
        await queue.ack(await mustClaim(), okResult(task));
        assert.equal((await queue.waitForResult(task.id, 10_000))?.taskId, task.id);
        assert.equal(await queue.waitForResult('no-such-task', 100), null);
        assert.equal(await queue.getResult('no-such-task'), null);
      });

      it('returns a stored result without waiting (timeout 0), every time it is asked', async () => {
        const tasks = await Promise.all(Array.from({ length: 20 }, () => submit()));
        for (const task of tasks) await queue.ack(await mustClaim(), okResult(task, task.id));
        for (const task of tasks) {
          assert.equal((await queue.waitForResult(task.id, 0))?.data, task.id, `the stored result of ${task.id}`);
        }
        const asked = await Promise.all(tasks.map((task) => queue.waitForResult(task.id, 0)));
        assert.deepEqual(asked.map((result) => result?.data), tasks.map((task) => task.id));
        assert.equal(await queue.waitForResult('no-such-task', 0), null);
      });

      it('keeps the results of different tasks apart', async () => {
        const a = await submit();
        const b = await submit();
        const claimA = await mustClaim();
        const claimB = await mustClaim();
        await queue.ack(claimB, okResult(b, 'B'));
        await queue.ack(claimA, okResult(a, 'A'));
        assert.equal((await queue.getResult(a.id))?.data, 'A');
        assert.equal((await queue.getResult(b.id))?.data, 'B');
      });
    });

    describe('leases', () => {
      it('redelivers a task whose worker let the lease expire, counting the lost attempt', async () => {
        const task = await submit();
        const lost = await mustClaim();
        await delay(LEASE_MS + 100);
        const again = await mustClaim();
        assert.equal(again.task.id, task.id);
        assert.equal(again.task.attempts, 1);
        assert.notEqual(again.leaseId, lost.leaseId);
      });

      it('reclaimExpired moves expired leases back to pending', async () => {
        await submit();
        await mustClaim();
        await delay(LEASE_MS + 100);
        assert.equal(await queue.reclaimExpired(), 1);
        const stats = await queue.stats();
        assert.equal(stats.inFlight, 0);
        assert.equal(stats.pending, 1);
      });

      it('ignores the late ack of a stale delivery: exactly one result counts', async () => {
        const task = await submit();
        const lost = await mustClaim();
        await delay(LEASE_MS + 100);
        const again = await mustClaim();
        assert.equal(await queue.ack(lost, okResult(task, 'stale')), false);
        assert.equal(await queue.getResult(task.id), null, 'a stale ack publishes nothing');
        assert.equal(await queue.fail(lost, { code: 'x', message: 'late', retryable: true }), 'stale');
        assert.equal(await queue.ack(again, okResult(again.task, 'fresh')), true);
        assert.equal((await queue.getResult(task.id))?.data, 'fresh');
      });

      it('keeps a task owned while its worker extends the lease', async () => {
        await submit();
        const held = await mustClaim();
        for (let i = 0; i < 4; i++) {
          await delay(LEASE_MS / 2);
          assert.equal(await queue.extendLease(held), true);
        }
        assert.equal(await claim(CPU, 100, 'thief'), null, 'nobody else may get a task whose lease is kept');
        assert.equal(await queue.ack(held, okResult(held.task)), true);
      });

      it('refuses to extend a lease that was already lost', async () => {
        await submit();
        const lost = await mustClaim();
        await delay(LEASE_MS + 100);
        await queue.reclaimExpired();
        assert.equal(await queue.extendLease(lost), false);
      });

      it('dead-letters a task that loses its worker on every attempt', async () => {
        const task = await submit();
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          assert.ok(await claim(CPU, 3_000), `attempt ${attempt + 1} should be delivered`);
          await delay(LEASE_MS + 100);
          await queue.reclaimExpired();
        }
        const dead = await queue.listDead();
        assert.deepEqual(
          dead.map((entry) => entry.task.id),
          [task.id],
        );
        assert.match(dead[0]?.reason ?? '', /lease/);
        assert.equal((await queue.getResult(task.id))?.error?.code, 'dead_letter');
      });

      it('release gives a task back untouched for another worker', async () => {
        const task = await submit();
        const held = await mustClaim();
        assert.equal(await queue.release(held), true);
        const again = await mustClaim();
        assert.equal(again.task.id, task.id);
        assert.equal(again.task.attempts, 0);
        assert.equal(await queue.release(held), false, 'the old claim is stale');
      });
    });

    describe('ackAndClaimNext: the next task leased with the ack', () => {
      it('acks, and leases the oldest waiting task to the consumer that asked', async () => {
        const first = await submit();
        const second = await submit();
        const third = await submit();
        const log = record();
        const held = await mustClaim();
        assert.equal(held.task.id, first.id);
        const answer = await queue.ackAndClaimNext(held, okResult(held.task, 'one'), { consumer: 'slot-2', accepts: CPU });
        assert.equal(answer.acked, true);
        assert.equal((await queue.getResult(first.id))?.data, 'one', 'the ack published its result');
        assert.ok(answer.next, 'a task was waiting, so one is leased with the ack');
        assert.equal(answer.next.task.id, second.id, 'the oldest waiting task comes next');
        assert.equal(answer.next.consumer, 'slot-2');
        assert.equal(answer.next.task.attempts, 0);
        assert.ok(answer.next.leaseUntil > Date.now(), 'the lease must lie in the future');
        assert.deepEqual(await queue.stats(), { pending: 1, inFlight: 1, delayed: 0, dead: 0 });
        await eventually(() => stateNames(log.states(second.id)).includes('running'), 'the running event of the task leased next');
        assert.equal(log.states(second.id).find((event) => event.state === 'running')?.workerId, 'slot-2');
        // The lease is a real one: another worker does not get the task, and it acks as usual.
        const other = await mustClaim();
        assert.equal(other.task.id, third.id);
        assert.equal(await queue.ack(answer.next, okResult(answer.next.task, 'two')), true);
        assert.equal((await queue.getResult(second.id))?.data, 'two');
        log.stop();
      });

      it('answers next null at once when no task it can run waits, and leaves others alone', async () => {
        await submit();
        const gpuTask = await submit({ requires: ['gpu'] });
        const held = await mustClaim();
        const answer = await queue.ackAndClaimNext(held, okResult(held.task), { consumer: 'slot', accepts: CPU });
        assert.equal(answer.acked, true);
        assert.equal(answer.next, null, 'the task that waits needs a gpu, which the acceptors lack');
        const gpu = await mustClaim([{ kind: 'echo', provides: ['cpu', 'gpu'] }]);
        assert.equal(gpu.task.id, gpuTask.id);
      });

      it('a stale ack publishes nothing', async () => {
        const task = await submit();
        const lost = await mustClaim();
        await delay(LEASE_MS + 100);
        const again = await mustClaim();
        const answer = await queue.ackAndClaimNext(lost, okResult(task, 'stale'), { consumer: 'slot', accepts: CPU });
        assert.equal(answer.acked, false);
        assert.equal(await queue.getResult(task.id), null);
        assert.equal(await queue.ack(again, okResult(again.task, 'fresh')), true);
      });

      it('a task leased ahead and handed back with release keeps its attempts', async () => {
        await submit();
        const ahead = await submit();
        const held = await mustClaim();
        const { next } = await queue.ackAndClaimNext(held, okResult(held.task), { consumer: 'stopping-slot', accepts: CPU });
        assert.ok(next);
        assert.equal(await queue.release(next), true);
        const again = await mustClaim();
        assert.equal(again.task.id, ahead.id);
        assert.equal(again.task.attempts, 0, 'a task leased ahead and given back counts no attempt');
      });
    });

    describe('retries and the dead-letter list', () => {
      const transient = { code: 'flaky', message: 'try again', retryable: true };

      it('retries a retryable failure after a back-off, with attempts + 1', async () => {
        const task = await submit();
        assert.equal(await queue.fail(await mustClaim(), transient), 'retrying');
        assert.equal((await queue.stats()).delayed, 1);
        assert.equal(await claim(CPU, RETRY_BASE_MS / 3), null, 'not before the back-off');
        const again = await mustClaim();
        assert.equal(again.task.id, task.id);
        assert.equal(again.task.attempts, 1);
      });

      it('doubles the back-off for each further attempt', async () => {
        await submit();
        await queue.fail(await mustClaim(), transient);
        await queue.fail(await mustClaim(), transient);
        // Second retry waits 2 x base: still hidden after 1.3 x base.
        assert.equal(await claim(CPU, RETRY_BASE_MS * 1.3), null);
        assert.equal((await mustClaim()).task.attempts, 2);
      });

      it(`dead-letters after ${MAX_ATTEMPTS} attempts, keeping the reason, and answers waiters`, async () => {
        const task = await submit();
        const waiting = queue.waitForResult(task.id, 10_000);
        const outcomes = [];
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          outcomes.push(await queue.fail(await mustClaim(), { code: 'boom', message: `failure ${attempt + 1}`, retryable: true }));
        }
        assert.deepEqual(outcomes, ['retrying', 'retrying', 'dead']);
        const dead = await queue.listDead();
        assert.equal(dead.length, 1);
        assert.equal(dead[0]?.task.id, task.id);
        assert.equal(dead[0]?.task.attempts, MAX_ATTEMPTS);
        assert.match(dead[0]?.reason ?? '', /boom: failure 3/);
        const result = await waiting;
        assert.equal(result?.status, 'error');
        assert.equal(result?.error?.code, 'dead_letter');
        assert.equal((await queue.stats()).dead, 1);
        assert.equal(await claim(CPU, 100), null, 'a dead task is not delivered again');
      });

      it('dead-letters a non-retryable failure at once', async () => {
        await submit();
        assert.equal(await queue.fail(await mustClaim(), { code: 'invalid', message: 'bad input', retryable: false }), 'dead');
        assert.match((await queue.listDead())[0]?.reason ?? '', /invalid: bad input/);
      });

      it('retryDead queues a dead task again with attempts reset', async () => {
        const task = await submit();
        await queue.fail(await mustClaim(), { code: 'invalid', message: 'bad input', retryable: false });
        assert.equal(await queue.retryDead(task.id), true);
        assert.deepEqual(await queue.listDead(), []);
        assert.equal(await queue.getResult(task.id), null, 'the dead-letter answer is withdrawn');
        const again = await mustClaim();
        assert.equal(again.task.id, task.id);
        assert.equal(again.task.attempts, 0);
        assert.equal(await queue.retryDead('not-dead'), false);
      });
    });

    describe('cancel', () => {
      it('withdraws a pending task and answers it with a skip result', async () => {
        const task = await submit();
        assert.equal(await queue.cancel(task.id), true);
        assert.equal(await claim(CPU, 100), null);
        const result = await queue.getResult(task.id);
        assert.equal(result?.status, 'skip');
        assert.equal(result?.error?.code, 'cancelled');
      });

      it('withdraws a task waiting for its retry back-off', async () => {
        const task = await submit();
        await queue.fail(await mustClaim(), { code: 'flaky', message: 'again', retryable: true });
        assert.equal(await queue.cancel(task.id), true);
        assert.equal(await claim(CPU, RETRY_BASE_MS * 3), null, 'a cancelled task is not retried');
        assert.equal((await queue.getResult(task.id))?.error?.code, 'cancelled');
      });

      it('asks the worker holding a running task to stop it: true, and a cancel event naming the lease holder', async () => {
        const recorder = record();
        const task = await submit();
        const held = await claim(CPU, 3_000, 'holder/0');
        assert.ok(held);
        assert.equal(await queue.cancel(task.id, 'no longer needed'), true);
        await eventually(() => recorder.events.some((event) => event.type === 'cancel'), 'the cancel event');
        const request = recorder.events.find((event) => event.type === 'cancel');
        assert.deepEqual(
          request && { taskId: request.taskId, kind: request.kind, workerId: request.workerId, leaseId: request.leaseId, reason: request.reason },
          { taskId: task.id, kind: 'echo', workerId: 'holder/0', leaseId: held.leaseId, reason: 'no longer needed' },
        );
        assert.equal(await queue.getResult(task.id), null, 'the worker answers, not the queue, while it holds the lease');
        assert.equal(await queue.ack(held, cancelledResult(held.task)), true);
        assert.equal((await queue.getResult(task.id))?.error?.code, 'cancelled');
        await eventually(() => recorder.states(task.id).some((event) => event.state === 'cancelled'), 'the cancelled state');
        recorder.stop();
      });

      it('answers a cancelled running task instead of retrying it when its worker fails it', async () => {
        const task = await submit();
        const held = await mustClaim();
        assert.equal(await queue.cancel(task.id), true);
        assert.equal(await queue.fail(held, { code: 'aborted', message: 'stopped mid-way', retryable: true }), 'cancelled');
        assert.equal((await queue.getResult(task.id))?.error?.code, 'cancelled');
        assert.equal(await claim(CPU, RETRY_BASE_MS * 3), null, 'a cancelled task is not run again');
        assert.deepEqual(await queue.stats(), { pending: 0, inFlight: 0, delayed: 0, dead: 0 });
      });

      it('answers a cancelled running task instead of queueing it again when its worker releases it', async () => {
        const task = await submit();
        const held = await mustClaim();
        assert.equal(await queue.cancel(task.id), true);
        assert.equal(await queue.release(held), true);
        assert.equal((await queue.getResult(task.id))?.error?.code, 'cancelled');
        assert.equal(await claim(CPU, 100), null);
      });

      it('answers a cancelled running task instead of redelivering it when its worker dies', async () => {
        const task = await submit();
        await mustClaim();
        assert.equal(await queue.cancel(task.id), true);
        await delay(LEASE_MS + 100);
        await queue.reclaimExpired();
        assert.equal(await claim(CPU, 100), null, 'a cancelled task is not redelivered');
        assert.equal((await queue.getResult(task.id))?.error?.code, 'cancelled');
      });

      it('refuses to cancel an unknown or finished task', async () => {
        const task = await submit();
        await queue.ack(await mustClaim(), okResult(task));
        assert.equal(await queue.cancel(task.id), false);
        assert.equal(await queue.cancel('unknown'), false);
        assert.equal((await queue.getResult(task.id))?.status, 'ok', 'a late cancel leaves the result alone');
      });
    });

    describe('task events', () => {
      it('reports queued, running and done with attempts, time and worker, never the result', async () => {
        const recorder = record();
        const before = Date.now();
        const task = await submit();
        const held = await claim(CPU, 3_000, 'events-worker');
        assert.ok(held);
        await queue.ack(held, okResult(task, { big: 'x'.repeat(1_000) }));
        await eventually(() => recorder.states(task.id).length >= 3, 'three state events');
        const events = recorder.states(task.id);
        assert.deepEqual(stateNames(events), ['queued', 'running', 'done']);
        assert.deepEqual(
          events.map((event) => event.attempts),
          [0, 1, 1],
        );
        assert.equal(events[1]?.workerId, 'events-worker');
        assert.equal(events[2]?.workerId, 'events-worker');
        for (const event of events) {
          assert.equal(event.kind, 'echo');
          assert.ok(event.at >= before - 1_000 && event.at <= Date.now() + 1_000, 'at is the epoch ms of the change');
          assert.ok(!('result' in event) && !JSON.stringify(event).includes('xxxx'), 'a state event carries no result');
        }
        recorder.stop();
      });

      it('reports retrying then dead for failures, with the reason', async () => {
        const recorder = record();
        const task = await submit();
        await queue.fail(await mustClaim(), { code: 'flaky', message: 'try again', retryable: true });
        await queue.fail(await mustClaim(), { code: 'invalid', message: 'bad input', retryable: false });
        await eventually(() => recorder.states(task.id).length >= 5, 'five state events');
        const events = recorder.states(task.id);
        assert.deepEqual(stateNames(events), ['queued', 'running', 'retrying', 'running', 'dead']);
        assert.deepEqual(
          events.map((event) => event.attempts),
          [0, 1, 1, 2, 2],
        );
        assert.match(events[2]?.reason ?? '', /flaky/);
        assert.match(events[4]?.reason ?? '', /invalid: bad input/);
        recorder.stop();
      });

      it('reports queued again when a task is released, when its lease expires and when a dead task is retried', async () => {
        const recorder = record();
        const task = await submit();
        await queue.release(await mustClaim());
        await mustClaim();
        await delay(LEASE_MS + 100);
        await queue.reclaimExpired();
        await queue.fail(await mustClaim(), { code: 'invalid', message: 'bad input', retryable: false });
        await queue.retryDead(task.id);
        await eventually(() => recorder.states(task.id).length >= 8, 'eight state events');
        assert.deepEqual(stateNames(recorder.states(task.id)), [
          'queued',
          'running',
          'queued',
          'running',
          'queued',
          'running',
          'dead',
          'queued',
        ]);
        assert.match(recorder.states(task.id)[4]?.reason ?? '', /lease/);
        recorder.stop();
      });

      it('reports cancelled when a waiting task is withdrawn', async () => {
        const recorder = record();
        const task = await submit();
        await queue.cancel(task.id);
        await eventually(() => recorder.states(task.id).length >= 2, 'two state events');
        assert.deepEqual(stateNames(recorder.states(task.id)), ['queued', 'cancelled']);
        recorder.stop();
      });

      it('stops reporting to a listener that unsubscribed', async () => {
        const recorder = record();
        const watched = await submit();
        await eventually(() => recorder.states(watched.id).length >= 1, 'the first event');
        recorder.stop();
        const unwatched = await submit();
        const control = record();
        await queue.cancel(unwatched.id);
        await eventually(() => control.states(unwatched.id).length >= 1, 'the control listener to see the cancel');
        assert.equal(recorder.states(unwatched.id).length, 0);
        control.stop();
      });
    });

    describe('depth and the cluster directory', () => {
      it('counts pending, in-flight and delayed tasks per kind and requirement set', async () => {
        await submit({ requires: ['gpu', 'cpu'] });
        await submit({ requires: ['cpu'] });
        await submit({ requires: ['cpu'] });
        await submit({ kind: 'render', requires: ['cpu'] });
        const held = await mustClaim();
        await queue.fail(await mustClaim(), { code: 'flaky', message: 'again', retryable: true });
        assert.ok(held);
        const counts = (await queue.depth()).map(({ oldestPendingMs: _age, ...entry }) => entry);
        assert.deepEqual(counts, [
          { kind: 'echo', requires: ['cpu'], pending: 0, inFlight: 1, delayed: 1 },
          { kind: 'echo', requires: ['cpu', 'gpu'], pending: 1, inFlight: 0, delayed: 0 },
          { kind: 'render', requires: ['cpu'], pending: 1, inFlight: 0, delayed: 0 },
        ].filter((entry) => entry.pending + entry.inFlight + entry.delayed > 0));
      });

      it('says how long the oldest pending task of each requirement set has waited', async () => {
        const first = await submit();
        await delay(400);
        const second = await submit();
        await submit({ kind: 'render' });
        const ageOf = async (kind: string): Promise<number | undefined> =>
          (await queue.depth()).find((entry) => entry.kind === kind && entry.requires.join() === 'cpu')?.oldestPendingMs;
        const echoAge = await ageOf('echo');
        const renderAge = await ageOf('render');
        assert.ok(echoAge !== undefined && echoAge >= 350 && echoAge < 60_000, `the oldest echo task waited about 400 ms, not ${echoAge}`);
        assert.ok(renderAge !== undefined && renderAge < echoAge, `the render task came later (${renderAge} ms vs ${echoAge} ms)`);
        const claimed = await mustClaim();
        assert.equal(claimed.task.id, first.id);
        const next = await ageOf('echo');
        assert.ok(next !== undefined && next < echoAge, `the next oldest (${second.id}) came 400 ms later: ${next} ms`);
        await mustClaim();
        await mustClaim([{ kind: 'render', provides: ['cpu'] }]);
        const drained = (await queue.depth()).filter((entry) => entry.pending === 0).map((entry) => entry.oldestPendingMs);
        assert.ok(drained.every((age) => age === 0), `nothing waits, so no age: ${drained.join(', ')}`);
      });

      it('lists announced workers until they retire or their record lapses', async () => {
        const now = Date.now();
        const record = (id: string, host: string) => ({
          id,
          host,
          pid: 42,
          caps: ['cpu'],
          kinds: ['echo'],
          mode: 'one-shot' as const,
          slots: 2,
          busy: 0,
          startedAt: now,
          seenAt: now,
        });
        await queue.announceWorker(record('w-b', 'host-b'), 60_000);
        await queue.announceWorker(record('w-a', 'host-a'), 60_000);
        await queue.announceWorker(record('w-short', 'host-c'), 150);
        assert.deepEqual((await queue.listWorkers()).map((worker) => worker.id), ['w-a', 'w-b', 'w-short']);
        await queue.announceWorker({ ...record('w-b', 'host-b'), busy: 2 }, 60_000);
        assert.equal((await queue.listWorkers()).find((worker) => worker.id === 'w-b')?.busy, 2, 'a heartbeat replaces the record');
        await queue.retireWorker('w-a');
        await delay(400);
        assert.deepEqual((await queue.listWorkers()).map((worker) => worker.id), ['w-b'], 'retired and lapsed workers are gone');
        await queue.retireWorker('w-b');
      });
    });

    describe('task ids and closing', () => {
      async function assertDuplicateRefused(task: Task, where: string): Promise<void> {
        await assert.rejects(
          queue.enqueue(task),
          (error: unknown) => error instanceof DuplicateTaskError && error.taskId === task.id && error.message.includes(task.id),
          `a second enqueue of a task ${where} must be refused`,
        );
      }

      it('refuses to enqueue a task id that is pending, delayed, in flight, done or dead', async () => {
        const pending = await submit();
        await assertDuplicateRefused(pending, 'that is pending');
        const held = await mustClaim();
        await assertDuplicateRefused(pending, 'that a worker holds');
        await queue.fail(held, { code: 'flaky', message: 'again', retryable: true });
        await assertDuplicateRefused(pending, 'waiting for a retry');
        const again = await mustClaim();
        await queue.ack(again, okResult(again.task));
        await assertDuplicateRefused(pending, 'that has a result');
        const doomed = await submit();
        await queue.fail(await mustClaim(), { code: 'invalid', message: 'bad input', retryable: false });
        await assertDuplicateRefused(doomed, 'that is dead-lettered');
        assert.deepEqual(await queue.stats(), { pending: 0, inFlight: 0, delayed: 0, dead: 1 }, 'a refused enqueue changes nothing');
      });

      it(`refuses to enqueue a task whose record is over ${MAX_TASK_BYTES} bytes, saying so, and takes the next one`, async () => {
        const huge = newTask({ kind: 'echo', requires: ['cpu'], payload: { blob: 'x'.repeat(MAX_TASK_BYTES) } });
        await assert.rejects(queue.enqueue(huge), (error: unknown) => error instanceof TaskTooLargeError && error.taskId === huge.id && /over the queue's limit of \d+ bytes/.test(error.message));
        assert.deepEqual(await queue.stats(), { pending: 0, inFlight: 0, delayed: 0, dead: 0 }, 'a refused enqueue changes nothing');
        const next = await submit();
        assert.equal((await mustClaim()).task.id, next.id);
      });

      it('closes idempotently', async () => {
        await queue.close();
        await queue.close();
        await assert.rejects(queue.enqueue(newTask({ kind: 'echo' })), /closed/);
      });
    });
  });
}
