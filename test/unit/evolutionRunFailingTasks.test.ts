/**
 * A run whose tasks all fail (a mutator no worker has, an evaluator that cannot start) must end
 * by itself and say why, not plan jobs forever: nothing else bounds a run whose evaluations
 * never come.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FAILED_JOBS_STOP } from '../../daemon/evolution/controller/EvolutionRun';
import { EXHAUSTED_SHARE, WINDOW_CALLS, windowCalls } from '../../daemon/evolution/controller/exhaustion';
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
    // seen 4 × the limit of mutate tasks without the streak firing. It stops it as the last of
    // those tasks answers, not from a timer: a timer that a loaded machine delayed let the run
    // go on to the exhaustion rule (whose window is also counted in calls).
    const at: { limit?: () => void } = {};
    const client = scriptedClient((index) => {
      if (index + 1 === FAILED_JOBS_STOP * 4) at.limit?.();
      return index % 2 === 0 ? { code: 'flaky', message: 'a transient failure', retryable: true } : 'no child';
    });
    const { run, done } = startRun(client, 20);
    let outcome = 'stopped by itself';
    at.limit = () => {
      outcome = 'running';
      run.requestStop('evaluations');
    };
    assert.equal((await done).stopReason, 'evaluations');
    assert.equal(outcome, 'running', 'the run stopped although tasks kept answering');
  });

  it(`stops by "proposals_exhausted" once the last ${WINDOW_CALLS} proposals gave nothing new to evaluate, instead of asking forever`, async () => {
    // A model that keeps repeating itself: every answer is a program already seen (no child), so
    // no evaluation ever counts towards a stop, and each call is paid for.
    const client = scriptedClient(() => 'no child');
    const outcome = await startRun(client, 20).done;
    assert.equal(outcome.stopReason, 'proposals_exhausted');
    assert.ok(client.mutates >= WINDOW_CALLS && client.mutates < WINDOW_CALLS + 5, `mutate tasks: ${client.mutates}`);
  });

  it('stops too when a rare new child comes among the repeats (one in twenty), and says it has nothing new to offer', async () => {
    // A count of barren proposals in a row never fired here: each new child reset it, and the
    // run paid for 19 repeats per child to the end of its budget.
    const client = scriptedClient((index) => (index % 20 === 19 ? 'child' : 'no child'));
    const lines: string[] = [];
    const outcome = await startScriptedRun(projectDir, client, 20, { log: (line) => lines.push(line) }).done;
    assert.equal(outcome.stopReason, 'proposals_exhausted');
    assert.ok(client.mutates < 2 * WINDOW_CALLS, `mutate tasks: ${client.mutates}`);
    assert.ok(outcome.state.counters.evaluations < 20);
    // The report counts what brought nothing new: every proposal but the new children.
    assert.equal(outcome.state.counters.barrenProposals, client.mutates - Math.floor(client.mutates / 20));
    assert.match(lines.join('\n'), /stopped: the model has nothing new to offer: \d+ of the last \d+ calls brought nothing new/);
  });

  it('with many calls out at once, judges exhaustion over several rounds of them, not the first 40 answers', async () => {
    // 32 evaluation slots and 32 proposals ahead: 64 calls are planned before any answer is
    // back, so 40 answers are less than one look at the archive.
    const evalSlots = 32;
    const mutateSlots = 32;
    assert.ok(windowCalls(evalSlots + mutateSlots) >= 4 * (evalSlots + mutateSlots));
    const client = scriptedClient(() => 'no child');
    const outcome = await startScriptedRun(projectDir, client, 20, { evalSlots, mutateSlots }).done;
    assert.equal(outcome.stopReason, 'proposals_exhausted');
    assert.ok(client.mutates >= windowCalls(evalSlots + mutateSlots), `stopped after ${client.mutates} calls`);
    // A run with a few calls out keeps the window of 40.
    assert.equal(windowCalls(2 + 2), WINDOW_CALLS);
  });

  it('goes on when more than a few answers in the window are new', async () => {
    // One in four new: above the exhausted share's complement, so the run reaches its own stop.
    assert.ok(0.25 > 1 - EXHAUSTED_SHARE);
    const client = scriptedClient((index) => (index % 4 === 3 ? 'child' : 'no child'));
    const outcome = await startRun(client, 12).done;
    assert.equal(outcome.stopReason, 'evaluations');
  });

  it('keeps asking to the end with --spend-all (stop.spendAll)', async () => {
    const client = scriptedClient(() => 'no child');
    const { run, done } = startScriptedRun(projectDir, client, 20, { spendAll: true });
    let check: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => (check = setInterval(() => client.mutates >= 3 * WINDOW_CALLS && resolve(), 5)));
    clearInterval(check);
    run.requestStop('evaluations');
    assert.equal((await done).stopReason, 'evaluations');
  });
});
