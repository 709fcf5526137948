/**
 * A folder in OpenEvolve's layout (examples/openevolve_schedule: initial_program.py,
 * evaluator.py returning an EvaluationResult, config.yaml) run unchanged by the real CLI: with
 * the offline mutator, with a scripted model that config.yaml names, and with a broken
 * evaluator.py. Plus the adapter's own Python tests.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Evaluation } from '../../shared/evaluation';
import { RunManifestSchema } from '../../shared/runManifest';
import { copyExample, EvolveProject, NO_CONFIRMATION, parseJson, type RunOutput } from '../fixtures/evolveFixtures';
import { startOpenAiServer, type WireServer } from '../fixtures/llmWireServers';
import { honestResponder, type MoveTable } from '../fixtures/moveTableResponder';
import { REPO } from '../fixtures/paths';

const EXAMPLE = path.join(REPO, 'examples', 'openevolve_schedule');
const SEED_SCORE = 0.5451338865936847;
/** Without the rotation (two deleted statements away): what the offline mutator can reach. */
const NO_ROTATION_SCORE = 0.8660181790269539;
const CAVEAT = /judges the candidate its own way/g;

/** Edits a model might propose for the scheduler: two that improve it, one that harms it. */
const SCHEDULE_MOVES: MoveTable = {
  problem: 'openevolve_schedule',
  detect: ['def schedule(jobs)'],
  moves: [
    { id: 'drop-rotation', kind: 'improve', search: '    half = len(order) // 2\n    order = order[half:] + order[:half]', replace: '    # no rotation: it only delays short jobs' },
    { id: 'smith', kind: 'improve', search: '    order.sort(key=lambda i: -jobs[i][1])', replace: '    order.sort(key=lambda i: jobs[i][0] / jobs[i][1])' },
    { id: 'reverse', kind: 'harmful', search: '    return order', replace: '    order.reverse()\n    return order' },
  ],
};

type EvalOutput = Evaluation & { example: string; objectiveName: string };

describe('an OpenEvolve-layout example, run unchanged (real CLI, real sandboxed evaluations)', function () {
  this.timeout(300_000);
  let project: EvolveProject;
  let server: WireServer | undefined;

  beforeEach(() => {
    project = new EvolveProject();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    project.cleanup();
  });

  for (const tests of ['test_openevolve_adapter.py', 'test_openevolve_boundary.py']) {
    it(`the adapter passes its Python tests (${tests})`, () => {
      const run = spawnSync('python3', [path.join(REPO, 'harness', 'python', 'tests', tests)], { encoding: 'utf8' });
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stderr, /^OK/m);
    });
  }

  it('with the offline mutator: improves the seed, says the warning once, keeps it in the report, uses random_seed', async () => {
    const result = await project.run(['--json', 'evolve', 'run', EXAMPLE, ...NO_CONFIRMATION, '--sync', '--evaluations', '10', '--workers', '1', '--project', project.dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr.match(CAVEAT)?.length, 1, `the warning once:\n${result.stderr}`);
    assert.match(result.stderr, /is in OpenEvolve's layout .*objective: combined_score, maximised/);
    assert.match(result.stderr, /config\.yaml: ignored .*: database\.population_size\n/);
    assert.match(result.stderr, /models not called, their API key is not set in the environment: gpt-4o-mini/);
    assert.match(result.stderr, /mutator: offline/);
    const report = parseJson<RunOutput>(result);
    assert.equal(report.stopReason, 'evaluations');
    assert.equal(report.objectiveName, 'combined_score');
    assert.ok(Math.abs((report.seed.objective ?? 0) - SEED_SCORE) < 1e-9, `seed ${report.seed.objective}`);
    assert.ok(report.best && report.best.objective > SEED_SCORE, `best ${report.best?.objective}`);
    assert.equal(report.cautions?.length, 1);
    const markdown = fs.readFileSync(path.join(report.runDir, 'report.md'), 'utf8');
    assert.match(markdown, /## Caveats\n\n- \*\*Warning:\*\* evaluator\.py is OpenEvolve's kind of evaluator/);
    assert.doesNotMatch(markdown, /every timed output was checked/);
    const manifest = RunManifestSchema.parse(JSON.parse(fs.readFileSync(path.join(report.runDir, 'run.json'), 'utf8')));
    assert.equal(manifest.settings.seed, 42, "config.yaml's random_seed");

    // The best, evaluated again on its own, scores what the run measured (the score is exact).
    const again = await project.run(['--json', 'eval', EXAMPLE, '--program', report.best.file, '--sync']);
    assert.equal(again.code, 0, again.stderr);
    const evaluation = parseJson<EvalOutput>(again);
    assert.equal(evaluation.correct, true);
    assert.equal(evaluation.objective, report.best.objective);
    assert.ok(evaluation.metrics.worst_ratio! > 0 && evaluation.metrics.worst_ratio! <= 1, JSON.stringify(evaluation.metrics));
    assert.equal(again.stderr.match(CAVEAT)?.length, 1, 'peagen eval says it too, once');
  });

  it("without a stop flag, config.yaml's max_iterations is the number of evaluations", async () => {
    const copy = copyExample(EXAMPLE);
    const config = path.join(copy, 'config.yaml');
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('max_iterations: 40', 'max_iterations: 3'));
    const result = await project.run(['--json', 'evolve', 'run', copy, ...NO_CONFIRMATION, '--sync', '--workers', '1', '--project', project.dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /stop: after 3 evaluations \(max_iterations in config\.yaml/);
    const report = parseJson<RunOutput>(result);
    assert.equal(report.stopReason, 'evaluations');
    assert.equal(report.progress.evaluations, 3);
  });

  it('with a scripted model that config.yaml names (api_base, temperature): evolves it with llm-patch', async () => {
    const responder = honestResponder({ tables: [SCHEDULE_MOVES], seed: 4, noMatch: 0, prose: 0 });
    server = await startOpenAiServer({ responder: (request) => responder(request) });
    const copy = copyExample(EXAMPLE);
    const config = path.join(copy, 'config.yaml');
    const yaml = fs.readFileSync(config, 'utf8').replace('"gpt-4o-mini"', '"scripted-scheduler"').replace('"https://api.openai.com/v1"', JSON.stringify(server.baseUrl));
    fs.writeFileSync(config, yaml);
    const result = await project.run(['--json', 'evolve', 'run', copy, ...NO_CONFIRMATION, '--sync', '--evaluations', '8', '--workers', '1', '--project', project.dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /mutator: llm-patch on scripted-scheduler \(scripted-scheduler\)/);
    assert.equal(result.stderr.match(CAVEAT)?.length, 1);
    const report = parseJson<RunOutput>(result);
    assert.equal(report.mutator, 'llm-patch');
    assert.ok(report.progress.llmCalls > 0);
    const asked = server.requests.map((request) => request.parsed).filter((parsed) => parsed !== undefined);
    assert.ok(asked.length > 0 && asked.every((parsed) => parsed.model === 'scripted-scheduler' && parsed.temperature === 0.7), JSON.stringify(asked.map((p) => [p.model, p.temperature])));
    assert.ok(responder.decisions.some((decision) => decision.outcome === 'diff'), 'the model found the program in the prompt and answered with edits');
    const firstPrompt = asked[0]!.messages.map((message) => message.content).join('\n');
    assert.match(firstPrompt, /You improve a single-machine job scheduler/, "config.yaml's system_message is the problem statement");
    assert.ok(report.best && report.best.objective >= NO_ROTATION_SCORE - 1e-9, `best ${report.best?.objective} after ${JSON.stringify(responder.decisions.map((d) => d.moves))}`);
    assert.ok(report.best.lineage.slice(1).some((step) => step.mutator === 'llm-patch'), JSON.stringify(report.best.lineage));
  });

  it('a broken evaluator.py is a clear error: the evaluator is at fault, not the candidate', async () => {
    const copy = copyExample(EXAMPLE);
    fs.writeFileSync(path.join(copy, 'evaluator.py'), 'def evaluate(program_path)\n    return {"combined_score": 1.0}\n');
    const evaluated = await project.run(['--json', 'eval', copy, '--sync']);
    assert.notEqual(evaluated.code, 0);
    const evaluation = parseJson<EvalOutput>(evaluated);
    assert.equal(evaluation.correct, false);
    assert.match(evaluation.failure?.message ?? '', /evaluator error: evaluator\.py could not be imported \(SyntaxError.*not the candidate's fault/);

    const run = await project.run(['evolve', 'run', copy, ...NO_CONFIRMATION, '--sync', '--evaluations', '2', '--project', project.dir]);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /the seed program initial_program\.py fails its own evaluation \(evaluator error: evaluator\.py could not be imported \(SyntaxError/);
  });
});
