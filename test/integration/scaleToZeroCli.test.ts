/**
 * Scale to zero as users run it (P-2 at test size): `peagen worker start --warm-pool 1
 * --max-workers 2 --exit-after-idle 1` on a real Redis, with the tasks queued by another
 * process. Its worker processes reach zero after the idle time, stay at zero across a quiet
 * window, come back when a task arrives, and every exit is recorded with its reason.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { createQueue } from '../../daemon/fabric/queue/createQueue';
import type { TaskQueue } from '../../daemon/fabric/queue/TaskQueue';
import { newTask } from '../../shared/task';
import { CLI, tempDir } from '../fixtures/paths';
import { running } from '../fixtures/processes';
import { type RedisServer, startRedisServer } from '../fixtures/redisServer';

const IDLE_S = 1;

/** Live child processes of `pid` (the warm spawner's worker processes). */
function childrenOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid && running(Number(entry));
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > giveUpAt) assert.fail(`timed out waiting for ${what}`);
    await delay(20);
  }
}

describe('scale to zero: `worker start --warm-pool` on a shared Redis', function () {
  this.timeout(180_000);
  let redis: RedisServer;
  let queue: TaskQueue;
  let worker: ChildProcess;
  const home = tempDir('scale-home');
  let stdout = '';
  let stderr = '';

  before(async () => {
    redis = await startRedisServer();
    const url = `${redis.url}?prefix=zero${process.pid}`;
    queue = await createQueue(url);
    worker = spawn(
      process.execPath,
      [CLI, '--json', 'worker', 'start', '--caps', 'cpu', '--warm-pool', '1', '--max-workers', '2', '--exit-after-idle', String(IDLE_S)],
      { cwd: home, env: { ...process.env, PEAGEN_HOME: home, QUEUE_URL: url, PEAGEN_EXECUTOR: 'process' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    worker.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    worker.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  });
  after(async () => {
    if (worker.exitCode === null) worker.kill('SIGKILL');
    await queue?.close();
    await redis?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  async function runTasks(count: number): Promise<void> {
    const tasks = Array.from({ length: count }, (_, i) => newTask({ kind: 'echo', payload: { message: `m${i}` }, requires: ['cpu'] }));
    await Promise.all(tasks.map((task) => queue.enqueue(task)));
    const results = await Promise.all(tasks.map((task) => queue.waitForResult(task.id, 120_000)));
    assert.deepEqual(
      results.map((result) => result?.status),
      tasks.map(() => 'ok'),
      stderr,
    );
  }

  it('serves tasks, reaches zero worker processes after the idle time, stays there, and comes back for new work', async () => {
    const pid = worker.pid as number;
    await waitFor('a warm worker process', () => childrenOf(pid).length >= 1);
    await runTasks(4);
    const lastTaskAt = Date.now();
    // Zero by the spawner's decision, not the moment between a finished task's process exiting
    // and the warm replacement being forked.
    const scaledToZero = (): number => stderr.split('scaling to zero').length - 1;
    await waitFor('zero worker processes', () => scaledToZero() >= 1 && childrenOf(pid).length === 0);
    const tookMs = Date.now() - lastTaskAt;
    console.log(`      zero worker processes ${tookMs} ms after the last result (exit-after-idle ${IDLE_S} s)`);
    // S + 1 s is the target; the bound here leaves room for a loaded machine.
    assert.ok(tookMs <= IDLE_S * 1000 + 5_000, `zero only ${tookMs} ms after the last task`);

    // A quiet window: no worker process appears while nothing is queued.
    for (const stopAt = Date.now() + 2_000; Date.now() < stopAt; ) {
      assert.deepEqual(childrenOf(pid), [], 'no worker process while scaled to zero');
      await delay(50);
    }
    assert.equal(worker.exitCode, null, 'the supervisor stays, holding no worker process');

    await runTasks(2);
    await waitFor('zero worker processes again', () => scaledToZero() >= 2 && childrenOf(pid).length === 0);

    worker.kill('SIGINT');
    await new Promise((resolve) => worker.once('exit', resolve));
    const record = JSON.parse(stdout.trim()) as { stopped: boolean; exitReasons: Record<string, number> };
    assert.equal(record.stopped, true);
    assert.ok((record.exitReasons.completed ?? 0) >= 6, `every task's process exited as completed: ${stdout}`);
    assert.ok((record.exitReasons.idle ?? 0) >= 1, `unused warm processes retired as idle: ${stdout}`);
  });
});
