/**
 * The Redis Streams queue on a real 3-node Redis Cluster (three `redis-server
 * --cluster-enabled yes` on loopback, joined by `redis-cli --cluster create`): the TaskQueue
 * conformance suite unchanged, a workspace's keys in one hash slot on one node while two
 * workspaces can live on different nodes, and a round trip through the shipped CLI (`task
 * submit --sync` served by `worker start`, QUEUE_URL=redis+cluster://...).
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Cluster, Redis } from 'ioredis';
import { RedisStreamsQueue, type RedisQueueOptions } from '../../daemon/fabric/queue/redis/RedisStreamsQueue';
import type { Acceptor } from '../../daemon/fabric/queue/TaskQueue';
import { queueKeyPrefix } from '../../shared/redisAddress';
import { newTask } from '../../shared/task';
import { probeRedis } from '../../extension/cluster/redisProbe';
import { describeTaskQueueConformance } from '../conformance/taskQueue';
import { CLI, tempDir } from '../fixtures/paths';
import { type RedisCluster, startRedisCluster } from '../fixtures/redisCluster';

const CPU: Acceptor[] = [{ kind: 'echo', provides: ['cpu'] }];

let prefixCounter = 0;
function uniquePrefix(name: string): string {
  return `t${process.pid}-${name}-${++prefixCounter}`;
}

/** Every key of workspace `prefix`, per master node port (SCAN on each master, never KEYS). */
async function keysByNode(cluster: RedisCluster, prefix: string): Promise<Map<number, string[]>> {
  const found = new Map<number, string[]>();
  for (const port of cluster.ports) {
    const node = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
    await node.connect();
    try {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', `${queueKeyPrefix(prefix)}:*`, 'COUNT', 500);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      if (keys.length > 0) found.set(port, keys.sort());
    } finally {
      node.disconnect();
    }
  }
  return found;
}

/** Deletes every key of workspace `prefix` (they share one slot: one DEL per batch). */
async function deleteClusterKeys(cluster: RedisCluster, prefix: string): Promise<void> {
  for (const [port, keys] of await keysByNode(cluster, prefix)) {
    const node = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
    await node.connect();
    try {
      for (let start = 0; start < keys.length; start += 500) await node.del(...keys.slice(start, start + 500));
    } finally {
      node.disconnect();
    }
  }
}

describe('RedisStreamsQueue on a 3-node Redis Cluster', function () {
  this.timeout(60_000);
  let cluster: RedisCluster;
  let admin: Cluster;
  before(async () => {
    cluster = await startRedisCluster();
    admin = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })), { lazyConnect: true });
    await admin.connect();
  });
  after(async () => {
    admin?.disconnect();
    await cluster?.stop();
  });

  function queueAt(prefix: string, options: RedisQueueOptions = {}): RedisStreamsQueue {
    return new RedisStreamsQueue(`${cluster.url}?prefix=${prefix}`, options);
  }

  /** The port of the master serving `slot` (from CLUSTER SLOTS). */
  async function ownerOf(slot: number): Promise<number> {
    const range = (await admin.cluster('SLOTS')).find(([from, to]) => slot >= from && slot <= to);
    const master = range?.[2];
    assert.ok(master, `slot ${slot} is served`);
    return master[1];
  }

  describeTaskQueueConformance('RedisStreamsQueue on a Redis Cluster', async (options) => {
    const prefix = uniquePrefix('cluster-conformance');
    return { queue: queueAt(prefix, options), cleanup: () => deleteClusterKeys(cluster, prefix) };
  });

  it("keeps all of a workspace's keys in its hash slot, on the one node owning it", async () => {
    const prefix = uniquePrefix('one-slot');
    const queue = queueAt(prefix);
    try {
      // Every kind of key: streams of two requirement sets and their set, records, a result,
      // a dead letter, the worker directory.
      const done = newTask({ kind: 'echo', requires: ['cpu'] });
      const doomed = newTask({ kind: 'echo', requires: [] });
      await queue.enqueue(done);
      await queue.enqueue(doomed);
      const first = await queue.claim({ consumer: 'w', accepts: CPU, blockMs: 3_000 });
      const second = await queue.claim({ consumer: 'w', accepts: CPU, blockMs: 3_000 });
      assert.ok(first && second);
      for (const claim of [first, second]) {
        if (claim.task.id === done.id) assert.equal(await queue.ack(claim, { taskId: done.id, status: 'ok', attempts: 1 }), true);
        else assert.equal(await queue.fail(claim, { code: 'invalid', message: 'bad', retryable: false }), 'dead');
      }
      const now = Date.now();
      await queue.announceWorker({ id: 'w', host: 'h', pid: 1, caps: ['cpu'], kinds: ['echo'], mode: 'in-process', slots: 1, busy: 0, startedAt: now, seenAt: now }, 60_000);

      const slot = await admin.cluster('KEYSLOT', queueKeyPrefix(prefix));
      const owner = await ownerOf(slot);
      const byNode = await keysByNode(cluster, prefix);
      assert.deepEqual([...byNode.keys()], [owner], `every key is on the node owning slot ${slot}`);
      const keys = byNode.get(owner)!;
      const expected = [
        queue.keys.streams(),
        queue.keys.stream('echo', ['cpu']),
        queue.keys.stream('echo', []),
        queue.keys.task(done.id),
        queue.keys.result(done.id),
        queue.keys.task(doomed.id),
        queue.keys.result(doomed.id),
        queue.keys.dead(),
        queue.keys.workers(),
        queue.keys.workersLapse(),
      ];
      assert.deepEqual(keys, [...expected].sort(), 'these are all the keys the queue wrote');
      for (const key of keys) assert.equal(await admin.cluster('KEYSLOT', key), slot, `${key} hashes to the workspace's slot`);
      const ownerNode = new Redis({ host: '127.0.0.1', port: owner, lazyConnect: true });
      await ownerNode.connect();
      try {
        assert.equal(await ownerNode.cluster('COUNTKEYSINSLOT', slot), keys.length, 'and nothing else of ours is in that slot');
      } finally {
        ownerNode.disconnect();
      }
    } finally {
      await queue.close();
      await deleteClusterKeys(cluster, prefix);
    }
  });

  it('declares in KEYS every key a script touches that its caller can name (MONITOR on the owning node)', async () => {
    // What each script may touch without declaring it: keys it finds inside itself (lua/common.lua).
    const FOUND_INSIDE: Record<string, RegExp | undefined> = {
      claim: /:(tasks|task|result):/, // streams from the streams set, tasks from their entries and the delayed set
      reclaim: /:(tasks|task|result):/,
      stats: /:(tasks|task|result):/,
      cancel: /:tasks:/, // the task's stream, read from its record
      retryDead: /:tasks:/,
    };
    const prefix = uniquePrefix('declared');
    const tag = queueKeyPrefix(prefix);
    const owner = await ownerOf(await admin.cluster('KEYSLOT', tag));
    const node = new Redis({ host: '127.0.0.1', port: owner, lazyConnect: true });
    await node.connect();
    const monitor = await node.monitor();
    const lines: { args: string[]; source: string }[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => lines.push({ args, source }));
    // A lease long enough that no step loses it on a loaded machine; the stats step waits it out.
    const queue = queueAt(prefix, { leaseMs: 1_000, retryBaseMs: 50 });
    const step = async (script: string, operation: () => Promise<unknown>): Promise<void> => {
      await node.echo(`step ${script}`);
      await operation();
      await node.echo('step -'); // what follows is not checked (setting up the next step)
    };
    const mustClaim = async () => {
      const claim = await queue.claim({ consumer: 'w', accepts: CPU, blockMs: 3_000 });
      assert.ok(claim);
      return claim;
    };
    try {
      const now = Date.now();
      await queue.stats(); // connects: nothing is sent before
      await step('workers', () => queue.announceWorker({ id: 'w', host: 'h', pid: 1, caps: ['cpu'], kinds: ['echo'], mode: 'in-process', slots: 1, busy: 0, startedAt: now, seenAt: now }, 60_000));
      await step('workers', () => queue.listWorkers());
      const task = newTask({ kind: 'echo', requires: ['cpu'] });
      await step('enqueue', () => queue.enqueue(task));
      let claim = await mustClaim();
      await step('extend', () => queue.extendLease(claim));
      await step('fail', () => queue.fail(claim, { code: 'flaky', message: 'again', retryable: true }));
      await delay(100); // past the back-off: the next claim promotes it from the delayed set
      await step('claim', async () => (claim = await mustClaim()));
      await step('fail', () => queue.fail(claim, { code: 'invalid', message: 'bad', retryable: false }));
      await step('retryDead', () => queue.retryDead(task.id));
      claim = await mustClaim();
      await step('release', () => queue.release(claim));
      await step('cancel', () => queue.cancel(task.id));
      const other = newTask({ kind: 'echo', requires: ['cpu'] });
      await queue.enqueue(other);
      await mustClaim();
      await delay(1_100); // the lease runs out: stats reclaims it, a task it finds inside
      await step('stats', () => queue.stats());
      claim = await mustClaim();
      await step('ack', () => queue.ack(claim, { taskId: other.id, status: 'ok', attempts: 2 }));
      await step('reclaim', () => queue.reclaimExpired());
      await node.echo('step end');
      while (!lines.some((line) => line.args[0] === 'echo' && line.args[1] === 'step end')) await delay(10);

      let script = '';
      let declared = new Set<string>();
      const checked = new Set<string>();
      for (const { args, source } of lines) {
        const [name = '', ...rest] = args;
        if (name === 'echo' && rest[0]?.startsWith('step ')) script = rest[0].slice('step '.length);
        else if (source !== 'lua' && (name === 'evalsha' || name === 'eval')) declared = new Set(rest.slice(2, 2 + Number(rest[1])));
        else if (source === 'lua' && script && script !== '-') {
          let touched: string[] = [];
          try {
            touched = (await admin.call('COMMAND', 'GETKEYS', ...args)) as string[];
          } catch {
            // TIME, PUBLISH: no keys
          }
          for (const key of touched) {
            assert.ok(key.startsWith(`${tag}:`), `${script} touched ${key}, outside the workspace`);
            if (!declared.has(key)) assert.match(key, FOUND_INSIDE[script] ?? /^$/, `${script} touched ${key} (${name}) without declaring it`);
          }
          checked.add(script);
        }
      }
      assert.deepEqual([...checked].sort(), ['ack', 'cancel', 'claim', 'enqueue', 'extend', 'fail', 'reclaim', 'release', 'retryDead', 'stats', 'workers']);
    } finally {
      monitor.disconnect();
      node.disconnect();
      await queue.close();
      await deleteClusterKeys(cluster, prefix);
    }
  });

  it('spreads workspaces over the nodes: two prefixes whose slots two nodes own each live there', async () => {
    // The first names (in a fixed order) whose slots are owned by two different nodes.
    const candidates = Array.from({ length: 32 }, (_, n) => `${uniquePrefix('spread')}-${n}`);
    const owners = new Map<string, number>();
    for (const name of candidates) owners.set(name, await ownerOf(await admin.cluster('KEYSLOT', queueKeyPrefix(name))));
    const [a, b] = [candidates[0]!, candidates.find((name) => owners.get(name) !== owners.get(candidates[0]!))];
    assert.ok(b, 'two of 32 names hash to slots of different nodes');
    const queues = [a, b].map((prefix) => queueAt(prefix));
    try {
      for (const [index, queue] of queues.entries()) {
        const task = newTask({ kind: 'echo', requires: ['cpu'], payload: { workspace: index } });
        await queue.enqueue(task);
        const claim = await queue.claim({ consumer: `w${index}`, accepts: CPU, blockMs: 3_000 });
        assert.equal(claim?.task.id, task.id, 'each workspace hands out its own task');
        assert.equal(await queue.ack(claim, { taskId: task.id, status: 'ok', attempts: 1 }), true);
      }
      for (const prefix of [a, b]) {
        assert.deepEqual([...(await keysByNode(cluster, prefix)).keys()], [owners.get(prefix)], `workspace ${prefix} lives on its slot's node only`);
      }
      assert.notEqual(owners.get(a), owners.get(b));
    } finally {
      for (const queue of queues) await queue.close();
      for (const prefix of [a, b]) await deleteClusterKeys(cluster, prefix);
    }
  });

  it('authenticates every node with PEAGEN_REDIS_PASSWORD, and says so when it is wrong or missing', async () => {
    const PASSWORD = 'cluster horse battery';
    const secured = await startRedisCluster({ password: PASSWORD });
    try {
      const queue = new RedisStreamsQueue(`${secured.url}?prefix=${uniquePrefix('auth')}`, { env: { PEAGEN_REDIS_PASSWORD: PASSWORD } });
      try {
        const task = newTask({ kind: 'echo', requires: ['cpu'] });
        await queue.enqueue(task);
        assert.equal((await queue.claim({ consumer: 'w', accepts: CPU, blockMs: 3_000 }))?.task.id, task.id);
      } finally {
        await queue.close();
      }
      // The editor's probe says the same of the cluster, in the words of its settings.
      assert.equal(await probeRedis(secured.url, PASSWORD), undefined);
      assert.equal((await probeRedis(secured.url, 'not-it-at-all'))?.kind, 'redis-password-refused');
      assert.equal((await probeRedis(secured.url, undefined))?.kind, 'redis-password-required');
      for (const [env, message] of [
        [{ PEAGEN_REDIS_PASSWORD: 'not-it-at-all' }, /refused to authenticate .*check PEAGEN_REDIS_PASSWORD/],
        [{}, /requires a password: set PEAGEN_REDIS_PASSWORD/],
      ] as const) {
        const refused = new RedisStreamsQueue(secured.url, { env });
        await assert.rejects(refused.stats(), (error: Error) => {
          assert.match(error.message, new RegExp(`Redis at ${secured.url.replace(/[.+]/g, '\\$&')} `));
          assert.match(error.message, message);
          assert.doesNotMatch(error.message, /not-it-at-all|horse/);
          return true;
        });
        await refused.close();
      }
    } finally {
      await secured.stop();
    }
  });

  it("the editor's Redis probe checks the cluster the daemon will use, from any listed node that answers", async () => {
    assert.equal(await probeRedis(cluster.url, undefined), undefined, 'every master the cluster announces answers');
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.equal(await probeRedis(`redis+cluster://127.0.0.1:${deadPort},127.0.0.1:${cluster.ports[1]}`, undefined), undefined, 'a dead seed is fine while another answers');
    const none = await probeRedis(`redis+cluster://127.0.0.1:${deadPort}`, undefined);
    assert.equal(none?.kind, 'redis-unreachable');
  });

  it('round trip: tasks queued here are served by a `worker start` process on QUEUE_URL=redis+cluster://..., results heard here', async () => {
    const home = tempDir('redis-cluster-cli');
    const queue = new RedisStreamsQueue(cluster.url);
    let output = '';
    const worker: ChildProcess = spawn(process.execPath, [CLI, 'worker', 'start', '--caps', 'cpu'], {
      cwd: home,
      env: { ...process.env, PEAGEN_HOME: home, QUEUE_URL: cluster.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    worker.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // A listener on every node: the scripts publish on the node owning the slot, and a client's
    // subscription may be on any node (ioredis picks one).
    const heard = new Map<number, Set<string>>();
    const listeners = await Promise.all(
      cluster.ports.map(async (port) => {
        const listener = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
        await listener.connect();
        heard.set(port, new Set());
        listener.on('message', (_channel: string, message: string) => {
          const event = JSON.parse(message) as { taskId: string; state?: string };
          if (event.state === 'done') heard.get(port)!.add(event.taskId);
        });
        await listener.subscribe('{peagen}:events');
        return listener;
      }),
    );
    try {
      const tasks = Array.from({ length: 6 }, (_, n) => newTask({ kind: 'echo', requires: ['cpu'], payload: { message: `via a cluster ${n}` } }));
      for (const task of tasks) await queue.enqueue(task);
      const results = await Promise.all(tasks.map((task) => queue.waitForResult(task.id, 45_000)));
      for (const [n, result] of results.entries()) {
        assert.equal(result?.status, 'ok', `task ${n}: ${JSON.stringify(result)}\n${output}`);
        assert.deepEqual(result.data, { message: `via a cluster ${n}` });
      }
      assert.ok(await admin.exists(`{peagen}:result:${tasks[0]!.id}`), 'results are stored under the default workspace {peagen}');
      assert.equal(await admin.xlen('{peagen}:tasks:echo:cpu'), 0, 'and the entries left the stream');
      assert.ok(worker.exitCode === null, `the worker is still serving\n${output}`);
      const ids = tasks.map((task) => task.id).sort();
      for (const port of cluster.ports) {
        // A PUBLISH reaches the other nodes over the cluster bus, after the script's reply: wait for it.
        for (let tries = 0; heard.get(port)!.size < ids.length && tries < 200; tries++) await delay(25);
        assert.deepEqual([...heard.get(port)!].sort(), ids, `a subscriber on node ${port} heard every task finish`);
      }
    } finally {
      for (const listener of listeners) listener.disconnect();
      worker.kill('SIGKILL');
      await queue.close();
      await deleteClusterKeys(cluster, 'peagen');
    }
  });
});
