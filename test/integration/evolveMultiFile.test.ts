/**
 * A program of two files (examples/lookup_table): evolved with a scripted model whose answer
 * edits both files at once (the table's layout in table.py and the lookup in lookup.py), the
 * best changes both files, `evolve replay` re-derives it byte for byte, and best/ and
 * `evolve best --output` hold both files.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EvolveProject, NO_CONFIRMATION, parseJson, readJournalEvents, type RunOutput } from '../fixtures/evolveFixtures';
import { startOpenAiServer, type WireServer } from '../fixtures/llmWireServers';
import { REPO, tempDir } from '../fixtures/paths';

const LOOKUP_DIR = path.join(REPO, 'examples', 'lookup_table');
const seedOf = (file: string): string => fs.readFileSync(path.join(LOOKUP_DIR, file), 'utf8');

/** The two-file answer a coding assistant writes: each block after the line naming its file. */
const BOTH_FILES = [
  'Make the table a dict built once, and look keys up in it.',
  '',
  'table.py',
  '```python',
  '<<<<<<< SEARCH',
  '    table = []',
  '    for key, value in pairs:',
  '        table.append((key, value))',
  '    return table',
  '=======',
  '    table = {}',
  '    for key, value in pairs:',
  '        if key not in table:',
  '            table[key] = value',
  '    return table',
  '>>>>>>> REPLACE',
  '```',
  '',
  'lookup.py',
  '```python',
  '<<<<<<< SEARCH',
  '    for k, v in table:',
  '        if k == key:',
  '            return v',
  '    return None',
  '=======',
  '    return table.get(key)',
  '>>>>>>> REPLACE',
  '```',
].join('\n');

/** A later answer about the dict program: another correct lookup of the same speed. */
const LOOKUP_VARIANT = ['lookup.py', '```python', '<<<<<<< SEARCH', '    return table.get(key)', '=======', '    return table[key] if key in table else None', '>>>>>>> REPLACE', '```'].join('\n');

describe('multi-file programs: evolve, replay and best/ (real CLI, examples/lookup_table)', function () {
  this.timeout(300_000);
  const project = new EvolveProject();
  let server: WireServer;
  let run: RunOutput;

  before(async () => {
    server = await startOpenAiServer({
      responder: (request) => {
        const prompt = request.messages.map((message) => message.content).join('\n');
        return prompt.includes('table.append((key, value))') ? BOTH_FILES : LOOKUP_VARIANT;
      },
    });
    const result = await project.run(['--json', 'evolve', 'run', LOOKUP_DIR, ...NO_CONFIRMATION, '--sync', '--quick', '--evaluations', '3', '--project', project.dir], { OPENAI_BASE_URL: server.baseUrl });
    assert.equal(result.code, 0, result.stderr);
    run = parseJson<RunOutput>(result);
  });
  after(async () => {
    await server.close();
    project.cleanup();
  });

  it('shows the model each file under its path and asks for the path line before each block', () => {
    const first = server.requests[0]!.parsed!.messages.map((message) => message.content).join('\n');
    assert.ok(first.includes(`lookup.py\n\`\`\`python\n${seedOf('lookup.py')}\`\`\``), 'lookup.py is shown under its path');
    assert.ok(first.includes(`table.py\n\`\`\`python\n${seedOf('table.py')}\`\`\``), 'table.py is shown under its path');
    assert.match(first, /The program has 2 files: lookup\.py, table\.py\..*path of the file it edits on the line before the fence/s);
  });

  it('evolves a best that changes both files, written whole to best/ and shown file by file in report.md', () => {
    assert.equal(run.mutator, 'llm-patch');
    assert.ok(run.best, 'a best program');
    assert.ok(run.best.objective > 3, `the dict table is much faster (speedup ${run.best.objective})`);
    assert.deepEqual(run.best.fileChanges?.map((change) => change.path), ['lookup.py', 'table.py']);
    const bestLookup = fs.readFileSync(path.join(run.runDir, 'best', 'lookup.py'), 'utf8');
    const bestTable = fs.readFileSync(path.join(run.runDir, 'best', 'table.py'), 'utf8');
    assert.match(bestLookup, /return table(\.get\(key\)|\[key\] if key in table else None)/);
    assert.match(bestTable, /table = \{\}/);
    const report = fs.readFileSync(path.join(run.runDir, 'report.md'), 'utf8');
    assert.match(report, /## Changes of the best \(2 files\)\n\n### lookup\.py\n[\s\S]*```diff\n[\s\S]*- {4}for k, v in table:[\s\S]*### table\.py\n[\s\S]*\+ {4}table = \{\}/);
  });

  it('replays the run byte-identically without a model', async () => {
    const calls = server.requests.length;
    const replayed = await project.run(['--json', 'evolve', 'replay', run.runId, '--project', project.dir, '--no-measure']);
    assert.equal(replayed.code, 0, replayed.stderr);
    const json = parseJson<{ identical: boolean; bestId: string; children: number }>(replayed);
    assert.equal(json.identical, true);
    assert.equal(json.bestId, run.best?.id);
    assert.equal(json.children, readJournalEvents(run.runDir).filter((event) => event.type === 'proposal' && event.ok).length);
    assert.equal(server.requests.length, calls, 'replay called no model');
  });

  it('`evolve apply` writes both files of the best into the example, and --diff patches both, which git apply takes', async () => {
    // A copy of the example in a repository of its own, and of the run pointed at it (the run never writes the repo's examples/).
    const home = tempDir('multifile-apply');
    try {
      const example = path.join(home, 'examples', 'lookup_table');
      fs.cpSync(LOOKUP_DIR, example, { recursive: true });
      const runCopy = path.join(home, '.peagen', 'runs', run.runId);
      fs.cpSync(run.runDir, runCopy, { recursive: true });
      const manifest = JSON.parse(fs.readFileSync(path.join(runCopy, 'run.json'), 'utf8')) as { exampleDir: string };
      fs.writeFileSync(path.join(runCopy, 'run.json'), JSON.stringify({ ...manifest, exampleDir: example }));
      const git = (args: string[], input?: string): number | null =>
        spawnSync('git', ['-c', 'user.name=User', '-c', 'user.email=user@example.com', ...args], { cwd: home, encoding: 'utf8', ...(input !== undefined && { input }) }).status;
      assert.equal(git(['init', '-q']), 0);
      assert.equal(git(['add', 'examples']), 0);
      assert.equal(git(['commit', '-qm', 'the example']), 0);

      const diff = await project.run(['evolve', 'apply', run.runId.slice(0, 17), '--diff', '--unconfirmed', '--project', home]);
      assert.equal(diff.code, 0, diff.stderr);
      assert.match(diff.stdout, /^diff --git a\/examples\/lookup_table\/lookup\.py b\/examples\/lookup_table\/lookup\.py$[\s\S]*^diff --git a\/examples\/lookup_table\/table\.py b\/examples\/lookup_table\/table\.py$/m);
      assert.equal(git(['apply', '--check'], diff.stdout), 0, diff.stdout);

      const applied = await project.run(['evolve', 'apply', '--unconfirmed', '--project', home]);
      assert.equal(applied.code, 0, applied.stderr);
      for (const file of ['lookup.py', 'table.py']) assert.equal(fs.readFileSync(path.join(example, file), 'utf8'), fs.readFileSync(path.join(run.runDir, 'best', file), 'utf8'), file);

      // One file edited since: nothing is written, not even the other one.
      assert.equal(git(['checkout', '--', 'examples']), 0);
      fs.appendFileSync(path.join(example, 'table.py'), '# mine\n');
      const refused = await project.run(['evolve', 'apply', '--unconfirmed', '--project', home]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /examples\/lookup_table\/table\.py was changed since run .* began/);
      assert.equal(fs.readFileSync(path.join(example, 'lookup.py'), 'utf8'), seedOf('lookup.py'), 'the unedited file was not written either');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('`evolve best --output DIR` writes both files; a changed best/ file is caught by replay', async () => {
    const out = tempDir('multifile-best');
    try {
      const written = await project.run(['--json', 'evolve', 'best', run.runId, '--project', project.dir, '--output', out]);
      assert.equal(written.code, 0, written.stderr);
      assert.deepEqual(fs.readdirSync(out).sort(), ['lookup.py', 'table.py']);
      assert.equal(fs.readFileSync(path.join(out, 'table.py'), 'utf8'), fs.readFileSync(path.join(run.runDir, 'best', 'table.py'), 'utf8'));

      fs.appendFileSync(path.join(run.runDir, 'best', 'table.py'), '# edited by hand\n');
      const replayed = await project.run(['--json', 'evolve', 'replay', run.runId, '--project', project.dir, '--no-measure']);
      assert.notEqual(replayed.code, 0);
      assert.match(replayed.stdout + replayed.stderr, /DIFFERENT|"identical": ?false/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
