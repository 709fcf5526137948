/**
 * `peagen render` as users run it (dist/cli.js in a child process) on the bundled example
 * (examples/render), with GENERATE prompts answered by a scripted OpenAI-compatible server:
 * the same inputs give byte-identical trees (through the task fabric and with --sync),
 * --dry-run writes nothing, a failing file leaves the output directory as it was, and the
 * worst-case spend is printed and honoured by the budget flags.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EvolveProject, waitUntil } from '../fixtures/evolveFixtures';
import { startOpenAiServer, type WireRequest, type WireServer } from '../fixtures/llmWireServers';
import { REPO, tempDir } from '../fixtures/paths';

const PROJECTS = path.join(REPO, 'examples', 'render', 'projects.yaml');
const FILES = [
  'shapes/README.md',
  'shapes/pyproject.toml',
  'shapes/src/shapes/__init__.py',
  'shapes/src/shapes/circle.py',
  'shapes/src/shapes/units.py',
  'shapes/tests/test_circle.py',
  'shapes/tests/test_units.py',
];
const WORST_CASE = /2 GENERATE file\(s\): worst-case spend: 2 LLM calls, ([\d,]+) tokens/;

/** A module the "model" writes: its functions, and a digest of the whole prompt it was given. */
function scriptedModule(request: WireRequest): string {
  const prompt = request.messages[request.messages.length - 1]!.content;
  const functions = [...prompt.matchAll(/^- `(\w+)`$/gm)].map((match) => match[1]!);
  const digest = createHash('sha256').update(prompt).digest('hex').slice(0, 16);
  return ['```python', `# prompt ${digest}, seed ${request.seed}, temperature ${request.temperature}`, ...functions.map((name) => `def ${name}(value: float) -> float:\n    return value\n`), '```'].join('\n');
}

/** Every file under `dir` (relative path → content). */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  if (!fs.existsSync(dir)) return files;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name);
      files.set(path.relative(dir, file).split(path.sep).join('/'), fs.readFileSync(file, 'utf8'));
    }
  }
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe('peagen render (real CLI, scripted model)', function () {
  this.timeout(240_000);
  let project: EvolveProject;
  let server: WireServer;
  let outs: string;

  beforeEach(async () => {
    project = new EvolveProject();
    outs = tempDir('render-out');
    server = await startOpenAiServer({ responder: scriptedModule });
  });
  afterEach(async () => {
    await server.close();
    project.cleanup();
    fs.rmSync(outs, { recursive: true, force: true });
  });

  const render = (...args: string[]) => project.run(['render', PROJECTS, ...args], { OPENAI_BASE_URL: server.baseUrl });

  it('renders the bundled example twice (task fabric, then --sync) into byte-identical trees, GENERATE files by the model at temperature 0 with the seed', async () => {
    const first = await render('--out', path.join(outs, 'a'), '--seed', '7');
    assert.equal(first.code, 0, first.stderr);
    const worst = WORST_CASE.exec(first.stderr);
    assert.ok(worst, first.stderr);
    assert.ok(worst.index < first.stderr.indexOf('rendering 7 file(s)'), 'the worst case is printed before the render starts');
    assert.match(first.stderr, /tasks run in this process/);
    const second = await render('--out', path.join(outs, 'b'), '--seed', '7', '--sync', '--json');
    assert.equal(second.code, 0, second.stderr);
    const a = tree(path.join(outs, 'a'));
    const b = tree(path.join(outs, 'b'));
    assert.deepEqual([...a.keys()], FILES);
    assert.deepEqual(b, a, 'byte-identical trees');
    assert.deepEqual(fs.readdirSync(outs).sort(), ['a', 'b'], 'no temporary directory left beside them');

    assert.equal(server.requests.length, 4, 'one call per GENERATE file per run');
    for (const request of server.requests) {
      assert.equal(request.parsed?.temperature, 0);
      assert.equal(request.parsed?.seed, 7);
      assert.equal(request.parsed?.maxTokens, 600);
    }
    // circle.py depends on units.py, so its prompt holds units.py as the model wrote it.
    const circlePrompt = server.requests.map((request) => request.parsed!.messages.at(-1)!.content).find((prompt) => prompt.includes('`shapes.circle`'))!;
    assert.ok(circlePrompt.includes(a.get('shapes/src/shapes/units.py')!), 'the dependency text is in the prompt');
    assert.match(a.get('shapes/src/shapes/circle.py')!, /^# prompt [0-9a-f]{16}, seed 7, temperature 0\ndef area\(value: float\)/);
    assert.match(a.get('shapes/README.md')!, /\| `shapes\.circle` \| the area and the perimeter of a circle/);
    for (const [file, text] of a) assert.ok(text.endsWith('\n'), `${file} ends with a newline`);
    assert.match(a.get('shapes/src/shapes/__init__.py')!, /^# shapes\/src\/shapes\/__init__\.py: part of shapes 0\.1\.0 \(MIT\), by Peagen example\./);

    const report = JSON.parse(second.stdout) as { files: { path: string; processType: string; sha256: string }[]; llm: { calls: number } };
    assert.deepEqual(report.files.map((file) => `${file.path} ${file.processType}`), FILES.map((file) => `${file} ${file.includes('/src/shapes/') && !file.endsWith('__init__.py') ? 'GENERATE' : 'COPY'}`));
    assert.equal(report.llm.calls, 2);
  });

  it('--dry-run lists every file with its record type and dependencies, and writes nothing', async () => {
    const out = path.join(outs, 'dry');
    const run = await render('--out', out, '--dry-run', '--json');
    assert.equal(run.code, 0, run.stderr);
    const listed = JSON.parse(run.stdout) as { dryRun: boolean; files: { path: string; processType: string; dependsOn: string[] }[] };
    assert.equal(listed.dryRun, true);
    assert.deepEqual(listed.files.map((file) => file.path).sort(), FILES);
    assert.deepEqual(listed.files.find((file) => file.path === 'shapes/src/shapes/circle.py')?.dependsOn, ['shapes/src/shapes/__init__.py', 'shapes/src/shapes/units.py']);
    assert.match(run.stderr, WORST_CASE);
    assert.equal(fs.existsSync(out), false);
    assert.deepEqual(fs.readdirSync(outs), []);
    assert.equal(server.requests.length, 0, 'no model call');
  });

  it('a GENERATE file whose model call fails leaves the existing output directory exactly as it was', async () => {
    const out = path.join(outs, 'existing');
    fs.mkdirSync(path.join(out, 'shapes'), { recursive: true });
    fs.writeFileSync(path.join(out, 'shapes', 'README.md'), 'the previous render\n');
    fs.writeFileSync(path.join(out, 'keep.txt'), 'mine\n');
    const before = tree(out);
    // units.py is answered; circle.py (rendered after it) is refused: COPY files were rendered by then.
    server.faults.push({ kind: 'delay', ms: 0 }, { kind: 'status', status: 400, message: 'scripted refusal' });
    const run = await render('--out', out);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /shapes\/src\/shapes\/circle\.py: .*scripted refusal.*; nothing was written to /);
    assert.match(run.stderr, /\[\d\/7\] shapes\/README\.md \(COPY\)/, 'files were rendered before the failure');
    assert.deepEqual(tree(out), before, 'not one file changed');
    assert.deepEqual(fs.readdirSync(outs), ['existing'], 'no temporary directory left');
  });

  for (const mode of ['the task fabric', '--sync'] as const) {
    it(`Ctrl-C while a GENERATE file waits for its model (${mode}): exits 130 at once, and the output directory is as it was`, async () => {
      const out = path.join(outs, 'existing');
      fs.mkdirSync(out, { recursive: true });
      fs.writeFileSync(path.join(out, 'keep.txt'), 'mine\n');
      const before = tree(out);
      server.faults.push({ kind: 'hang' });
      const run = project.start(['render', PROJECTS, '--out', out, ...(mode === '--sync' ? ['--sync'] : [])], { OPENAI_BASE_URL: server.baseUrl }, 60_000);
      await waitUntil(() => server.requests.length > 0, 60_000, 'the first GENERATE call');
      run.child.kill('SIGINT');
      // Well before the CLI's own 60 s bound, had the interrupt been ignored.
      const result = await run.exited;
      assert.equal(result.code, 130, `${result.signal ?? ''}\n${result.stderr}`);
      assert.match(result.stderr, /interrupted: nothing was written/);
      assert.deepEqual(tree(out), before, 'not one file changed');
      assert.deepEqual(fs.readdirSync(outs), ['existing'], 'no temporary directory left');
      assert.equal(server.requests.length, 1, 'no model call after the interrupt');
    });
  }

  it('refuses to start when the worst case exceeds --budget-tokens or --max-llm-calls (exit 2), with no model call', async () => {
    const out = path.join(outs, 'budget');
    const tokens = await render('--out', out, '--budget-tokens', '100');
    assert.equal(tokens.code, 2, tokens.stderr);
    assert.match(tokens.stderr, WORST_CASE);
    assert.match(tokens.stderr, /refusing to start: the worst case exceeds the budget \([\d]+ tokens > --budget-tokens 100\)/);
    const calls = await render('--out', out, '--max-llm-calls', '1');
    assert.equal(calls.code, 2, calls.stderr);
    assert.match(calls.stderr, /2 LLM calls > --max-llm-calls 1/);
    assert.equal(server.requests.length, 0);
    assert.equal(fs.existsSync(out), false);
    // A budget above the worst case lets it run.
    const worst = Number(WORST_CASE.exec(tokens.stderr)![1]!.replace(/,/g, ''));
    const enough = await render('--out', out, '--budget-tokens', String(worst), '--sync');
    assert.equal(enough.code, 0, enough.stderr);
  });

  it('with no LLM configured: renders the example offline, its GENERATE files from their OFFLINE_TEMPLATE stand-ins, and says so', async () => {
    const out = path.join(outs, 'offline');
    const run = await project.run(['render', PROJECTS, '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /no LLM configured: 2 GENERATE file\(s\) rendered from their OFFLINE_TEMPLATE stand-ins; set OPENAI_API_KEY/);
    assert.deepEqual([...tree(out).keys()], FILES);
    assert.match(tree(out).get('shapes/src/shapes/circle.py')!, /def area\(/);
    // The rendered project is whole: its package imports and its own smoke tests pass.
    for (const test of ['test_units', 'test_circle']) {
      const script = `import runpy\nfor name, check in runpy.run_path('tests/${test}.py').items():\n    if name.startswith('test_'): check()\n`;
      const python = spawnSync('python3', ['-c', script], { cwd: path.join(out, 'shapes'), env: { ...process.env, PYTHONPATH: 'src' }, encoding: 'utf8' });
      assert.equal(python.status, 0, python.stderr);
    }
  });

  it('bad input: names the file and line (exit 2); GENERATE records without any LLM: says how to configure one', async () => {
    const bad = path.join(project.dir, 'bad.yaml');
    fs.writeFileSync(bad, fs.readFileSync(PROJECTS, 'utf8').replace('TEMPLATE_SET: python_lib', 'TEMPLATE_SET: python_lob').replace('TEMPLATE_SETS: template_sets', `TEMPLATE_SETS: ${path.join(REPO, 'examples', 'render', 'template_sets')}`));
    const unknown = await project.run(['render', bad, '--out', path.join(outs, 'x')]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /bad\.yaml:7: PROJECTS\[0\]\.TEMPLATE_SET: unknown template set "python_lob" \(.* has: python_lib;/);
    // The example's template set with no offline stand-in for its GENERATE record.
    const sets = path.join(project.dir, 'sets');
    fs.cpSync(path.join(REPO, 'examples', 'render', 'template_sets'), sets, { recursive: true });
    const manifest = path.join(sets, 'python_lib', 'manifest.yaml');
    fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace(/^ *OFFLINE_TEMPLATE:.*\n/m, ''));
    const online = path.join(project.dir, 'online.yaml');
    fs.writeFileSync(online, fs.readFileSync(PROJECTS, 'utf8').replace('TEMPLATE_SETS: template_sets', `TEMPLATE_SETS: ${sets}`));
    const noLlm = await project.run(['render', online, '--out', path.join(outs, 'x')]);
    assert.equal(noLlm.code, 2, noLlm.stderr);
    assert.match(noLlm.stderr, /GENERATE records need an LLM: set OPENAI_API_KEY/);
    assert.deepEqual(fs.readdirSync(outs), []);
  });
});
