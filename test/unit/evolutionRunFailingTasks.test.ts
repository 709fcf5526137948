/**
 * A run whose tasks all fail (a mutator no worker has, an evaluator that cannot start) must end
 * by itself and say why, not plan jobs forever: nothing else bounds a run whose evaluations
 * never come.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigSchema } from '../../daemon/config';
import { EvolutionRun, FAILED_JOBS_STOP, type RunOutcome } from '../../daemon/evolution/controller/EvolutionRun';
import { prepareRun } from '../../daemon/evolution/controller/prepareRun';
import type { TaskClient } from '../../daemon/evolution/controller/TaskClient';
import type { Evaluation } from '../../shared/evaluation';
import type { Result, TaskSpec } from '../../shared/task';
import { BAD_SORT_DIR } from '../fixtures/evolveFixtures';

const seedEvaluation: Evaluation = {
  correct: true,
  objective: 100,
  direction: 'minimize',
  metrics: {},
  executor: 'process',
  exitCode: 0,
  wallMs: 1,
};

const childCode = (index: number): string => `# child ${index}\n`;

/**
 * Answers mutate tasks as `mutate` says ('child': a new child to evaluate; 'no child': a failed
 * proposal) and evaluate tasks with the seed's evaluation, or with `evaluateError` for every
 * evaluation after the seed's.
 */
function scriptedClient(mutate: (index: number) => Result['error'] | 'no child' | 'child', evaluateError?: Result['error']): TaskClient & { mutates: number } {
  const kinds = new Map<string, string>();
  let next = 0;
  let evaluations = 0;
  const client = {
    mutates: 0,
    async submit(spec: TaskSpec) {
      const id = `t${next++}`;
      kinds.set(id, spec.kind);
      return id;
    },
    async result(taskId: string): Promise<Result> {
      await new Promise((resolve) => setImmediate(resolve));
      if (kinds.get(taskId) === 'evaluate') {
        if (evaluateError && evaluations++ > 0) return { taskId, status: 'error', error: evaluateError, attempts: 1 };
        return { taskId, status: 'ok', data: seedEvaluation, attempts: 1 };
      }
      const index = client.mutates++;
      const answer = mutate(index);
      if (answer === 'child') return { taskId, status: 'ok', data: { ok: true, mutator: 'offline', code: childCode(index), patch: '', exchanges: [], repairs: 0 }, attempts: 1 };
      if (answer === 'no child') return { taskId, status: 'ok', data: { ok: false, mutator: 'offline', reason: 'no_change', message: 'nothing to change', exchanges: [], repairs: 0 }, attempts: 1 };
      return { taskId, status: 'error', error: answer, attempts: 1 };
    },
    async cancel() {
      return true;
    },
  };
  return client;
}

describe('an evolution run whose tasks keep failing', () => {
  let projectDir: string;
  beforeEach(() => {
    projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-failing-'));
  });
  afterEach(() => fs.rmSync(projectDir, { recursive: true, force: true }));

  function startRun(client: TaskClient, evaluations: number): { run: EvolutionRun; done: Promise<RunOutcome> } {
    const config = ConfigSchema.parse({});
    const prepared = prepareRun({ exampleDir: BAD_SORT_DIR, projectDir, stop: { evaluations }, workers: 2, mutator: 'offline' }, config, {});
    const run = new EvolutionRun({
      runDir: prepared.runDir,
      manifest: prepared.manifest,
      example: prepared.example,
      client,
      evalSlots: 2,
      mutateSlots: 2,
      perCallSpend: prepared.perCallSpend,
      log: () => {},
    });
    return { run, done: run.run() };
  }

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
});
