/**
 * Scale to zero as users run it (P-2 at test size), with several pools on one Redis as a
 * cluster has them: three `peagen worker start --warm-pool 2 --max-workers 3
 * --exit-after-idle 1` supervisors, with the tasks queued by another process. Every
 * supervisor's worker processes reach zero after the idle time (including a supervisor whose
 * warm processes got no task), stay at zero across a quiet window, come back when a task
 * arrives, and every exit is recorded with its reason.
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
const SUPERVISORS = 3;

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

/** One `worker start --warm-pool` process and what it printed. */
interface Supervisor {
  child: ChildProcess;
  stdout: string;
  stderr: string;
}

const count = (text: string, line: string): number => text.split(line).length - 1;

/**
 * At zero by the spawner's decision, not in the moment between a finished task's process
 * exiting and its warm replacement being forked: it starts active, so it has scaled to zero
 * once more than it has scaled up, and holds no process.
 */
function atZero(supervisor: Supervisor): boolean {
  return count(supervisor.stderr, 'scaling to zero') === count(supervisor.stderr, 'scaling up') + 1 && childrenOf(supervisor.child.pid as number).length === 0;
}

describe('scale to zero: several `worker start --warm-pool` supervisors on a shared Redis', function () {
  this.timeout(180_000);
  let redis: RedisServer;
  let queue: TaskQueue;
  const supervisors: Supervisor[] = [];
  const home = tempDir('scale-home');
  const logs = (): string => supervisors.map((supervisor, i) => `--- supervisor ${i}:\n${supervisor.stderr}`).join('\n');

  before(async () => {
    redis = await startRedisServer();
    const url = `${redis.url}?prefix=zero${process.pid}`;
    queue = await createQueue(url);
    for (let i = 0; i < SUPERVISORS; i++) {
      const child = spawn(
        process.execPath,
        [CLI, '--json', 'worker', 'start', '--caps', 'cpu', '--warm-pool', '2', '--max-workers', '3', '--exit-after-idle', String(IDLE_S)],
        { cwd: home, env: { ...process.env, PEAGEN_HOME: home, QUEUE_URL: url, PEAGEN_EXECUTOR: 'process' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const supervisor: Supervisor = { child, stdout: '', stderr: '' };
      child.stdout?.on('data', (chunk: Buffer) => (supervisor.stdout += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (supervisor.stderr += chunk.toString()));
      supervisors.push(supervisor);
    }
  });
  after(async () => {
    for (const { child } of supervisors) if (child.exitCode === null) child.kill('SIGKILL');
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
      logs(),
    );
  }

  it('serves tasks, every supervisor reaches zero worker processes after the idle time, stays there, and comes back for new work', async () => {
    // Every supervisor is up and connected (its heartbeat record is in the queue's directory);
    // whether its warm processes are still there or already retired by the idle time the
    // machine's speed decides, and either way they end as idle.
    const pids = supervisors.map(({ child }) => child.pid).sort();
    for (let listed: (number | undefined)[] = []; listed.join() !== pids.join(); await delay(50)) {
      listed = (await queue.listWorkers()).filter((worker) => worker.mode === 'warm').map((worker) => worker.pid).sort();
      assert.ok(supervisors.every(({ child }) => child.exitCode === null), logs());
    }
    await runTasks(12);
    const lastTaskAt = Date.now();
    // Polled together, so that each supervisor's time is its own.
    const tookMs = supervisors.map(() => -1);
    await waitFor('zero worker processes in every supervisor', () => {
      supervisors.forEach((supervisor, i) => {
        if (tookMs[i]! < 0 && atZero(supervisor)) tookMs[i] = Date.now() - lastTaskAt;
      });
      return tookMs.every((ms) => ms >= 0);
    });
    console.log(`      zero worker processes ${tookMs.join(', ')} ms after the last result (exit-after-idle ${IDLE_S} s)`);
    // S + 1 s is the target; the bound here leaves room for a loaded machine.
    for (const ms of tookMs) assert.ok(ms <= IDLE_S * 1000 + 5_000, `zero only ${ms} ms after the last task`);

    // A quiet window: no worker process appears while nothing is queued.
    for (const stopAt = Date.now() + 2_000; Date.now() < stopAt; ) {
      for (const { child } of supervisors) assert.deepEqual(childrenOf(child.pid as number), [], 'no worker process while scaled to zero');
      await delay(50);
    }
    for (const { child } of supervisors) assert.equal(child.exitCode, null, 'the supervisor stays, holding no worker process');

    const zerosBefore = supervisors.map((supervisor) => count(supervisor.stderr, 'scaling to zero'));
    await runTasks(6);
    // The supervisors that saw the new work scaled up (at least one did: the tasks ran); every one ends at zero again.
    await waitFor('zero worker processes again', () => supervisors.every(atZero) && supervisors.some((supervisor, i) => count(supervisor.stderr, 'scaling to zero') > zerosBefore[i]!));

    const records = await Promise.all(
      supervisors.map(async (supervisor) => {
        const exited = new Promise((resolve) => supervisor.child.once('exit', resolve));
        supervisor.child.kill('SIGINT');
        await exited;
        return JSON.parse(supervisor.stdout.trim()) as { stopped: boolean; exitReasons: Record<string, number> };
      }),
    );
    const completed = records.reduce((sum, record) => sum + (record.exitReasons.completed ?? 0), 0);
    assert.ok(completed >= 18, `every task's process exited as completed: ${JSON.stringify(records)}`);
    for (const record of records) {
      assert.equal(record.stopped, true);
      assert.ok((record.exitReasons.idle ?? 0) >= 1, `unused warm processes retired as idle: ${JSON.stringify(record)}`);
    }
  });
});
