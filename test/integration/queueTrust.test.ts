/**
 * The queue trusts its writers no more than it must, against a real redis-server. Each hostile
 * task is written straight into Redis with the raw commands the adapter's enqueue script runs
 * (a record, the consumer group, an entry in its stream), as anyone who can write to the Redis
 * could: a worker on the unisolating `process` executor refuses task code from such a writer;
 * no task gets the network (and the worker host's loopback) by asking; with a cluster secret
 * only tasks signed with it run, and a signed task cannot be changed.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { assembleEngine } from '../../daemon/composition';
import { ConfigSchema } from '../../daemon/config';
import type { Engine } from '../../daemon/engine/Engine';
import { RedisStreamsQueue } from '../../daemon/fabric/queue/redis/RedisStreamsQueue';
import { signTask, TASK_SECRET_ENV } from '../../daemon/fabric/queue/taskSignature';
import { newTask, type Result, type Task } from '../../shared/task';
import { tempDir } from '../fixtures/paths';
import { deleteWorkspaceKeys, startRedisServer, type RedisServer } from '../fixtures/redisServer';

const SECRET = 'a-cluster-secret-of-32-characters';

let prefixes = 0;
const uniquePrefix = (): string => `t${process.pid}-trust-${++prefixes}`;


describe('a worker on a shared Redis queue trusts its writers no more than it must', function () {
  this.timeout(90_000);
  let redis: RedisServer;
  let admin: Redis;
  let served: string;
  let hostSecret: string;
  const opened: { engine?: Engine; queue?: RedisStreamsQueue; prefix: string }[] = [];

  before(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
    served = tempDir('trust-served');
    // A file the worker's user can read, outside every directory the worker serves.
    const outside = tempDir('trust-host');
    hostSecret = path.join(outside, 'token');
    fs.writeFileSync(hostSecret, 'host-secret-7f3a\n');
  });
  afterEach(async () => {
    for (const { engine, queue, prefix } of opened.splice(0)) {
      await engine?.stop({ drain: false });
      await queue?.close();
      await deleteWorkspaceKeys(admin, prefix);
    }
  });
  after(async () => {
    admin?.disconnect();
    await redis?.stop();
  });

  /** A worker (an engine with its own slots) on a fresh workspace of the Redis, and a client queue on it. */
  async function worker(sandbox: object, options: { env?: Record<string, string>; withoutWorkers?: boolean; prefix?: string } = {}) {
    const prefix = options.prefix ?? uniquePrefix();
    const url = `${redis.url}?prefix=${prefix}`;
    const config = ConfigSchema.parse({ queue: { url }, worker: { concurrency: 1, roots: [served] }, sandbox });
    const saved = process.env[TASK_SECRET_ENV];
    if (options.env?.[TASK_SECRET_ENV] !== undefined) process.env[TASK_SECRET_ENV] = options.env[TASK_SECRET_ENV];
    let engine: Engine;
    try {
      engine = await assembleEngine(config, { log: () => {}, ...(options.withoutWorkers && { withoutWorkers: true }) });
    } finally {
      if (saved === undefined) delete process.env[TASK_SECRET_ENV];
      else process.env[TASK_SECRET_ENV] = saved;
    }
    const queue = new RedisStreamsQueue(url);
    opened.push({ engine, queue, prefix });
    return { engine, queue, prefix };
  }

  /**
   * What a queue writer does without Peagen: the enqueue script's writes, as raw commands. The
   * stream entry and the record's note of it go in one step, as the enqueue script makes them: a
   * worker's claim that ran between the two would take the entry for a leftover of an older
   * delivery and drop it (the writer's task would then never run nor be answered).
   */
  async function writeRaw(queue: RedisStreamsQueue, task: Task): Promise<void> {
    const stream = queue.keys.stream(task.kind, task.requires);
    await admin.hset(queue.keys.task(task.id), { task: JSON.stringify(task), kind: task.kind, stream, attempts: '0', cancel: '', consumer: '', state: 'pending' });
    await admin.xgroup('CREATE', stream, 'peagen', '0', 'MKSTREAM').catch(() => undefined /* it exists */);
    await admin.sadd(queue.keys.streams(), stream);
    await admin.eval("redis.call('HSET', KEYS[2], 'entry', redis.call('XADD', KEYS[1], '*', 'id', ARGV[1]))", 2, stream, queue.keys.task(task.id), task.id);
  }

  async function resultOf(queue: RedisStreamsQueue, task: Task): Promise<Result> {
    const result = await queue.waitForResult(task.id, 45_000);
    assert.ok(result, `no result for ${task.kind} task ${task.id}`);
    return result;
  }

  async function deadReason(queue: RedisStreamsQueue, task: Task): Promise<string> {
    const letter = (await queue.listDead()).find((dead) => dead.task.id === task.id);
    assert.ok(letter, `task ${task.id} is not in the dead letters`);
    return letter.reason;
  }

  const readHostFile = (file: string): Task =>
    newTask({ kind: 'execute', requires: ['cpu'], payload: { command: ['sh', '-c', `cat ${file}`], workspace: served } });

  describe('on the process executor (what auto falls back to without Docker or bubblewrap)', () => {
    it('dead-letters an execute or evaluate task a queue writer put there, saying what to do, and never runs it', async () => {
      const { queue } = await worker({ executor: 'process' });
      const hostile = readHostFile(hostSecret);
      const evaluate = newTask({ kind: 'evaluate', requires: ['cpu'], payload: { exampleDir: served, program: 'import os; os.system("cat /etc/passwd")' } });
      await writeRaw(queue, hostile);
      await writeRaw(queue, evaluate);
      for (const task of [hostile, evaluate]) {
        const result = await resultOf(queue, task);
        assert.equal(result.status, 'error');
        assert.equal(result.error?.code, 'dead_letter', JSON.stringify(result));
        assert.doesNotMatch(JSON.stringify(result), /host-secret-7f3a/, 'the host file did not leave the host');
        const reason = await deadReason(queue, task);
        assert.equal(
          reason,
          `isolation_required: the process executor does not isolate, so this worker runs ${task.kind} tasks only from its own process; install Docker or bubblewrap on the worker, or start it with --allow-unisolated (PEAGEN_ALLOW_UNISOLATED=1) if every queue writer is trusted`,
        );
      }
    });

    it('still runs the tasks its own process submits (an `evolve run` on this queue), and echo tasks from anyone', async () => {
      const { engine, queue } = await worker({ executor: 'process' });
      const own = await engine.submit({ kind: 'execute', requires: ['cpu'], payload: { command: ['sh', '-c', 'echo own'], workspace: served } });
      assert.equal((await resultOf(queue, own)).status, 'ok');
      const echo = newTask({ kind: 'echo', requires: ['cpu'], payload: { message: 'harmless' } });
      await writeRaw(queue, echo);
      assert.deepEqual((await resultOf(queue, echo)).data, { message: 'harmless' });
    });

    it('a task its own process submitted and a queue writer then rewrote under the same id is refused, not trusted as its own', async () => {
      const { engine, queue } = await worker({ executor: 'process' });
      // The one slot is busy with a sleep while the writer rewrites the next task's record.
      const sleep = await engine.submit({ kind: 'sleep', requires: ['cpu'], payload: { ms: 1_500 } });
      while ((await admin.hget(queue.keys.task(sleep.id), 'state')) !== 'inflight') await new Promise((resolve) => setTimeout(resolve, 20));
      const own = await engine.submit({ kind: 'execute', requires: ['cpu'], payload: { command: ['sh', '-c', 'echo own'], workspace: served } });
      await admin.hset(queue.keys.task(own.id), 'task', JSON.stringify({ ...own, payload: { ...(own.payload as object), command: ['sh', '-c', `cat ${hostSecret}`] } }));
      const result = await resultOf(queue, own);
      assert.equal(result.error?.code, 'dead_letter', JSON.stringify(result));
      assert.doesNotMatch(JSON.stringify(result), /host-secret-7f3a/);
      assert.match(await deadReason(queue, own), /^task_tampered: task .* was changed in the queue after this process submitted it/);
    });

    it('runs foreign task code only when the worker itself opts in (sandbox.allowUnisolated)', async () => {
      const { queue } = await worker({ executor: 'process', allowUnisolated: true });
      const hostile = readHostFile(hostSecret);
      await writeRaw(queue, hostile);
      const result = await resultOf(queue, hostile);
      assert.equal(result.status, 'ok', JSON.stringify(result));
      assert.match(JSON.stringify(result.data), /host-secret-7f3a/, 'the owner chose to trust every writer: the attack of issue 36 works again');
    });
  });

  describe('limits: no task raises its own above the worker\'s ceilings', () => {
    // Connects to the worker host's Redis on loopback and asks PING.
    const pingRedis = (port: number): string[] => [
      'python3',
      '-c',
      `import socket\ntry:\n s = socket.create_connection(("127.0.0.1", ${port}), timeout=3); s.sendall(b"PING\\r\\n"); print("answered", s.recv(64))\nexcept OSError as error:\n print("unreachable", error)`,
    ];

    it('on bwrap a task asking limits.network gets no network: the host\'s Redis on loopback is out of reach, and the result says why', async () => {
      const { queue } = await worker({ executor: 'bwrap' });
      const hostile = newTask({ kind: 'execute', requires: ['cpu'], payload: { command: pingRedis(redis.port), workspace: served, limits: { network: true, timeoutMs: 20 * 3_600_000, memoryMb: 500_000 } } });
      await writeRaw(queue, hostile);
      const result = await resultOf(queue, hostile);
      assert.equal(result.status, 'ok', JSON.stringify(result));
      const data = result.data as { stdout: string; limitsLowered?: string[] };
      assert.match(data.stdout, /^unreachable/, data.stdout);
      assert.doesNotMatch(data.stdout, /PONG/);
      assert.deepEqual(data.limitsLowered, [
        "timeoutMs 72000000 lowered to 3600000 (this worker's sandbox.maxLimits.timeoutMs)",
        "memoryMb 500000 lowered to 8192 (this worker's sandbox.maxLimits.memoryMb)",
        "network true lowered to false (this worker's sandbox.maxLimits.network)",
      ]);
    });

    it('a worker whose ceilings allow the network gives it to a task that asks', async () => {
      const { queue } = await worker({ executor: 'bwrap', maxLimits: { network: true } });
      const task = newTask({ kind: 'execute', requires: ['cpu'], payload: { command: pingRedis(redis.port), workspace: served, limits: { network: true } } });
      await writeRaw(queue, task);
      const data = (await resultOf(queue, task)).data as { stdout: string; limitsLowered?: string[] };
      assert.match(data.stdout, /^answered .*PONG/, data.stdout);
      assert.equal(data.limitsLowered, undefined);
    });
  });

  describe(`signed tasks (${TASK_SECRET_ENV})`, () => {
    it('runs the tasks a holder of the secret queued, and dead-letters unsigned, forged, changed and expired ones with the reason', async () => {
      const prefix = uniquePrefix();
      const { engine: submitter, queue } = await worker({ executor: 'process' }, { prefix, withoutWorkers: true, env: { [TASK_SECRET_ENV]: SECRET } });
      const signed = await submitter.submit({ kind: 'echo', requires: ['cpu'], payload: { message: 'signed' } });
      assert.match(JSON.parse((await admin.hget(queue.keys.task(signed.id), 'task'))!).signature, /^v1:[0-9a-f]{64}$/, 'what this side queues is signed');
      const changed = await submitter.submit({ kind: 'echo', requires: ['cpu'], payload: { message: 'as signed' } });
      await admin.hset(queue.keys.task(changed.id), 'task', JSON.stringify({ ...changed, payload: { message: 'changed in Redis' } }));

      const unsigned = newTask({ kind: 'echo', requires: ['cpu'], payload: { message: 'unsigned' } });
      const forged = signTask(newTask({ kind: 'echo', requires: ['cpu'], payload: { message: 'forged' } }), 'another-secret-of-enough-length');
      const borrowed = { ...newTask({ kind: 'echo', requires: ['cpu'], payload: { message: 'borrowed' } }), signature: changed.signature };
      const expired = signTask({ ...newTask({ kind: 'echo', requires: ['cpu'], payload: { message: 'old' } }), createdAt: new Date(Date.now() - 8 * 86_400_000).toISOString() }, SECRET);
      for (const task of [unsigned, forged, borrowed, expired]) await writeRaw(queue, task);

      // The worker, another process in a real cluster, holds the same secret.
      await worker({ executor: 'process' }, { prefix, env: { [TASK_SECRET_ENV]: SECRET } });
      assert.deepEqual((await resultOf(queue, signed)).data, { message: 'signed' });
      const expected: [Task, RegExp][] = [
        [unsigned, /^unsigned_task: the task is not signed, and this worker runs only tasks signed with its PEAGEN_TASK_SECRET/],
        [forged, /^bad_signature: the task's signature does not match its content/],
        [changed, /^bad_signature: /],
        [borrowed, /^bad_signature: /],
        [expired, /^signature_expired: the task was signed 8 days ago, past the 7 days .*; submit it again/],
      ];
      for (const [task, reason] of expected) {
        const result = await resultOf(queue, task);
        assert.equal(result.error?.code, 'dead_letter', `${JSON.stringify(task.payload)}: ${JSON.stringify(result)}`);
        assert.match(await deadReason(queue, task), reason);
        assert.doesNotMatch(JSON.stringify(result.data ?? null), /changed in Redis|forged|borrowed/, 'never ran');
      }
    });

    it('a worker without the secret runs unsigned tasks as before', async () => {
      const { queue } = await worker({ executor: 'process' });
      const unsigned = newTask({ kind: 'echo', requires: ['cpu'], payload: { message: 'plain' } });
      await writeRaw(queue, unsigned);
      assert.deepEqual((await resultOf(queue, unsigned)).data, { message: 'plain' });
    });
  });
});
