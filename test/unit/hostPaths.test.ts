/**
 * A worker on a shared queue takes the host paths a task names only inside the directories it
 * serves (HostPathPolicy); tasks its own process submitted are exempt, and stop being so once
 * they finish.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod';
import { ConfigSchema, loadConfig } from '../../daemon/config';
import { Engine } from '../../daemon/engine/Engine';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { HandlerRegistry } from '../../daemon/fabric/worker/HandlerRegistry';
import type { TaskHandler } from '../../daemon/fabric/worker/TaskHandler';
import { servedPath } from '../../daemon/handlers/servedPath';
import { bundledExamplesDir, HostPathPolicy, HostPathRefused } from '../../daemon/sandbox/hostPaths';
import { newTask } from '../../shared/task';

describe('host paths a task may name (HostPathPolicy)', () => {
  let top: string;
  let served: string;
  let outside: string;
  beforeEach(() => {
    top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-host-paths-')));
    served = path.join(top, 'project');
    outside = path.join(top, 'project2'); // shares the served directory's name as a prefix
    fs.mkdirSync(path.join(served, 'examples', 'a'), { recursive: true });
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(served, 'link-out'));
    fs.symlinkSync(path.join(served, 'examples'), path.join(top, 'link-in'));
  });
  afterEach(() => fs.rmSync(top, { recursive: true, force: true }));

  it('takes a served directory and what is under it, as its real path', () => {
    const policy = new HostPathPolicy([served, path.join(top, 'missing'), '']);
    assert.deepEqual(policy.served, [served], 'a missing or empty root serves nothing (not the current directory)');
    assert.equal(policy.check(served, 'workspace'), served);
    assert.equal(policy.check(path.join(served, 'examples', 'a'), 'workspace'), path.join(served, 'examples', 'a'));
    assert.equal(policy.check(path.join(top, 'link-in', 'a'), 'workspace'), path.join(served, 'examples', 'a'), 'a link into a served directory is followed');
  });

  it('refuses a path outside, a link leading out, a prefix look-alike, a relative or missing path', () => {
    const policy = new HostPathPolicy([served]);
    for (const hostPath of [outside, path.join(served, 'link-out'), path.join(served, '..', 'project2'), '/', 'project', path.join(served, 'nope')]) {
      assert.throws(() => policy.check(hostPath, 'workspace'), (error: unknown) => error instanceof HostPathRefused && /add the directory to worker\.roots/.test(error.message), hostPath);
    }
  });

  it('a refusal is the task\'s non-retryable path_refused error; a trusted task is taken as it is until forgotten', () => {
    const policy = new HostPathPolicy([served]);
    const task = { id: 't-1' };
    assert.throws(() => servedPath(policy, task, outside, 'workspace'), (error: unknown) => (error as { code?: string; retryable?: boolean }).code === 'path_refused' && (error as { retryable?: boolean }).retryable === false);
    policy.trust(task.id);
    assert.equal(servedPath(policy, task, outside, 'workspace'), outside);
    assert.throws(() => servedPath(policy, { id: 't-2' }, outside, 'workspace'), /path_refused|outside the directories/);
    policy.forget(task.id);
    assert.throws(() => servedPath(policy, task, outside, 'workspace'), /outside the directories/);
    assert.equal(servedPath(undefined, task, outside, 'workspace'), outside, 'no policy (a private queue): any path');
  });

  it('worker.roots and PEAGEN_WORKER_ROOTS configure it; the bundled examples are found', () => {
    assert.deepEqual(ConfigSchema.parse({ worker: { roots: [served] } }).worker.roots, [served]);
    const config = loadConfig(undefined, { PEAGEN_WORKER_ROOTS: `${served}${path.delimiter}${outside}` });
    assert.deepEqual(config.worker.roots, [served, outside]);
    assert.ok(fs.existsSync(path.join(bundledExamplesDir(), 'bad_sort', 'peagen.example.json')));
  });

  it('the engine trusts the tasks it submits, not those others put on its queue, and forgets them once done', async () => {
    const policy = new HostPathPolicy([served]);
    const probe: TaskHandler<{ path: string }> = {
      kind: 'probe',
      provides: ['cpu'],
      payloadSchema: z.object({ path: z.string() }),
      async handle(task) {
        return { status: 'ok', data: servedPath(policy, task, task.payload.path, 'path') };
      },
    };
    const queue = new MemoryQueue();
    const engine = new Engine(ConfigSchema.parse({ worker: { concurrency: 1 } }), { queue, registry: new HandlerRegistry().register(probe), hostPaths: policy });
    try {
      const own = await engine.submit({ kind: 'probe', requires: ['cpu'], payload: { path: outside } });
      assert.equal((await engine.result(own.id, 10_000))?.data, outside);
      const foreign = newTask({ kind: 'probe', requires: ['cpu'], payload: { path: outside } });
      await queue.enqueue(foreign);
      const refused = await engine.result(foreign.id, 10_000);
      assert.equal(refused?.error?.code, 'path_refused');
      assert.throws(() => policy.check(outside, 'path', own.id), /outside the directories/, 'forgotten once done');
    } finally {
      await engine.stop({ drain: false });
    }
  });
});
