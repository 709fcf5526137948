/**
 * OpenEvolve's example layout read as a Peagen example (daemon/evaluation/openEvolveLayout.ts)
 * and what its config.yaml may decide of a run (exampleRunSettings.ts, prepareRun's estimate):
 * no sandbox, no evaluation.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig, type PeagenConfig } from '../../daemon/config';
import { loadExample } from '../../daemon/evaluation/example';
import { exampleRunSettings } from '../../daemon/evolution/controller/exampleRunSettings';
import { estimateRun } from '../../daemon/evolution/controller/prepareRun';
import { prepareSelection } from '../../daemon/usecases/selectionJob';
import { readExampleFiles } from '../../extension/evolve/exampleFiles';
import { REPO, tempDir } from '../fixtures/paths';

const SHIPPED = path.join(REPO, 'examples', 'openevolve_schedule');

/** An example directory in OpenEvolve's layout, with this config.yaml (none when undefined). */
function layout(configYaml?: string, extra: Record<string, string> = {}): string {
  const dir = path.join(tempDir('oe-layout'), 'my_problem');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'initial_program.py'), '# EVOLVE-BLOCK-START\ndef f():\n    return 1\n# EVOLVE-BLOCK-END\n');
  fs.writeFileSync(path.join(dir, 'evaluator.py'), 'def evaluate(program_path):\n    return {"combined_score": 1.0}\n');
  if (configYaml !== undefined) fs.writeFileSync(path.join(dir, 'config.yaml'), configYaml);
  for (const [name, text] of Object.entries(extra)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const noConfig = (): PeagenConfig => loadConfig(undefined, {});

describe('OpenEvolve layout: an example without peagen.example.json', () => {
  it('is recognised and evaluated through the adapter, maximising combined_score', () => {
    const example = loadExample(layout());
    assert.equal(example.config.program, 'initial_program.py');
    assert.deepEqual(example.config.evaluator, ['python3', '-m', 'peagen_openevolve', '{program}', '--metric', 'combined_score']);
    assert.deepEqual(example.config.objective, { name: 'combined_score', direction: 'maximize' });
    assert.equal(example.config.name, 'my_problem');
    // Scores in [0, 1] fall in distinct niches every 0.05 (Peagen's default: one niche above 0.5).
    const objectiveAxis = example.config.features!.find((feature) => feature.from === 'objective')!;
    assert.deepEqual(objectiveAxis.bins.slice(0, 3), [0.05, 0.1, 0.15]);
    assert.ok(objectiveAxis.bins.includes(1) && objectiveAxis.bins.at(-1)! >= 1000);
    assert.equal(example.seedProgram(), fs.readFileSync(path.join(example.dir, 'initial_program.py'), 'utf8'));
    assert.match(example.notes[0]!, /OpenEvolve's layout .*objective: combined_score, maximised/);
    assert.equal(example.cautions.length, 1);
    assert.match(example.cautions[0]!, /judges the candidate its own way/);
  });

  it('a peagen.example.json beside the files wins: the directory is a Peagen example', () => {
    const config = { name: 'own', program: 'initial_program.py', evaluator: ['python3', 'mine.py', '{program}'], objective: { name: 'score', direction: 'maximize' } };
    const example = loadExample(layout(undefined, { 'peagen.example.json': JSON.stringify(config) }));
    assert.equal(example.config.name, 'own');
    assert.equal(example.openEvolve, undefined);
    assert.deepEqual(example.cautions, []);
  });

  it('a directory that is neither says what an example needs', () => {
    assert.throws(() => loadExample(tempDir('oe-empty')), /needs a peagen\.example\.json, or OpenEvolve's initial_program\.py and evaluator\.py/);
  });

  it('maps config.yaml: timeout, cascade, objective, seed, iterations, islands, models; lists what it ignores', () => {
    const example = loadExample(
      layout(`max_iterations: 25
random_seed: 7
checkpoint_interval: 10
diff_based_evolution: false
llm:
  models:
    - name: "gpt-4o"
      weight: 0.8
    - name: "o3 mini"
      weight: 0.2
      api_base: "http://127.0.0.1:11434/v1"
  api_key: "\${MY_KEY}"
  temperature: 0.5
  max_tokens: 1000
  top_p: 0.9
prompt:
  system_message: "be good"
  template_dir: templates
database:
  num_islands: 3
  population_size: 100
evaluator:
  timeout: 12
  cascade_evaluation: true
  cascade_thresholds: [0.3, 0.6]
  parallel_evaluations: 4
peagen:
  objective: accuracy
`),
    );
    assert.deepEqual(example.config.evaluator, ['python3', '-m', 'peagen_openevolve', '{program}', '--metric', 'accuracy', '--cascade', '0.3,0.6']);
    assert.equal(example.config.objective.name, 'accuracy');
    assert.equal(example.config.limits.timeoutMs, 12_000);
    const oe = example.openEvolve!;
    assert.equal(oe.maxIterations, 25);
    assert.equal(oe.randomSeed, 7);
    assert.equal(oe.islands, 3);
    assert.deepEqual(oe.llm, {
      models: [
        { name: 'gpt-4o', weight: 0.8, apiKeyEnv: 'MY_KEY', temperature: 0.5, maxTokens: 1000 },
        { name: 'o3 mini', weight: 0.2, apiBase: 'http://127.0.0.1:11434/v1', apiKeyEnv: 'MY_KEY', temperature: 0.5, maxTokens: 1000 },
      ],
      temperature: 0.5,
      allowRewrite: true,
    });
    assert.deepEqual(oe.ignoredKeys, ['checkpoint_interval', 'llm.top_p', 'prompt.template_dir', 'database.population_size', 'evaluator.parallel_evaluations']);
    assert.ok(example.notes.some((note) => note.includes('ignored') && note.includes('llm.top_p, prompt.template_dir')));
    assert.equal(example.config.description, 'be good', 'the system message is the problem statement the prompts show');
  });

  it("peagen.in_process: true asks the adapter for the in-process mode; it is not an ignored key", () => {
    const example = loadExample(layout('peagen:\n  in_process: true\n'));
    assert.deepEqual(example.config.evaluator, ['python3', '-m', 'peagen_openevolve', '{program}', '--metric', 'combined_score', '--in-process']);
    assert.deepEqual(example.openEvolve!.ignoredKeys, []);
    assert.deepEqual(loadExample(layout('peagen:\n  in_process: false\n')).config.evaluator.includes('--in-process'), false);
  });

  it('a literal API key in config.yaml is never used as a key', () => {
    const oe = loadExample(layout('llm:\n  models: [{name: m}]\n  api_key: sk-literal-0123\n')).openEvolve!;
    assert.deepEqual(oe.llm!.models, [{ name: 'm', weight: 1 }]);
    assert.ok(!JSON.stringify(oe).includes('sk-literal'));
  });

  it('a config.yaml that does not parse, or has a wrong type, is an error naming the file and the key', () => {
    assert.throws(() => loadExample(layout('llm: [models\n')), /config\.yaml is not valid YAML/);
    assert.throws(() => loadExample(layout('max_iterations: many\n')), (error: Error) => /config\.yaml is invalid/.test(error.message) && /max_iterations/.test(error.message));
    assert.throws(() => loadExample(layout('peagen:\n  objectve: x\n')), /peagen/);
    assert.throws(() => loadExample(layout('peagen:\n  in_process: "yes"\n')), /in_process/);
  });

  it('the shipped example is in the layout, and its config.yaml maps', () => {
    const example = loadExample(SHIPPED);
    assert.equal(example.openEvolve?.maxIterations, 40);
    assert.equal(example.openEvolve?.randomSeed, 42);
    assert.equal(example.config.limits.timeoutMs, 30_000);
  });
});

describe("config.yaml's part in a run: the user's settings win", () => {
  const yaml = 'random_seed: 9\nllm:\n  models:\n    - name: scripted\n      weight: 2\n  api_base: http://127.0.0.1:9/v1\n  temperature: 0.3\n';

  it("its local models become the run's backends when Peagen names none", () => {
    const settings = exampleRunSettings(loadExample(layout(yaml)), noConfig(), {}, { ownWorkers: true });
    assert.deepEqual(
      settings.config.llm.backends.map((backend) => ({ name: backend.name, model: backend.model, baseUrl: backend.baseUrl, weight: backend.weight })),
      [{ name: 'scripted', model: 'scripted', baseUrl: 'http://127.0.0.1:9/v1', weight: 2 }],
    );
    assert.equal(settings.config.llm.temperature, 0.3);
    assert.equal(settings.seed, 9);
    assert.deepEqual(settings.notes, []);
  });

  it('peagen.json backends, OPENAI_BASE_URL, a daemon run, or a missing key keep its models out, and say so', () => {
    const example = loadExample(layout(yaml));
    const configured = loadConfig(undefined, {});
    configured.llm.backends = [{ name: 'mine', provider: 'openai', model: 'x', weight: 1, maxTokens: 10, timeoutMs: 1000, maxRetries: 0 }];
    const fromJson = exampleRunSettings(example, configured, {}, { ownWorkers: true });
    assert.deepEqual(fromJson.config.llm.backends.map((backend) => backend.name), ['mine']);
    assert.match(fromJson.notes.join('\n'), /not used: the llm section of peagen\.json names the models/);

    const fromEnv = exampleRunSettings(example, noConfig(), { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }, { ownWorkers: true });
    assert.deepEqual(fromEnv.config.llm.backends, []);
    assert.match(fromEnv.notes.join('\n'), /OPENAI_BASE_URL in the environment choose/);

    const inDaemon = exampleRunSettings(example, noConfig(), {}, { ownWorkers: false });
    assert.deepEqual(inDaemon.config.llm.backends, []);
    assert.match(inDaemon.notes.join('\n'), /daemon's workers call the models configured for them/);

    const remote = loadExample(layout('llm:\n  models: [{name: gpt-4o-mini}]\n  api_base: https://api.openai.com/v1\n'));
    const keyless = exampleRunSettings(remote, noConfig(), {}, { ownWorkers: true });
    assert.deepEqual(keyless.config.llm.backends, []);
    assert.match(keyless.notes.join('\n'), /not called, their API key is not set.*gpt-4o-mini \(OPENAI_API_KEY\)/);
    const keyed = exampleRunSettings(remote, noConfig(), { OPENAI_API_KEY: 'sk-test' }, { ownWorkers: true });
    assert.deepEqual(keyed.config.llm.backends.map((backend) => backend.model), ['gpt-4o-mini']);
  });

  it('the estimate of a run (what an editor shows before it starts) says the warning once', () => {
    const dir = layout(yaml);
    const estimate = estimateRun({ exampleDir: dir, projectDir: dir, stop: { evaluations: 1 }, workers: 1, mutator: 'offline' }, noConfig(), {});
    assert.equal(estimate.notes.filter((note) => note.includes('judges the candidate its own way')).length, 1);
    assert.ok(estimate.notes.some((note) => note.startsWith('warning: ')));
  });
});

describe("an editor's selection job on an OpenEvolve-layout example (content, not paths)", () => {
  it('synthesises the config from the files sent, and the job, a Peagen example, keeps the warning', () => {
    const dir = layout('evaluator:\n  timeout: 5\n');
    const source = path.join(dir, 'initial_program.py');
    const text = fs.readFileSync(source, 'utf8');
    const home = tempDir('oe-home');
    const prepared = prepareSelection(
      {
        projectDir: '/client/only/path',
        workspaceId: 'abcdefgh12',
        sourceFile: source,
        languageId: 'python',
        text,
        region: { startLine: 1, endLine: 3 },
        example: { dir, files: readExampleFiles(dir) },
      },
      home,
    );
    assert.equal(prepared.job?.name, 'my_problem');
    assert.equal(prepared.job?.objectiveName, 'combined_score');
    const jobDir = path.join(home, '.peagen', 'selections', prepared.job.jobId);
    const example = loadExample(jobDir);
    assert.deepEqual(example.config.evaluator.slice(0, 3), ['python3', '-m', 'peagen_openevolve']);
    assert.equal(example.config.limits.timeoutMs, 5_000);
    assert.ok(fs.existsSync(path.join(jobDir, 'evaluator.py')), "the user's evaluator travels with the job");
    assert.equal(example.cautions.length, 1, 'an example whose evaluator is the adapter is not hardened, however it was written');
  });
});
