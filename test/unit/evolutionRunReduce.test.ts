/**
 * The reduction of the best as a run ends, in the run controller: a stop asked for while it
 * measures its trials (the daemon's StopRun, the editor's Cancel) ends it at once with the full
 * best kept, and a budget of 0 switches it off.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigSchema } from '../../daemon/config';
import { EvolutionRun } from '../../daemon/evolution/controller/EvolutionRun';
import { prepareRun } from '../../daemon/evolution/controller/prepareRun';
import type { TaskClient } from '../../daemon/evolution/controller/TaskClient';
import type { Evaluation } from '../../shared/evaluation';
import type { Result, TaskSpec } from '../../shared/task';
import { BAD_SORT_DIR, readJournalEvents } from '../fixtures/evolveFixtures';

const COMMENT = '    # Count the elements by walking the list.';
const CHECK = '    # Re-check the whole sorted prefix after every pass.';

function evaluation(objective: number): Evaluation {
  return { correct: true, objective, direction: 'maximize', metrics: {}, executor: 'process', exitCode: 0, wallMs: 1 };
}

/**
 * Mutate tasks give the seed with two separate edits; evaluate tasks score the seed 1 and its
 * child 5; a trial of the reduction (any other program) waits until the run gives up on it,
 * after telling `onTrial`.
 */
function client(seed: string, onTrial: () => void): TaskClient & { cancelled: string[] } {
  const child = seed.replace(COMMENT, '    # Count them.').replace(CHECK, '    # Check the prefix.');
  const specs = new Map<string, TaskSpec>();
  let next = 0;
  const cancelled: string[] = [];
  return {
    cancelled,
    submit(spec: TaskSpec) {
      const id = `t${next++}`;
      specs.set(id, spec);
      return Promise.resolve(id);
    },
    async result(taskId: string, _waitMs: number, signal?: AbortSignal): Promise<Result | null> {
      await new Promise((resolve) => setImmediate(resolve));
      const spec = specs.get(taskId)!;
      if (spec.kind === 'mutate') return { taskId, status: 'ok', data: { ok: true, mutator: 'offline', code: child, patch: '', exchanges: [], repairs: 0 }, attempts: 1 };
      const program = (spec.payload as { program: string }).program;
      if (program === seed) return { taskId, status: 'ok', data: evaluation(1), attempts: 1 };
      if (program === child) return { taskId, status: 'ok', data: evaluation(5), attempts: 1 };
      onTrial();
      await new Promise<void>((resolve) => (signal?.aborted ? resolve() : signal?.addEventListener('abort', () => resolve(), { once: true })));
      return null;
    },
    cancel(taskId: string) {
      cancelled.push(taskId);
      return Promise.resolve(true);
    },
  };
}

describe('the reduction of the best as a run ends (run controller)', () => {
  let projectDir: string;
  beforeEach(() => {
    projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-reduce-run-'));
  });
  afterEach(() => fs.rmSync(projectDir, { recursive: true, force: true }));

  function start(reduceBudget: number | undefined, onTrial: (run: EvolutionRun) => void) {
    const prepared = prepareRun({ exampleDir: BAD_SORT_DIR, projectDir, stop: { evaluations: 1 }, workers: 1, mutator: 'offline', ...(reduceBudget !== undefined && { reduceBudget }) }, ConfigSchema.parse({}), {});
    const logs: string[] = [];
    const started: { run?: EvolutionRun } = {};
    const tasks = client(prepared.example.seedProgram(), () => onTrial(started.run!));
    const run = new EvolutionRun({ runDir: prepared.runDir, manifest: prepared.manifest, example: prepared.example, client: tasks, evalSlots: 1, mutateSlots: 1, perCallSpend: prepared.perCallSpend, log: (line) => logs.push(line) });
    started.run = run;
    return { run, tasks, logs, runDir: prepared.runDir, done: run.run() };
  }

  it('ends at once when a stop is asked for during a trial: the full best is kept, nothing is journaled for it', async () => {
    let trials = 0;
    const { done, tasks, logs, runDir } = start(undefined, (run) => {
      trials++;
      run.requestStop('interrupted');
    });
    const outcome = await done;
    assert.equal(trials, 1);
    assert.equal(outcome.stopReason, 'evaluations', 'the run had ended by its limit');
    assert.equal(outcome.progress.reduction, undefined);
    assert.equal(tasks.cancelled.length, 1, 'the trial\'s task is cancelled');
    assert.ok(logs.includes('the reduction of the best was interrupted: the full best is kept'), logs.join('\n'));
    assert.deepEqual(readJournalEvents(runDir.dir).filter((event) => event.type === 'reduce'), []);
    assert.equal(fs.readFileSync(runDir.bestFile('bad_sort.py'), 'utf8'), outcome.best?.code);
    assert.equal(fs.existsSync(path.dirname(runDir.bestFullFile('bad_sort.py'))), false);
  });

  it('is switched off by a budget of 0', async () => {
    let trials = 0;
    const { done, runDir } = start(0, () => trials++);
    const outcome = await done;
    assert.equal(outcome.best?.objective, 5);
    assert.equal(trials, 0);
    assert.deepEqual(readJournalEvents(runDir.dir).filter((event) => event.type === 'reduce'), []);
  });
});
