/**
 * A gain is a gain only when it is measured to be one, end to end.
 *
 * Noise: a run whose "best" is the seed's function pasted twice (the issue's identical copy),
 * measured lucky once in the run, then measured again against the seed, interleaved, with the
 * timings' noise around 1.0 that both programs share: the run ends saying "no measurable
 * improvement", report.md says so, and there is nothing to reduce or accept.
 *
 * A real gain: bad_sort with the offline mutator (the real CLI, the real sandbox): the
 * interval excludes 1.0 and every place the figure shows has the interval beside it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigSchema } from '../../daemon/config';
import { EvolutionRun } from '../../daemon/evolution/controller/EvolutionRun';
import { prepareRun } from '../../daemon/evolution/controller/prepareRun';
import type { TaskClient } from '../../daemon/evolution/controller/TaskClient';
import type { RunReport } from '../../daemon/evolution/controller/report';
import { Rng } from '../../daemon/evolution/rng';
import { pairSeed } from '../../daemon/evolution/confirm/confirmGain';
import type { Evaluation } from '../../shared/evaluation';
import { GAIN, NO_MEASURABLE_IMPROVEMENT } from '../../shared/evolution';
import type { Result, TaskSpec } from '../../shared/task';
import { BAD_SORT_DIR, EvolveProject, parseJson, readJournalEvents } from '../fixtures/evolveFixtures';

function evaluation(objective: number): Evaluation {
  return { correct: true, objective, direction: 'maximize', metrics: {}, executor: 'process', exitCode: 0, wallMs: 1 };
}

/**
 * The mutator pastes the seed's function again below itself (same behaviour); the evaluator
 * times every program as the same noisy 1.0 ± 20%, except that the copy's two measurements in
 * the run were lucky (1.25 and 1.2): a would-be best the run confirmed with its own two seeds.
 */
function noisyClient(seed: string, runSeed: number, confirmFails = false): TaskClient & { evaluated: string[] } {
  const fn = seed.slice(seed.indexOf('def bad_sort'), seed.indexOf('# EVOLVE-BLOCK-END'));
  const copy = seed.replace('# EVOLVE-BLOCK-END', `${fn}# EVOLVE-BLOCK-END`);
  const specs = new Map<string, TaskSpec>();
  const rng = new Rng(12345);
  const evaluated: string[] = [];
  let next = 0;
  return {
    evaluated,
    submit(spec: TaskSpec) {
      const id = `t${next++}`;
      specs.set(id, spec);
      return Promise.resolve(id);
    },
    async result(taskId: string): Promise<Result | null> {
      await new Promise((resolve) => setImmediate(resolve));
      const spec = specs.get(taskId)!;
      if (spec.kind === 'mutate') return { taskId, status: 'ok', data: { ok: true, mutator: 'offline', code: copy, patch: '', exchanges: [], repairs: 0 }, attempts: 1 };
      const payload = spec.payload as { program: string; seed: number };
      const which = payload.program === seed ? 'seed' : payload.program === copy ? 'copy' : 'other';
      evaluated.push(which);
      // The confirmation's pairs have evaluation seeds of their own.
      const inRun = ![0, 1, 2, 3, 4, 5, 6, 7].some((index) => pairSeed(runSeed, index) === payload.seed);
      if (!inRun && confirmFails) return { taskId, status: 'error', error: { code: 'worker_lost', message: 'the worker went away', retryable: false }, attempts: 3 };
      const objective = which === 'seed' && inRun ? 1 : which === 'copy' && inRun ? (payload.seed % 2 === 0 ? 1.25 : 1.2) : 0.8 + 0.4 * rng.next();
      return { taskId, status: 'ok', data: evaluation(objective), attempts: 1 };
    },
    cancel() {
      return Promise.resolve(true);
    },
  };
}

describe('a gain is confirmed before it is offered', function () {
  this.timeout(300_000);

  describe('the best is an identical copy of the seed (noise)', () => {
    let projectDir: string;
    before(() => {
      projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-confirm-noise-'));
    });
    after(() => fs.rmSync(projectDir, { recursive: true, force: true }));

    it('ends saying "no measurable improvement": in its log, report.md and report.json, with nothing reduced or offered', async () => {
      const prepared = prepareRun({ exampleDir: BAD_SORT_DIR, projectDir, stop: { evaluations: 1 }, workers: 1, mutator: 'offline' }, ConfigSchema.parse({}), {});
      const logs: string[] = [];
      const client = noisyClient(prepared.example.seedProgram(), prepared.manifest.settings.seed);
      const run = new EvolutionRun({ runDir: prepared.runDir, manifest: prepared.manifest, example: prepared.example, client, evalSlots: 1, mutateSlots: 1, perCallSpend: prepared.perCallSpend, log: (line) => logs.push(line) });
      const outcome = await run.run();
      // The run itself took the lucky copy for a better program.
      assert.ok(outcome.best && outcome.best.objective! > 1, `the copy is the run's best: ${outcome.best?.objective}`);
      const confirmation = outcome.progress.confirmation;
      assert.ok(confirmation, 'the best was measured again');
      assert.equal(confirmation.verdict, NO_MEASURABLE_IMPROVEMENT);
      assert.equal(confirmation.programId, outcome.best.id);
      assert.ok(confirmation.low <= 1 && confirmation.high >= 1, JSON.stringify(confirmation));
      // Interleaved: after the run's own measurements (seed, copy, copy), seed and copy take turns.
      const confirming = client.evaluated.slice(3);
      assert.equal(confirming.length, 2 * confirmation.pairs);
      confirming.forEach((which, index) => assert.equal(which, index % 2 === 0 ? 'seed' : 'copy'));
      assert.ok(logs.some((line) => line.startsWith('no measurable improvement: speedup')), logs.join('\n'));
      // Nothing to keep: no reduction was tried.
      assert.deepEqual(readJournalEvents(prepared.runDir.dir).filter((event) => event.type === 'reduce'), []);
      assert.equal(readJournalEvents(prepared.runDir.dir).filter((event) => event.type === 'confirm').length, 1);
      assert.equal(outcome.report.confirmation?.verdict, NO_MEASURABLE_IMPROVEMENT);
      const markdown = fs.readFileSync(prepared.runDir.reportFile, 'utf8');
      assert.match(markdown, /\*\*Measured again\*\*: no measurable improvement: speedup .*\[95% CI \d\.\d\d-\d\.\d\d\].*nothing to accept/);
      assert.match(markdown, /- Best: speedup .* \[95% CI \d\.\d\d-\d\.\d\d\]/);
      const json = JSON.parse(fs.readFileSync(prepared.runDir.reportJsonFile, 'utf8')) as RunReport;
      assert.equal(json.confirmation?.verdict, NO_MEASURABLE_IMPROVEMENT);
    });
  });

  it('a best that cannot be measured again (its tasks fail) is not offered either: no measurable improvement, with why', async () => {
    const projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-confirm-fail-'));
    try {
      const prepared = prepareRun({ exampleDir: BAD_SORT_DIR, projectDir, stop: { evaluations: 1 }, workers: 1, mutator: 'offline' }, ConfigSchema.parse({}), {});
      const client = noisyClient(prepared.example.seedProgram(), prepared.manifest.settings.seed, true);
      const run = new EvolutionRun({ runDir: prepared.runDir, manifest: prepared.manifest, example: prepared.example, client, evalSlots: 1, mutateSlots: 1, perCallSpend: prepared.perCallSpend, log: () => undefined });
      const outcome = await run.run();
      assert.equal(outcome.progress.confirmation?.verdict, NO_MEASURABLE_IMPROVEMENT);
      assert.match(outcome.progress.confirmation?.reason ?? '', /could not measure the best again: the evaluate task failed: worker_lost/);
      assert.match(fs.readFileSync(prepared.runDir.reportFile, 'utf8'), /no measurable improvement: speedup \(0 pairs measured again, interleaved; could not measure the best again/);
    } finally {
      fs.rmSync(projectDir, { recursive: true, force: true });
    }
  });

  describe('bad_sort with the offline mutator (real CLI, real sandbox)', () => {
    const project = new EvolveProject();
    after(() => project.cleanup());

    it('confirms the gain: the interval excludes 1.0, beside the figure in the CLI, report.md and evolve best --json', async () => {
      const result = await project.run(['evolve', 'run', BAD_SORT_DIR, '--sync', '--evaluations', '8', '--quick', '--project', project.dir]);
      assert.equal(result.code, 0, result.stderr);
      const output = `${result.stdout}\n${result.stderr}`;
      assert.match(output, /best speedup: .*x the seed.* \[95% CI \d+\.\d\d-\d+\.\d\d\], generation/);
      assert.match(output, /gain confirmed: speedup \d+\.\d\dx the seed \[95% CI/);
      const runDir = project.runDirs()[0]!;
      const report = JSON.parse(fs.readFileSync(path.join(runDir, 'report.json'), 'utf8')) as RunReport;
      const confirmation = report.confirmation!;
      assert.equal(confirmation.verdict, GAIN);
      assert.equal(confirmation.measure, 'ratio');
      assert.ok(confirmation.low > 1, `the interval excludes 1.0: ${confirmation.low}-${confirmation.high}`);
      assert.ok(confirmation.pairs >= 2 && confirmation.pairs <= 5);
      assert.match(fs.readFileSync(path.join(runDir, 'report.md'), 'utf8'), /- Measured again: gain confirmed: speedup/);
      const best = await project.run(['--json', 'evolve', 'best', path.basename(runDir), '--project', project.dir]);
      assert.equal(best.code, 0, best.stderr);
      assert.equal(parseJson<{ confirmation?: { verdict: string } }>(best).confirmation?.verdict, GAIN);
    });
  });
});
