/**
 * What an operator sees with 64 worker pools on one Redis (issue 21, part 3): the pools
 * announce themselves to the queue's directory as `peagen worker start` does (the same
 * announceWorker call, from another process), and `peagen daemon status` / `peagen queue stats`
 * against a daemon without workers print the totals and one line per (host, caps) group;
 * `--workers` adds each pool's line and `--json` keeps every record.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createQueue } from '../../daemon/fabric/queue/createQueue';
import type { TaskQueue } from '../../daemon/fabric/queue/TaskQueue';
import type { Status } from '../../shared/protocol';
import { newTask, type WorkerRecord } from '../../shared/task';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { CLI } from '../fixtures/paths';
import { type RedisServer, startRedisServer } from '../fixtures/redisServer';
import { FLEET_CAPS_LINES, FLEET_HOST_LINES, FLEET_TOTAL_LINE, fleetRecords } from '../fixtures/workerFleet';

describe('daemon status and queue stats with 64 worker pools on one Redis', function () {
  this.timeout(120_000);
  let redis: RedisServer;
  let queue: TaskQueue;
  let queueUrl: string;
  const daemon = new DaemonProcess();
  let records: WorkerRecord[];

  function cli(args: string[]): string {
    const run = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, PEAGEN_HOME: daemon.home, QUEUE_URL: queueUrl }, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, `peagen ${args.join(' ')}: ${run.stderr}`);
    return run.stdout;
  }

  before(async () => {
    redis = await startRedisServer();
    queueUrl = `${redis.url}?prefix=scale${process.pid}`;
    await daemon.start(['--no-workers'], { QUEUE_URL: queueUrl });
    queue = await createQueue(queueUrl);
    // Work waiting for the docker pools: the depth lines come before the pools.
    await Promise.all(Array.from({ length: 3 }, () => queue.enqueue(newTask({ kind: 'evaluate', payload: {}, requires: ['docker', 'cpu'] }))));
  });
  // Renewed before each command as the pools' heartbeats would, so none reads as late (over
  // 22 s without one) however slow the machine; a TTL no test outlasts.
  beforeEach(async () => {
    records = fleetRecords(Date.now());
    await Promise.all(records.map((record) => queue.announceWorker(record, 600_000)));
  });
  after(async () => {
    await queue?.close();
    await daemon.stop();
    await redis?.stop();
  });

  /** The lines of the text without the per-run parts (pid, uptime, addresses, sandbox reason). */
  const clusterPart = (text: string): string[] => {
    const lines = text.trimEnd().split('\n');
    return lines.slice(lines.findIndex((line) => line.startsWith('cluster: ')), lines.findIndex((line) => line.startsWith('sandbox: ')));
  };

  for (const command of [['daemon', 'status'], ['queue', 'stats']]) {
    const name = `peagen ${command.join(' ')}`;

    it(`${name}: the totals and one line per caps set and per (host, caps), not 64 lines`, () => {
      const text = cli(command);
      assert.deepEqual(clusterPart(text), [FLEET_TOTAL_LINE, 'by caps:', ...FLEET_CAPS_LINES, 'by host:', ...FLEET_HOST_LINES, `(one line per pool: ${name} --workers)`], text);
      assert.match(text, /^ {2}evaluate \[cpu, docker\]: 3 pending, 0 in flight, 0 waiting to retry/m);
      assert.ok(text.indexOf('by requirement set:') < text.indexOf('cluster: '), 'the queue before the pools');
      assert.ok(!records.some((record) => text.includes(record.id)), 'no pool of its own');
      assert.ok(text.split('\n').length < 30, `${text.split('\n').length} lines:\n${text}`);
    });

    it(`${name} --workers: each of the 64 pools once more, after the groups`, () => {
      const lines = clusterPart(cli([...command, '--workers']));
      const pools = lines.slice(lines.indexOf('pools:') + 1);
      assert.deepEqual(lines.slice(0, lines.indexOf('pools:')), [FLEET_TOTAL_LINE, 'by caps:', ...FLEET_CAPS_LINES, 'by host:', ...FLEET_HOST_LINES]);
      assert.equal(pools.length, 64, pools.join('\n'));
      for (const record of records) {
        const line = pools.filter((candidate) => candidate.includes(` ${record.id} (pid ${record.pid})`));
        assert.equal(line.length, 1, `${record.id} listed once`);
        assert.ok(line[0]!.startsWith(`  ${record.host}  `) && line[0]!.includes(` ${record.busy}/${record.slots} busy`), line[0]);
      }
    });
  }

  it('--json keeps every record as it was announced', () => {
    const status = JSON.parse(cli(['daemon', 'status', '--json'])) as Status.Response;
    const byId = new Map(status.cluster.workers.map((worker) => [worker.id, worker]));
    assert.equal(status.cluster.workers.length, 64);
    for (const record of records) assert.deepEqual(byId.get(record.id), record);
    const stats = JSON.parse(cli(['queue', 'stats', '--json'])) as { cluster: Status.Response['cluster'] };
    assert.deepEqual(stats.cluster.workers, status.cluster.workers);
  });
});
