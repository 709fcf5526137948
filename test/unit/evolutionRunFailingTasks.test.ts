/**
 * A run whose tasks all fail (a mutator no worker has, an evaluator that cannot start) must end
 * by itself and say why, not plan jobs forever: nothing else bounds a run whose evaluations
 * never come.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BARREN_PROPOSALS_STOP, FAILED_JOBS_STOP } from '../../daemon/evolution/controller/EvolutionRun';
import type { TaskClient } from '../../daemon/evolution/controller/TaskClient';
import { scriptedClient, startScriptedRun } from '../fixtures/scriptedTaskClient';

describe('an evolution run whose tasks keep failing', () => {
  let projectDir: string;
  beforeEach(() => {
    projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-failing-'));
  });
  afterEach(() => fs.rmSync(projectDir, { recursive: true, force: true }));

  const startRun = (client: TaskClient, evaluations: number): ReturnType<typeof startScriptedRun> => startScriptedRun(projectDir, client, evaluations);

  it(`stops by "tasks_failing" after ${FAILED_JOBS_STOP} failed jobs in a row, journaling each failure`, async () => {
    const client = scriptedClient(() => ({ code: 'unknown_mutator', message: 'unknown mutator "hello-mutator"', retryable: false }));
    const outcome = await startRun(client, 20).done;
    assert.equal(outcome.stopReason, 'tasks_failing');
    // In-flight jobs finish after the stop, so a few more than the limit may have been asked for.
    assert.ok(client.mutates >= FAILED_JOBS_STOP && client.mutates < FAILED_JOBS_STOP + 5, `mutate tasks: ${client.mutates}`);
    assert.ok(outcome.state.counters.abandoned >= FAILED_JOBS_STOP);
  });

  it('stops too when every evaluation fails after a mutation that worked (an evaluator that cannot start)', async () => {
    const client = scriptedClient(() => 'child', { code: 'evaluator_missing', message: 'python3: not found', retryable: false });
    const outcome = await startRun(client, 20).done;
    assert.equal(outcome.stopReason, 'tasks_failing');
    assert.ok(outcome.state.counters.abandoned >= FAILED_JOBS_STOP);
  });

  it('goes on while some tasks answer between the failures', async () => {
    // Every other mutate task fails: never FAILED_JOBS_STOP in a row. The answers are failed
    // proposals, so no evaluation ever comes and the test stops the run itself once it has
    // seen 4 × the limit of mutate tasks without the streak firing.
    const client = scriptedClient((index) => (index % 2 === 0 ? { code: 'flaky', message: 'a transient failure', retryable: true } : 'no child'));
    const { run, done } = startRun(client, 20);
    let check: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      done,
      new Promise<'running'>((resolve) => {
        check = setInterval(() => client.mutates >= FAILED_JOBS_STOP * 4 && resolve('running'), 5);
      }),
    ]).finally(() => clearInterval(check));
    run.requestStop('evaluations');
    assert.equal((await done).stopReason, 'evaluations');
    assert.equal(outcome, 'running', 'the run stopped although tasks kept answering');
  });

  it(`stops by "proposals_exhausted" after ${BARREN_PROPOSALS_STOP} proposals in a row gave nothing new to evaluate, instead of asking forever`, async () => {
    // A model that keeps repeating itself: every answer is a program already seen (no child), so
    // no evaluation ever counts towards a stop, and each call is paid for.
    const client = scriptedClient(() => 'no child');
    const outcome = await startRun(client, 20).done;
    assert.equal(outcome.stopReason, 'proposals_exhausted');
    assert.ok(client.mutates >= BARREN_PROPOSALS_STOP && client.mutates < BARREN_PROPOSALS_STOP + 5, `mutate tasks: ${client.mutates}`);
  });
});
