/**
 * `peagen evolve replay`: a finished run is re-derived from run.json, its journal and the
 * recorded LLM answers, with no model; the best program must come out byte-identical, and a
 * tampered record must be caught, never silently replayed. The runs are bad_sort_ops (bad_sort
 * judged by counted instructions): a fraction of a second per evaluation, and a re-measurement
 * that gives the recorded objective again, exactly.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { badSortResponder } from '../fixtures/badSortMoves';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { EvolveProject, NO_CONFIRMATION, parseJson, readJournalEvents, type RunOutput } from '../fixtures/evolveFixtures';
import { startOpenAiServer, type WireServer } from '../fixtures/llmWireServers';
import { REPO, tempDir } from '../fixtures/paths';

interface ReplayOutput {
  runId: string;
  events: number;
  plans: number;
  children: number;
  bestId: string;
  identical: boolean;
  remeasured?: { objectiveName: string; objective: number | null; recorded: number; differencePct: number };
}

describe('peagen evolve replay (real CLI)', function () {
  this.timeout(300_000);
  const project = new EvolveProject();
  let server: WireServer;
  let llmRun: RunOutput;
  let offlineRun: RunOutput;
  const copies: string[] = [];

  /** A copy of a run directory to damage (replay takes a directory as well as an id). */
  const copyOf = (runDir: string): string => {
    const copy = path.join(tempDir('replay-copy'), path.basename(runDir));
    copies.push(path.dirname(copy));
    fs.cpSync(runDir, copy, { recursive: true });
    return copy;
  };
  const replay = (run: string, ...flags: string[]) => project.run(['evolve', 'replay', run, '--project', project.dir, ...flags]);

  before(async () => {
    server = await startOpenAiServer({ responder: badSortResponder({ seed: 11 }), latencyMs: 10 });
    const [llm, offline] = await Promise.all([
      project.run(['--json', 'evolve', 'run', badSortOpsDir(), ...NO_CONFIRMATION, '--sync', '--quick', '--evaluations', '4', '--project', project.dir], { OPENAI_BASE_URL: server.baseUrl }),
      project.run(['--json', 'evolve', 'run', badSortOpsDir(), ...NO_CONFIRMATION, '--sync', '--quick', '--evaluations', '4', '--project', project.dir]),
    ]);
    assert.equal(llm.code, 0, llm.stderr);
    assert.equal(offline.code, 0, offline.stderr);
    llmRun = parseJson<RunOutput>(llm);
    offlineRun = parseJson<RunOutput>(offline);
    assert.equal(llmRun.mutator, 'llm-patch');
    assert.equal(offlineRun.mutator, 'offline');
  });
  after(async () => {
    await server.close();
    project.cleanup();
    for (const dir of copies) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const which of ['llm', 'offline'] as const) {
    it(`re-derives the ${which} run without a model: every child, the same selections, a byte-identical best (--no-measure)`, async () => {
      const run = which === 'llm' ? llmRun : offlineRun;
      const callsBefore = server.requests.length;
      const text = await replay(run.runId, '--no-measure');
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /best program: byte-identical/);
      const json = parseJson<ReplayOutput>(await project.run(['--json', 'evolve', 'replay', run.runId, '--project', project.dir, '--no-measure']));
      const events = readJournalEvents(run.runDir);
      assert.equal(json.identical, true);
      assert.equal(json.events, events.length);
      assert.equal(json.plans, events.filter((event) => event.type === 'plan').length);
      assert.equal(json.children, events.filter((event) => event.type === 'proposal' && event.ok).length);
      assert.ok(json.children >= 4);
      assert.equal(json.bestId, run.best?.id);
      assert.equal(json.remeasured, undefined);
      assert.equal(server.requests.length, callsBefore, 'replay called no model');
    });
  }

  it('by default re-measures the best program and reports its objective next to the recorded one', async () => {
    const result = await project.run(['--json', 'evolve', 'replay', offlineRun.runId, '--project', project.dir, '--sync']);
    assert.equal(result.code, 0, result.stderr);
    const json = parseJson<ReplayOutput>(result);
    assert.equal(json.identical, true);
    assert.ok(json.remeasured, 'a re-measurement');
    assert.equal(json.remeasured.objectiveName, 'speedup');
    assert.equal(json.remeasured.recorded, offlineRun.best?.objective);
    // A count does not vary from run to run: the best measures exactly what was recorded.
    assert.ok(json.remeasured.objective !== null && json.remeasured.objective > 0, `re-measured ${json.remeasured.objective}`);
    assert.equal(json.remeasured.objective, json.remeasured.recorded);
    assert.equal(json.remeasured.differencePct, 0);

    const text = await project.run(['evolve', 'replay', offlineRun.runId, '--project', project.dir, '--sync']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /re-measured speedup: \d+\.\d{3} vs recorded \d+\.\d{3}/);
  });

  it('refuses a run whose recorded LLM answer was tampered with: a clear message, a non-zero exit', async () => {
    const copy = copyOf(llmRun.runDir);
    const child = readJournalEvents(copy).find((event) => event.type === 'proposal' && event.ok && event.exchanges.length > 0);
    assert.ok(child && child.type === 'proposal');
    // The record is a line of llm.pack, `<sha256> <exchange JSON>`: its answer is changed in place.
    const file = path.join(copy, 'llm.pack');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((line) => line.startsWith(`${child.exchanges[0]} `));
    assert.ok(at >= 0, 'the exchange the proposal names is in the pack');
    const exchange = JSON.parse(lines[at]!.slice(65)) as { response: { text: string } };
    exchange.response.text = exchange.response.text.replace('SEARCH', 'SEARCH ');
    lines[at] = `${child.exchanges[0]} ${JSON.stringify(exchange)}`;
    fs.writeFileSync(file, lines.join('\n'));

    const result = await replay(copy, '--no-measure');
    assert.notEqual(result.code, 0);
    assert.match(result.stderr + result.stdout, new RegExp(`recorded LLM exchange .*${child.exchanges[0]!.slice(0, 12)}.* was modified`));
  });

  it("re-derives a plugin mutator's children with the plugin, and says which plugin to allow when it is not", async () => {
    const pluginProject = new EvolveProject();
    try {
      const config = pluginProject.writeConfig({ plugins: [path.join(REPO, 'examples', 'plugins', 'hello-mutator')] });
      const ran = await pluginProject.run(['--json', 'evolve', 'run', badSortOpsDir(), ...NO_CONFIRMATION, '--sync', '--quick', '--mutator', 'hello-mutator', '--evaluations', '3', '--project', pluginProject.dir]);
      assert.equal(ran.code, 0, ran.stderr);
      const run = parseJson<RunOutput>(ran);
      assert.equal(run.mutator, 'hello-mutator');
      const children = readJournalEvents(run.runDir).filter((event) => event.type === 'proposal' && event.ok);
      assert.ok(children.length >= 1 && children.every((event) => event.type === 'proposal' && event.mutator === 'hello-mutator'));

      const replayed = await pluginProject.run(['--json', 'evolve', 'replay', run.runId, '--project', pluginProject.dir, '--no-measure']);
      assert.equal(replayed.code, 0, replayed.stderr);
      const json = parseJson<ReplayOutput>(replayed);
      assert.equal(json.identical, true);
      assert.equal(json.children, children.length);
      assert.equal(json.bestId, run.best?.id);

      // The same mutator, declared as calling an LLM itself: replay (which calls no model) refuses it.
      const callsLlm = path.join(pluginProject.dir, 'hello-with-llm.js');
      fs.writeFileSync(
        callsLlm,
        `const { mutators } = require(${JSON.stringify(path.join(REPO, 'examples', 'plugins', 'hello-mutator'))});\nmodule.exports = { mutators: [{ ...mutators[0], usesLlm: true }] };\n`,
      );
      pluginProject.writeConfig({ plugins: ['./hello-with-llm.js'] });
      const withLlm = await pluginProject.run(['evolve', 'replay', run.runId, '--project', pluginProject.dir, '--no-measure']);
      assert.notEqual(withLlm.code, 0);
      assert.match(withLlm.stderr, /the child was made by "hello-mutator", a plugin mutator that calls an LLM itself: replay re-derives children without a model/);

      fs.rmSync(config);
      const refused = await pluginProject.run(['evolve', 'replay', run.runId, '--project', pluginProject.dir, '--no-measure']);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /the child was made by the mutator "hello-mutator", which no allowed plugin provides here; .*allow it in peagen\.json "plugins"/);
    } finally {
      pluginProject.cleanup();
    }
  });

  it('says DIFFERENT and exits non-zero when the recorded best program is not what the journal gives', async () => {
    const copy = copyOf(offlineRun.runDir);
    const bestFile = path.join(copy, 'best', 'bad_sort.py');
    fs.appendFileSync(bestFile, '# edited by hand\n');
    const result = await replay(copy, '--no-measure');
    assert.equal(result.code, 1);
    assert.match(result.stdout, /best program: DIFFERENT/);
  });
});
