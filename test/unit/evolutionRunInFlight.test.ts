/**
 * How many tasks a run keeps on the fabric (issue 21: an evolve run that keeps W slots busy):
 * every evaluation slot gets a child, proposals on the way never exceed the free slots plus the
 * lookahead (at most `mutateSlots`), so the queue never holds more than the slots can take; and
 * a run asking for more than the brief's 256 workers per workspace gets 256, with a message.
 * The tasks here end only when the test ends them: no timing decides anything.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigSchema } from '../../daemon/config';
import { EvolutionRun } from '../../daemon/evolution/controller/EvolutionRun';
import { prepareRun } from '../../daemon/evolution/controller/prepareRun';
import type { TaskClient } from '../../daemon/evolution/controller/TaskClient';
import { MAX_WORKERS_PER_WORKSPACE, workersWithinLimit } from '../../daemon/usecases/startRun';
import type { Evaluation } from '../../shared/evaluation';
import type { Result, TaskSpec } from '../../shared/task';
import { BAD_SORT_DIR } from '../fixtures/evolveFixtures';

const evaluation: Evaluation = { correct: true, objective: 100, direction: 'minimize', metrics: {}, executor: 'process', exitCode: 0, wallMs: 1 };

/** A fabric whose tasks wait until the test answers them. */
function heldClient() {
  const open = new Map<string, { kind: string; answer: (result: Result) => void }>();
  let next = 0;
  let children = 0;
  const client: TaskClient = {
    submit(spec: TaskSpec) {
      const id = `t${next++}`;
      open.set(id, { kind: spec.kind, answer: () => {} });
      return Promise.resolve(id);
    },
    result(taskId: string, _waitMs: number, signal?: AbortSignal): Promise<Result | null> {
      return new Promise((resolve) => {
        const task = open.get(taskId);
        if (!task) return resolve(null);
        task.answer = (result) => {
          open.delete(taskId);
          resolve(result);
        };
        signal?.addEventListener('abort', () => resolve(null), { once: true });
      });
    },
    cancel(taskId: string) {
      return Promise.resolve(open.delete(taskId));
    },
  };
  const ids = (kind: string) => [...open].filter(([, task]) => task.kind === kind).map(([id]) => id);
  return {
    client,
    count: (kind: string) => ids(kind).length,
    answerEvaluations(): void {
      for (const id of ids('evaluate')) open.get(id)!.answer({ taskId: id, status: 'ok', data: evaluation, attempts: 1 });
    },
    answerMutations(): void {
      for (const id of ids('mutate')) {
        const code = `# child ${children++}\n`;
        open.get(id)!.answer({ taskId: id, status: 'ok', data: { ok: true, mutator: 'offline', code, patch: '', exchanges: [], repairs: 0 }, attempts: 1 });
      }
    },
  };
}

/** Lets the run do everything it can without an answer (no timer involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await settle();
  assert.ok(check(), what);
}

describe('tasks an evolve run keeps in flight', () => {
  let projectDir: string;
  beforeEach(() => {
    projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-inflight-'));
  });
  afterEach(() => fs.rmSync(projectDir, { recursive: true, force: true }));

  it('fills every evaluation slot and never queues more than the slots plus the lookahead', async () => {
    const slots = 4;
    const mutateSlots = 4;
    const fabric = heldClient();
    const prepared = prepareRun({ exampleDir: BAD_SORT_DIR, projectDir, stop: { evaluations: 40 }, workers: slots, mutator: 'offline' }, ConfigSchema.parse({}), {});
    const stop = new AbortController();
    const run = new EvolutionRun({ runDir: prepared.runDir, manifest: prepared.manifest, example: prepared.example, client: fabric.client, evalSlots: slots, mutateSlots, perCallSpend: prepared.perCallSpend, log: () => {}, signal: stop.signal });
    const done = run.run();
    const inFlight = () => fabric.count('evaluate') + fabric.count('mutate');

    await until(() => fabric.count('evaluate') === 1, 'the seed is evaluated first');
    fabric.answerEvaluations();
    // Before any pace is known: a proposal for each free slot plus mutateSlots ahead.
    await until(() => fabric.count('mutate') === slots + mutateSlots, 'a proposal per free slot plus the lookahead');
    await settle();
    assert.equal(fabric.count('mutate'), slots + mutateSlots, 'no more proposals than free slots plus lookahead');

    fabric.answerMutations();
    // Every slot gets a child; the other children wait here, not on the queue, and while
    // they wait no proposal is asked for (they already cover the lookahead).
    await until(() => fabric.count('evaluate') === slots, 'every evaluation slot busy');
    await settle();
    assert.equal(fabric.count('evaluate'), slots, 'never more evaluations than slots');
    assert.equal(fabric.count('mutate'), 0, 'children waiting for a slot count against the lookahead');

    fabric.answerEvaluations();
    // The waiting children take the freed slots at once; proposals resume, within the lookahead.
    await until(() => fabric.count('evaluate') === slots && fabric.count('mutate') > 0, 'the slots refilled from the waiting children');
    await settle();
    assert.ok(fabric.count('mutate') <= mutateSlots, `at most mutateSlots proposals ahead (got ${fabric.count('mutate')})`);
    assert.ok(inFlight() <= slots + mutateSlots);

    stop.abort();
    await done;
  });

  it(`caps a run's workers at the brief's soft limit of ${MAX_WORKERS_PER_WORKSPACE} per workspace, saying so`, () => {
    assert.deepEqual(workersWithinLimit(64), { workers: 64 });
    assert.deepEqual(workersWithinLimit(MAX_WORKERS_PER_WORKSPACE), { workers: MAX_WORKERS_PER_WORKSPACE });
    const capped = workersWithinLimit(1000);
    assert.equal(capped.workers, MAX_WORKERS_PER_WORKSPACE);
    assert.match(capped.note ?? '', /--workers 1000 is above the soft limit of 256 workers per workspace/);
  });
});
