/**
 * The Redis queue from the shipped bundle (dist/cli.js), whose Lua scripts are inlined by the
 * build: `task submit --sync` and `worker start` against QUEUE_URL=redis://...
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { RedisStreamsQueue } from '../../daemon/fabric/queue/redis/RedisStreamsQueue';
import { newTask } from '../../shared/task';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { CLI, tempDir } from '../fixtures/paths';
import { startRedisServer, type RedisServer } from '../fixtures/redisServer';

describe('the peagen CLI on a Redis queue', function () {
  this.timeout(90_000);
  let redis: RedisServer;
  let home: string;
  let worker: ChildProcess | undefined;
  before(async () => {
    redis = await startRedisServer();
    home = tempDir('redis-cli-home');
  });
  after(async () => {
    worker?.kill('SIGKILL');
    await redis?.stop();
  });

  function cliEnv(queueUrl: string): NodeJS.ProcessEnv {
    return { ...process.env, PEAGEN_HOME: home, QUEUE_URL: queueUrl };
  }

  it('runs `task submit --sync` through Redis', async () => {
    const url = `${redis.url}/1`;
    const run = spawnSync(process.execPath, [CLI, '--json', 'task', 'submit', 'echo', '--payload', '{"message":"via redis"}', '--sync'], {
      cwd: home,
      env: cliEnv(url),
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const { taskId, result } = JSON.parse(run.stdout) as { taskId: string; result: { status: string; data: unknown } };
    assert.equal(result.status, 'ok');
    assert.deepEqual(result.data, { message: 'via redis' });
    const admin = new Redis(url);
    try {
      assert.ok(await admin.exists(`{peagen}:result:${taskId}`), 'the result was stored in Redis');
      assert.equal(await admin.xlen('{peagen}:tasks:echo:'), 0, 'and its entry left the stream');
    } finally {
      admin.disconnect();
    }
  });

  it('`task result ID` reads back every finished task from a daemon on Redis, without --wait', async () => {
    const url = `${redis.url}/3`;
    const daemon = new DaemonProcess();
    const queue = new RedisStreamsQueue(url);
    try {
      await daemon.start([], { QUEUE_URL: url });
      const tasks = Array.from({ length: 12 }, (_, n) => newTask({ kind: 'echo', requires: ['cpu'], payload: { message: n } }));
      for (const task of tasks) await queue.enqueue(task);
      for (const task of tasks) assert.equal((await queue.waitForResult(task.id, 45_000))?.status, 'ok', daemon.log);
      for (const [n, task] of tasks.entries()) {
        const run = spawnSync(process.execPath, [CLI, '--json', 'task', 'result', task.id], {
          cwd: home,
          env: { ...cliEnv(url), PEAGEN_HOME: daemon.home },
          encoding: 'utf8',
          timeout: 30_000,
        });
        assert.equal(run.status, 0, `task ${n}: ${run.stderr}`);
        assert.deepEqual((JSON.parse(run.stdout) as { data: unknown }).data, { message: n });
      }
    } finally {
      await queue.close();
      await daemon.stop();
    }
  });

  it('`worker start` on a shared queue takes host paths in payloads only inside the directories it serves', async () => {
    const url = `${redis.url}/4`;
    const queue = new RedisStreamsQueue(url);
    // A secret outside the worker's directory, a link to it from inside, and a served workspace.
    const outside = tempDir('redis-cli-outside');
    fs.writeFileSync(path.join(outside, 'secret'), 'hunter2\n');
    const served = path.join(home, 'project');
    fs.mkdirSync(served, { recursive: true });
    fs.writeFileSync(path.join(served, 'note'), 'served\n');
    fs.rmSync(path.join(home, 'escape'), { force: true });
    fs.symlinkSync(outside, path.join(home, 'escape'));
    // The process executor, opted in: the host path policy is then all that stands between a
    // queue writer and the host's files (queueTrust.test.ts shows the refusal without the opt-in).
    const child = spawn(process.execPath, [CLI, 'worker', 'start', '--caps', 'cpu', '--allow-unisolated'], {
      cwd: home,
      env: { ...cliEnv(url), PEAGEN_EXECUTOR: 'process' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker = child;
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const execute = (workspace: string, extra: object = {}) =>
        newTask({ kind: 'execute', requires: ['cpu'], payload: { command: ['sh', '-c', 'cat * 2>/dev/null; cat /from-host/secret 2>/dev/null; true'], workspace, ...extra } });
      const tasks = {
        outsideWorkspace: execute(outside),
        linkedWorkspace: execute(path.join(home, 'escape')),
        relativeWorkspace: execute('../redis-cli-outside'),
        outsideMount: execute(served, { mounts: [{ hostPath: outside, sandboxPath: '/from-host' }] }),
        outsideExample: newTask({ kind: 'evaluate', requires: ['cpu'], payload: { exampleDir: outside } }),
        servedWorkspace: execute(served),
      };
      for (const task of Object.values(tasks)) await queue.enqueue(task);
      const results = Object.fromEntries(await Promise.all(Object.entries(tasks).map(async ([name, task]) => [name, await queue.waitForResult(task.id, 45_000)] as const)));
      for (const name of ['outsideWorkspace', 'linkedWorkspace', 'relativeWorkspace', 'outsideMount', 'outsideExample']) {
        const result = results[name];
        assert.equal(result?.error?.code, 'path_refused', `${name}: ${JSON.stringify(result)}\n${output}`);
        assert.match(result.error.message, /a worker on a shared queue takes host paths only there: add the directory to worker\.roots/);
        assert.doesNotMatch(JSON.stringify(result), /hunter2/, `${name} leaked the secret`);
      }
      assert.equal(results.servedWorkspace?.status, 'ok', output);
      assert.match(JSON.stringify(results.servedWorkspace?.data), /served/, 'a workspace inside the served directory runs');
      assert.ok(child.exitCode === null, 'the worker is still serving');
    } finally {
      child.kill('SIGKILL');
      await queue.close();
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('serves tasks queued by another process with `worker start`', async () => {
    const url = `${redis.url}/2`;
    const queue = new RedisStreamsQueue(url);
    const child = spawn(process.execPath, [CLI, 'worker', 'start', '--caps', 'cpu'], {
      cwd: home,
      env: cliEnv(url),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker = child;
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const tasks = Array.from({ length: 5 }, (_, n) => newTask({ kind: 'echo', requires: ['cpu'], payload: { message: n } }));
      for (const task of tasks) await queue.enqueue(task);
      const results = await Promise.all(tasks.map((task) => queue.waitForResult(task.id, 45_000)));
      for (const [n, result] of results.entries()) {
        assert.equal(result?.status, 'ok', output);
        assert.deepEqual(result?.data, { message: n });
      }
      assert.deepEqual(await queue.stats(), { pending: 0, inFlight: 0, delayed: 0, dead: 0 });
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
      assert.match(output, /worker stopped \(terminated\)/);
    } finally {
      child.kill('SIGKILL');
      await queue.close();
    }
  });
});
