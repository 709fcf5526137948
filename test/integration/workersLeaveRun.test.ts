/**
 * An `evolve run` on a shared queue leaves its proposals and evaluations to the workers listed
 * there; when they stop for good while it runs, the run takes those tasks over and says so,
 * instead of waiting for them forever (servingWorkers.ts).
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RedisStreamsQueue } from '../../daemon/fabric/queue/redis/RedisStreamsQueue';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { NO_CONFIRMATION } from '../fixtures/evolveFixtures';
import { CLI, tempDir } from '../fixtures/paths';
import { startRedisServer, type RedisServer } from '../fixtures/redisServer';

/** Resolves once `read()` matches `pattern`, or rejects after `timeoutMs`. */
async function waitFor(read: () => string, pattern: RegExp, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!pattern.test(read())) {
    if (Date.now() > until) throw new Error(`no ${pattern} within ${timeoutMs} ms in:\n${read().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('an evolve run whose workers on the shared queue stop for good', function () {
  this.timeout(180_000);
  let redis: RedisServer;
  const children: ChildProcess[] = [];
  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await redis?.stop();
  });

  function start(args: string[], env: NodeJS.ProcessEnv, cwd: string): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return { child, output: () => output, exited: new Promise((resolve) => child.once('exit', resolve)) };
  }

  it('takes their tasks over and finishes, saying so', async () => {
    const queueUrl = `${redis.url}?prefix=leave${process.pid}`;
    const projects = tempDir('leave-projects');
    // Counted, not timed (bad_sort_ops): each evaluation takes a fraction of a second, yet the run
    // cannot end without the takeover, since the worker leaves while the run's first tasks wait.
    const project = path.join(projects, 'bad_sort_ops');
    fs.cpSync(badSortOpsDir(), project, { recursive: true });
    const worker = start(['worker', 'start', '--caps', 'cpu', '--concurrency', '1'], { PEAGEN_HOME: tempDir('leave-worker'), QUEUE_URL: queueUrl, PEAGEN_WORKER_ROOTS: projects }, projects);
    const queue = new RedisStreamsQueue(queueUrl);
    try {
      const until = Date.now() + 60_000;
      while ((await queue.listWorkers()).length === 0) {
        assert.ok(Date.now() < until, `the worker never listed itself:\n${worker.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const run = start(['evolve', 'run', project, ...NO_CONFIRMATION, '--evaluations', '6'], { PEAGEN_HOME: tempDir('leave-run'), QUEUE_URL: queueUrl }, project);
      await waitFor(run.output, /tasks run in the queue's workers \(mutate: 1 slot\(s\) in 1 pool\(s\); evaluate: 1 slot\(s\) in 1 pool\(s\)\)/, 60_000);
      worker.child.kill('SIGTERM');
      assert.equal(await worker.exited, 0, worker.output());
      const code = await Promise.race([run.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 120_000))]);
      assert.equal(code, 0, `the run ended by itself once its workers had gone:\n${run.output().slice(-3000)}`);
      assert.match(run.output(), /no worker on the queue serves mutate tasks or evaluate tasks any more \(they stopped\): this process runs them from now on, with \d+ slot\(s\) in all/);
      assert.match(run.output(), /stopped by evaluations/);
    } finally {
      await queue.close();
    }
  });
});
