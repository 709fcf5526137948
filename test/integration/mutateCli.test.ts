/**
 * `peagen mutate` on bad_sort: one mutation round, no Redis, no Docker, no key. Without an LLM
 * the offline mutator proposes (and says so); with the scripted model on the OpenAI wire the
 * LLM does. The example is bad_sort_ops (badSortOps.ts): the same program, judged by counted
 * instructions, so that --eval scores a child in a fraction of a second instead of timing it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyPatch } from 'diff';
import { badSortResponder } from '../fixtures/badSortMoves';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { copyExample, EvolveProject, parseJson } from '../fixtures/evolveFixtures';
import { startOpenAiServer } from '../fixtures/llmWireServers';
import { REPO } from '../fixtures/paths';

interface MutateOutput {
  program: string;
  mutator: string;
  applied: boolean;
  proposals: {
    seed: number;
    ok: boolean;
    patch?: string;
    model?: string;
    reason?: string;
    llmCalls: number;
    evaluation?: { correct: boolean; objective: number | null; executor: string };
  }[];
}

const EXAMPLE = badSortOpsDir();
const SEED_PROGRAM = fs.readFileSync(path.join(EXAMPLE, 'bad_sort.py'), 'utf8');
/** The evaluation part needs no sandbox tool installed. */
const PROCESS_EXECUTOR = { PEAGEN_EXECUTOR: 'process' };

describe('peagen mutate (real CLI)', function () {
  this.timeout(180_000);
  let project: EvolveProject;
  const copies: string[] = [];

  beforeEach(() => {
    project = new EvolveProject();
  });
  afterEach(() => project.cleanup());
  after(() => {
    for (const dir of copies) fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  });

  it('without an LLM: says the offline mutator proposes, and prints a unified diff that applies to the program', async () => {
    const result = await project.run(['mutate', EXAMPLE, '--sync']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /no LLM is configured: the offline mutator/);
    assert.match(result.stdout, /^# proposal 1 \(seed 1\)/m);
    const patch = result.stdout.slice(result.stdout.indexOf('\n') + 1);
    assert.match(patch, /^--- /m);
    assert.match(patch, /^\+\+\+ /m);
    assert.match(patch, /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/m);
    const child = applyPatch(SEED_PROGRAM, patch);
    assert.ok(typeof child === 'string' && child !== SEED_PROGRAM, 'the diff applies to bad_sort.py and changes it');
  });

  it('--n 3 --json: three proposals (seeds 1, 2, 3), each child different from the program', async () => {
    const result = await project.run(['--json', 'mutate', EXAMPLE, '--sync', '--n', '3']);
    assert.equal(result.code, 0, result.stderr);
    const output = parseJson<MutateOutput>(result);
    assert.equal(output.mutator, 'offline');
    assert.equal(output.applied, false);
    assert.equal(output.proposals.length, 3);
    assert.deepEqual(output.proposals.map((proposal) => proposal.seed), [1, 2, 3]);
    const children = output.proposals.filter((proposal) => proposal.ok).map((proposal) => applyPatch(SEED_PROGRAM, proposal.patch!));
    assert.ok(children.length >= 2, 'most seeds give a child');
    for (const child of children) assert.ok(typeof child === 'string' && child !== SEED_PROGRAM);
    assert.ok(output.proposals.every((proposal) => proposal.llmCalls === 0));
    assert.equal(fs.readFileSync(path.join(EXAMPLE, 'bad_sort.py'), 'utf8'), SEED_PROGRAM, 'without --apply the program is untouched');
  });

  it("--mutator NAME of an allowed plugin's mutator: the plugin proposes; a name nothing provides is refused with the choices", async () => {
    const config = project.writeConfig({ plugins: [path.join(REPO, 'examples', 'plugins', 'hello-mutator')] });
    const result = await project.run(['--json', '--config', config, 'mutate', EXAMPLE, '--sync', '--n', '2', '--mutator', 'hello-mutator']);
    assert.equal(result.code, 0, result.stderr);
    const output = parseJson<MutateOutput>(result);
    assert.equal(output.mutator, 'hello-mutator');
    assert.equal(output.proposals.length, 2);
    const seedLines = SEED_PROGRAM.split('\n');
    for (const proposal of output.proposals) {
      assert.ok(proposal.ok, proposal.reason);
      const child = applyPatch(SEED_PROGRAM, proposal.patch!);
      assert.ok(typeof child === 'string', 'the diff applies to bad_sort.py');
      // hello-mutator's move: one line of the EVOLVE-BLOCK deleted.
      assert.equal(child.split('\n').length, seedLines.length - 1);
      assert.ok(proposal.llmCalls === 0);
    }

    const unknown = await project.run(['--config', config, 'mutate', EXAMPLE, '--sync', '--mutator', 'hello-mutatr']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown mutator "hello-mutatr" \(one of auto, llm-patch, offline, hello-mutator;/);
    // A plugin's mutator is usable only once allowed: without the project's peagen.json, it is not.
    fs.rmSync(config);
    const notAllowed = await project.run(['mutate', EXAMPLE, '--sync', '--mutator', 'hello-mutator']);
    assert.equal(notAllowed.code, 2);
    assert.match(notAllowed.stderr, /unknown mutator "hello-mutator" \(one of auto, llm-patch, offline; a plugin's is usable once allowed in peagen\.json "plugins"/);
  });

  it('--eval: evaluates the child with the example evaluator (process executor), JSON and text', async () => {
    const result = await project.run(['--json', 'mutate', EXAMPLE, '--sync', '--eval'], PROCESS_EXECUTOR);
    assert.equal(result.code, 0, result.stderr);
    const output = parseJson<MutateOutput>(result);
    const children = output.proposals.filter((proposal) => proposal.ok);
    assert.ok(children.length > 0);
    for (const proposal of children) {
      assert.ok(proposal.evaluation, `proposal ${proposal.seed} was not evaluated`);
      assert.equal(proposal.evaluation.executor, 'process');
      // Offline children may break the sort: a verdict either way, with a score only when correct.
      assert.equal(proposal.evaluation.objective !== null, proposal.evaluation.correct);
    }
    const text = await project.run(['mutate', EXAMPLE, '--sync', '--eval'], PROCESS_EXECUTOR);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^# evaluation: (correct, speedup \d+\.\d{3}|FAILED \(\w+\): )/m);
  });

  it('--apply on a copy of the example: writes the first child over the program', async () => {
    const example = copyExample(EXAMPLE);
    copies.push(example);
    const program = path.join(example, 'bad_sort.py');
    const result = await project.run(['--json', 'mutate', example, '--sync', '--apply']);
    assert.equal(result.code, 0, result.stderr);
    const output = parseJson<MutateOutput>(result);
    assert.equal(output.applied, true);
    assert.equal(output.program, program);
    const written = fs.readFileSync(program, 'utf8');
    assert.notEqual(written, SEED_PROGRAM);
    assert.equal(written, applyPatch(SEED_PROGRAM, output.proposals[0]!.patch!), 'the file is the first proposal applied');
    assert.equal(fs.readFileSync(path.join(EXAMPLE, 'bad_sort.py'), 'utf8'), SEED_PROGRAM, 'the original example is untouched');
  });

  it('with the scripted model on the OpenAI wire: the LLM proposes, and its patch changes the program', async () => {
    const server = await startOpenAiServer({ responder: badSortResponder({ seed: 4, noise: { noMatch: 0, prose: 0 } }), latencyMs: 10 });
    try {
      const result = await project.run(['--json', 'mutate', EXAMPLE, '--sync', '--n', '2'], { OPENAI_BASE_URL: server.baseUrl });
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stderr, /offline mutator/);
      const output = parseJson<MutateOutput>(result);
      assert.equal(output.mutator, 'llm-patch');
      assert.equal(output.proposals.length, 2);
      const calls = output.proposals.reduce((sum, proposal) => sum + proposal.llmCalls, 0);
      assert.ok(calls >= 2, 'at least one call per proposal');
      assert.equal(calls, server.requests.length, 'every call the server saw is counted');
      const children = output.proposals.filter((proposal) => proposal.ok);
      assert.ok(children.length >= 1);
      for (const proposal of children) {
        assert.equal(proposal.model, 'openai/gpt-4o-mini');
        const child = applyPatch(SEED_PROGRAM, proposal.patch!);
        assert.ok(typeof child === 'string' && child !== SEED_PROGRAM, 'the LLM patch gives a different program');
      }
    } finally {
      await server.close();
    }
  });
});
