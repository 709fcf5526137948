import * as assert from 'node:assert/strict';
import { ConfigSchema } from '../../daemon/config';
import { Engine } from '../../daemon/engine/Engine';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { createRegistry } from '../../daemon/handlers';
import { TaskFollowers } from '../../daemon/rpc/taskFollowers';
import type { TaskUpdate } from '../../shared/protocol';

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(check(), 'the condition did not come true within 10 s');
}

describe('TaskFollowers (task updates routed to whoever submitted the task)', function () {
  this.timeout(20_000);
  let engine: Engine;
  beforeEach(() => {
    engine = new Engine(ConfigSchema.parse({ worker: { concurrency: 1 } }), { queue: new MemoryQueue(), registry: createRegistry() });
  });
  afterEach(() => engine.stop({ drain: false }));

  it('sends a follower every state of its task from `queued` on, and forgets the task at its end', async () => {
    const followers = TaskFollowers.of(engine);
    const mine: TaskUpdate.Params[] = [];
    const other: TaskUpdate.Params[] = [];
    const task = await engine.submit({ kind: 'echo' }, (created) => followers.follow(created.id, (update) => mine.push(update)));
    followers.follow('t-someone-else', (update) => other.push(update));
    await until(() => mine.some((update) => update.state === 'done'));
    assert.deepEqual(
      mine.map((update) => [update.taskId, update.state]),
      [[task.id, 'queued'], [task.id, 'running'], [task.id, 'done']],
    );
    assert.deepEqual(other, [], 'an update reaches only the followers of its task');
    assert.equal(followers.size, 1, 'a finished task is no longer followed; the other one still is');
  });

  it('drops every follow of a follower that went away', async () => {
    const followers = TaskFollowers.of(engine);
    const seen: TaskUpdate.Params[] = [];
    const follower = (update: TaskUpdate.Params): void => void seen.push(update);
    // A long task: it is still running when its follower goes away.
    const task = await engine.submit({ kind: 'sleep', payload: { ms: 60_000 } }, (created) => followers.follow(created.id, follower));
    await until(() => seen.some((update) => update.state === 'running'));
    followers.forget(follower);
    assert.equal(followers.size, 0);
    assert.equal(await engine.cancel(task.id), true);
    assert.equal((await engine.result(task.id, 10_000))?.error?.code, 'cancelled');
    assert.deepEqual(
      seen.map((update) => update.state),
      ['queued', 'running'],
      'no update after forget',
    );
  });
});
