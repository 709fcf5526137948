/**
 * A shared cluster on one machine: a daemon that runs no workers (`--no-workers`) and two
 * `peagen worker start` processes with state directories of their own (stand-ins for other
 * hosts) join one real Redis. The daemon's status shows every worker and the queue's depth
 * per requirement set, the dead-letter commands work across processes, and an `evolve run`
 * submitted to the daemon is served by the workers started elsewhere.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Status } from '../../shared/protocol';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { NO_CONFIRMATION } from '../fixtures/evolveFixtures';
import { CLI, TEST_PLUGIN, tempDir } from '../fixtures/paths';
import { type RedisServer, startRedisServer } from '../fixtures/redisServer';

interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

describe('a shared cluster: one Redis, a daemon without workers, workers elsewhere', function () {
  this.timeout(300_000);
  let redis: RedisServer;
  const daemon = new DaemonProcess();
  const workers: ChildProcess[] = [];
  const workerHomes: string[] = [];
  let queueUrl: string;
  let workerLog = '';

  function cli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = daemon.home): CliRun {
    const run = spawnSync(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, PEAGEN_HOME: daemon.home, QUEUE_URL: queueUrl, ...env },
      encoding: 'utf8',
      timeout: 240_000,
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  }
  async function status(): Promise<Status.Response> {
    const run = cli(['daemon', 'status', '--json']);
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as Status.Response;
  }
  const projects = tempDir('cluster-projects');
  function startWorker(caps: string): void {
    const home = tempDir('cluster-worker');
    workerHomes.push(home);
    const child = spawn(process.execPath, [CLI, 'worker', 'start', '--caps', caps, '--concurrency', '2'], {
      cwd: home,
      // The workers serve the projects directory (and the bundled examples), as a cluster's would.
      env: { ...process.env, PEAGEN_HOME: home, QUEUE_URL: queueUrl, WORKER_PLUGINS: TEST_PLUGIN, PEAGEN_WORKER_ROOTS: projects },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => (workerLog += chunk.toString()));
    workers.push(child);
  }

  before(async () => {
    redis = await startRedisServer();
    queueUrl = `${redis.url}?prefix=cluster${process.pid}`;
    await daemon.start(['--no-workers'], { QUEUE_URL: queueUrl });
    startWorker('cpu');
    startWorker('cpu,gpu');
  });
  after(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await daemon.stop();
    for (const home of workerHomes) fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(projects, { recursive: true, force: true });
    await redis?.stop();
  });

  it('daemon status shows the workers of every host with their caps, and none in the daemon', async () => {
    let seen: Status.Response | undefined;
    for (let i = 0; i < 300; i++) {
      seen = await status();
      if (seen.cluster.workers.length === 2) break;
      await delay(100);
    }
    assert.ok(seen, 'a status answer');
    assert.equal(seen.workers.count, 0, `the daemon runs no workers:\n${daemon.log}`);
    const pids = workers.map((worker) => worker.pid).sort();
    assert.deepEqual(seen.cluster.workers.map((worker) => worker.pid).sort(), pids, `both workers are listed:\n${workerLog}`);
    assert.deepEqual(seen.cluster.workers.map((worker) => worker.caps.join(',')).sort(), ['cpu', 'cpu,gpu']);
    const text = cli(['daemon', 'status']);
    assert.match(text.stdout, /^cluster: 2 worker pools on 1 host, 4 slots, /m);
    assert.match(text.stdout, /workers here: none/);
  });

  it('queue stats shows pending work per requirement set; a gpu task runs only on the gpu worker', async () => {
    const submitted = cli(['task', 'submit', 'gpu-echo', '--requires', 'cpu,gpu', '--payload', '{"n":1}', '--wait', '120', '--json']);
    assert.equal(submitted.status, 0, submitted.stderr);
    const result = JSON.parse(submitted.stdout) as { result?: { data?: { pid?: number } }; data?: { pid?: number } };
    const ranIn = result.result?.data?.pid ?? result.data?.pid;
    const gpuWorker = (await status()).cluster.workers.find((worker) => worker.caps.includes('gpu'));
    assert.ok(gpuWorker, 'the gpu worker is listed');
    assert.equal(ranIn, gpuWorker.pid, `the gpu task ran in the gpu worker's process: ${submitted.stdout}`);

    // Work no worker can take waits in its own requirement set, visible to the operator.
    const waiting = cli(['task', 'submit', 'gpu-echo', '--requires', 'cpu,cuda12', '--json']);
    const waitingId = (JSON.parse(waiting.stdout) as { taskId: string }).taskId;
    const stats = cli(['queue', 'stats']);
    assert.match(stats.stdout, /gpu-echo \[cpu, cuda12\]: 1 pending, 0 in flight/, stats.stdout);
    const depth = (JSON.parse(cli(['queue', 'stats', '--json']).stdout) as { cluster: Status.Response['cluster'] }).cluster.depth;
    const { oldestPendingMs, ...cuda } = depth.find((entry) => entry.requires.includes('cuda12'))!;
    assert.deepEqual(cuda, { kind: 'gpu-echo', requires: ['cpu', 'cuda12'], pending: 1, inFlight: 0, delayed: 0 });
    assert.ok(oldestPendingMs >= 0, 'the waiting task has an age');
    assert.equal(cli(['task', 'cancel', waitingId]).status, 0);
  });

  it('dead letters are listed, inspected and retried through the daemon', async () => {
    // A handler that fails every attempt with a retryable error: dead-lettered after 3.
    const submitted = cli(['task', 'submit', 'flaky', '--wait', '120', '--json']);
    const taskId = /"taskId":\s*"([^"]+)"/.exec(submitted.stdout)?.[1];
    assert.ok(taskId, `a task id in ${submitted.stdout}${submitted.stderr}`);
    const list = cli(['queue', 'dlq', 'list']);
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`${taskId}\\s+flaky\\s+attempts=3\\s+flaky: a transient failure`));
    const inspect = cli(['queue', 'dlq', 'inspect', taskId, '--json']);
    assert.equal((JSON.parse(inspect.stdout) as { task: { id: string } }).task.id, taskId);
    const retry = cli(['queue', 'dlq', 'retry', taskId]);
    assert.equal(retry.status, 0, retry.stderr);
    // It fails again on a worker elsewhere and is back in the list.
    for (let i = 0; i < 300; i++) {
      const again = cli(['queue', 'dlq', 'list', '--json']);
      const entries = JSON.parse(again.stdout) as { task: { id: string } }[];
      if (entries.some((entry) => entry.task.id === taskId)) return;
      await delay(100);
    }
    assert.fail('the retried task did not come back to the dead-letter list');
  });

  it('an evolve run submitted to the daemon is served by the workers started elsewhere', async () => {
    // Counted, not timed (bad_sort_ops): the run is about who serves its tasks, not their speed.
    const out = path.join(projects, 'cluster-run');
    fs.cpSync(badSortOpsDir(), out, { recursive: true });
    const run = cli(['evolve', 'run', out, ...NO_CONFIRMATION, '--evaluations', '4'], {}, out);
    assert.equal(run.status, 0, `${run.stderr}\n${workerLog.slice(-3000)}`);
    assert.match(run.stderr, /started in the daemon \(pid/, 'the run used the daemon, which runs no workers');
    const listed = cli(['evolve', 'list', '--json'], {}, out);
    const runs = (JSON.parse(listed.stdout) as { runs: { evaluations?: number; state?: string }[] }).runs;
    assert.equal(runs.length, 1, listed.stdout);
    assert.ok((runs[0]?.evaluations ?? 0) >= 4, `the workers elsewhere evaluated the children: ${listed.stdout}\n${run.stdout}`);
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('a run nobody serves says so at once, and stops with a checkpoint after the wait (never waits forever)', async () => {
    // A second coordinator on a queue of its own, which no worker serves.
    const lonely = new DaemonProcess();
    const project = tempDir('cluster-lonely');
    try {
      const config = path.join(lonely.home, 'peagen.json');
      fs.writeFileSync(config, JSON.stringify({ daemon: { workers: false, unservedWaitMs: 4000 } }));
      const lonelyQueue = `${redis.url}?prefix=lonely${process.pid}`;
      await lonely.start(['--no-workers', '--config', config], { QUEUE_URL: lonelyQueue });
      fs.cpSync(badSortOpsDir(), project, { recursive: true });
      const run = cli(['evolve', 'run', project, '--evaluations', '4'], { PEAGEN_HOME: lonely.home, QUEUE_URL: lonelyQueue }, project);
      assert.equal(run.status, 130, `${run.stderr}\n${lonely.log.slice(-3000)}`);
      assert.match(run.stderr, /no worker on the queue serves mutate tasks or evaluate tasks \(none started, or they stopped\), and this daemon runs no workers: the run waits for one \(start `peagen worker start`/);
      assert.match(run.stderr, /no worker served mutate tasks or evaluate tasks for 4 s: the run stopped with a checkpoint/);
      assert.match(run.stderr, /interrupted: the run is checkpointed; continue it with: peagen evolve run --resume \S+/);
    } finally {
      await lonely.stop();
      fs.rmSync(project, { recursive: true, force: true });
    }
  });

  it('a run of an example the workers do not serve ends at once, saying why and what to do', async () => {
    const elsewhere = tempDir('cluster-unserved');
    try {
      fs.cpSync(badSortOpsDir(), elsewhere, { recursive: true });
      const run = cli(['evolve', 'run', elsewhere, '--evaluations', '4'], {}, elsewhere);
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /failed: the evaluate task failed: path_refused: example directory ".*" is outside the directories this worker serves .* add the directory to worker\.roots in its peagen\.json or to PEAGEN_WORKER_ROOTS/);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
