import * as assert from 'node:assert/strict';
import { GetResult, SubmitTask } from '../../shared/protocol';
import { newTask, parseTask, ResultSchema, TASK_SCHEMA_VERSION } from '../../shared/task';

describe('task schema', () => {
  it('newTask fills id, attempts, createdAt and the current schema version', () => {
    const task = newTask({ kind: 'echo', payload: { message: 'x' }, requires: ['cpu'] });
    assert.match(task.id, /^t-/);
    assert.equal(task.attempts, 0);
    assert.equal(task.schemaV, TASK_SCHEMA_VERSION);
    assert.ok(!Number.isNaN(Date.parse(task.createdAt)));
    assert.notEqual(newTask({ kind: 'echo' }).id, newTask({ kind: 'echo' }).id);
  });

  it('ignores unknown fields, so newer producers can add them', () => {
    const parsed = parseTask({ ...newTask({ kind: 'echo' }), addedLater: 1, schemaV: '1.7' });
    assert.ok(parsed.ok);
    assert.equal('addedLater' in parsed.task, false);
  });

  it('answers a task of a higher major schema version with a schema_version error', () => {
    const task = { ...newTask({ kind: 'echo' }), schemaV: '2.0' };
    const parsed = parseTask(task);
    assert.equal(parsed.ok, false);
    if (parsed.ok) return;
    assert.equal(parsed.error.code, 'schema_version');
    assert.equal(parsed.taskId, task.id, 'the id is kept so the error can be reported against the task');
    assert.equal(parsed.error.retryable, false);
  });

  it('rejects malformed tasks with a readable reason', () => {
    for (const bad of [null, 'text', {}, { ...newTask({ kind: 'echo' }), requires: ['CPU!'] }, { ...newTask({ kind: 'echo' }), attempts: -1 }]) {
      const parsed = parseTask(bad);
      assert.equal(parsed.ok, false, `accepted ${JSON.stringify(bad)}`);
      if (!parsed.ok) {
        assert.equal(parsed.error.code, 'invalid_task');
        assert.ok(parsed.error.message.length > 0);
      }
    }
  });

  it('validates results: status is ok, error or skip', () => {
    assert.ok(ResultSchema.safeParse({ taskId: 'a', status: 'ok', attempts: 1 }).success);
    assert.equal(ResultSchema.safeParse({ taskId: 'a', status: 'done', attempts: 1 }).success, false);
  });

  it('RPC parameter schemas reject what the daemon must not act on', () => {
    assert.equal(SubmitTask.params.safeParse({ payload: {} }).success, false, 'kind is required');
    assert.equal(GetResult.params.safeParse({ taskId: 'x', waitMs: -5 }).success, false);
    assert.deepEqual(GetResult.params.parse({ taskId: 'x' }), { taskId: 'x', waitMs: 0 });
  });
});
