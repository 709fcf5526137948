/**
 * Evolve Selection's vscode-free logic: which lines a selection means, the marked program,
 * the job the daemon makes from what the editor sends, and the way back from an evolved
 * program to the source file.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { prepareSelection, readSelectionJob, SELECTIONS_DIR, selectionJobDir } from '../../daemon/usecases/selectionJob';
import { commentSyntax, selectionProgram } from '../../daemon/usecases/selectionProgram';
import { readExampleFiles } from '../../extension/evolve/exampleFiles';
import { programTarget, programTitle } from '../../extension/evolve/programMapping';
import { RegionError, resolveRegion } from '../../extension/evolve/region';
import { describeWorstCase, needsConfirmation, parseStopInput, stopOptions } from '../../extension/evolve/runChoices';
import type { Program } from '../../shared/evolution';
import type { PrepareSelection } from '../../shared/protocol';
import { replacementFromProgram } from '../../shared/selection';

const PY = ['import math', '', 'def slow(values):', '    total = 0', '    for v in values:', '        total += v', '    return total', '', 'print(slow([1]))', ''].join('\n');
const at = (line: number, character = 0) => ({ line, character });

describe('Evolve Selection: the region', () => {
  it('widens a selection to whole lines; an end at column 0 does not take that line', () => {
    assert.deepEqual(resolveRegion(PY, { start: at(3, 5), end: at(5, 3) }), { startLine: 3, endLine: 6 });
    assert.deepEqual(resolveRegion(PY, { start: at(2, 0), end: at(7, 0) }), { startLine: 2, endLine: 7 });
  });

  it('takes the EVOLVE-BLOCK around the cursor (its inner lines), a marker line included', () => {
    const text = ['a = 1', '# EVOLVE-BLOCK-START', 'b = 2', 'c = 3', '# EVOLVE-BLOCK-END', 'd = 4'].join('\n');
    assert.deepEqual(resolveRegion(text, { start: at(2, 1), end: at(2, 1) }), { startLine: 2, endLine: 4 });
    assert.deepEqual(resolveRegion(text, { start: at(4, 0), end: at(4, 0) }), { startLine: 2, endLine: 4 });
  });

  it('no selection and no block: an error that says what to select', () => {
    assert.throws(() => resolveRegion(PY, { start: at(3, 2), end: at(3, 2) }), (error: Error) => error instanceof RegionError && /select the lines to evolve/.test(error.message));
    assert.throws(() => resolveRegion(PY, { start: at(1, 0), end: at(2, 0) }), /only blank lines/);
  });
});

describe('Evolve Selection: the marked program and the way back', () => {
  it('adds markers in the language comment syntax, at the region indentation', () => {
    const marked = selectionProgram(PY, { startLine: 3, endLine: 7 }, 'python');
    assert.equal(marked.markersAdded, true);
    assert.deepEqual(marked.code.split('\n').slice(2, 9), ['def slow(values):', '    # EVOLVE-BLOCK-START', '    total = 0', '    for v in values:', '        total += v', '    return total', '    # EVOLVE-BLOCK-END']);
    assert.equal(marked.code.replace(/ *# EVOLVE-BLOCK-(START|END)\n/g, ''), PY, 'nothing else changes');
    const js = selectionProgram('function f() {\n  return 1;\n}\n', { startLine: 1, endLine: 2 }, 'javascript');
    assert.equal(js.code, 'function f() {\n  // EVOLVE-BLOCK-START\n  return 1;\n  // EVOLVE-BLOCK-END\n}\n');
    assert.deepEqual(commentSyntax('html'), { prefix: '<!--', suffix: ' -->' });
  });

  it('maps an evolved program back: the text between the markers replaces the region, markers stripped', () => {
    const marked = selectionProgram(PY, { startLine: 3, endLine: 7 }, 'python');
    const evolved = marked.code.replace('    total = 0\n    for v in values:\n        total += v\n    return total', '    return sum(values)');
    assert.equal(replacementFromProgram(evolved, marked.blockIndex), '    return sum(values)');
    assert.deepEqual(marked.replaceRange, { startLine: 3, endLine: 7 });
  });

  it('a file whose block already holds the region is evolved as it is: that whole block is replaced', () => {
    const text = ['x = 0', '# EVOLVE-BLOCK-START', 'def f():', '    return 1', '# EVOLVE-BLOCK-END', ''].join('\n');
    const marked = selectionProgram(text, { startLine: 3, endLine: 4 }, 'python');
    assert.deepEqual([marked.markersAdded, marked.code, marked.replaceRange, marked.blockIndex], [false, text, { startLine: 2, endLine: 4 }, 0]);
    assert.equal(replacementFromProgram(text.replace('return 1', 'return 2'), 0), 'def f():\n    return 2');
  });

  it('other blocks of the file are disarmed in the copy, so only the selection evolves', () => {
    const text = ['# EVOLVE-BLOCK-START', 'a = 1', '# EVOLVE-BLOCK-END', 'b = 2', 'c = 3', ''].join('\n');
    const marked = selectionProgram(text, { startLine: 3, endLine: 4 }, 'python');
    assert.equal(marked.markersAdded, true);
    assert.equal((marked.code.match(/EVOLVE-BLOCK-START/g) ?? []).length, 1, marked.code);
    assert.equal(replacementFromProgram(marked.code, marked.blockIndex), 'b = 2');
  });

  it('refuses a region holding a marker, and a language without known comments, saying what to do', () => {
    const text = ['# EVOLVE-BLOCK-START', 'a = 1', '# EVOLVE-BLOCK-END', 'b = 2'].join('\n');
    assert.throws(() => selectionProgram(text, { startLine: 1, endLine: 4 }, 'python'), /marker line: select only the lines inside/);
    assert.throws(() => selectionProgram('a\nb\n', { startLine: 0, endLine: 1 }, 'brainfuck'), /add comment lines holding EVOLVE-BLOCK-START/);
  });
});

describe('Evolve Selection: the job directory and proposals of its runs', () => {
  let root: string;
  beforeEach(() => (root = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-selection-'))));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  function example(): { dir: string; source: string } {
    const dir = path.join(root, 'proj', 'lib');
    fs.mkdirSync(path.join(dir, 'node_modules', 'x'), { recursive: true });
    fs.mkdirSync(path.join(dir, '__pycache__'));
    fs.writeFileSync(path.join(dir, 'node_modules', 'x', 'big.js'), '');
    fs.writeFileSync(path.join(dir, 'evaluate.py'), 'print(1)\n');
    fs.writeFileSync(path.join(dir, 'peagen.example.json'), JSON.stringify({ name: 'lib', program: 'other.py', evaluator: ['python3', 'evaluate.py', '{program}'], objective: { name: 'speedup', direction: 'maximize' } }));
    const source = path.join(dir, 'slow.py');
    fs.writeFileSync(source, PY);
    return { dir, source };
  }

  /** What the editor sends for the selection of `source` scored by the example in `dir`. */
  function request(dir: string, source: string, region = { startLine: 3, endLine: 7 }): PrepareSelection.Params {
    return { projectDir: '/client/only/path', workspaceId: 'abcdefgh12', sourceFile: source, languageId: 'python', text: PY, region, example: { dir, files: readExampleFiles(dir) } };
  }

  it('the editor sends the example as content (no node_modules, __pycache__); the daemon writes the job from it, program pointing at the marked text', () => {
    const { dir, source } = example();
    assert.deepEqual(Object.keys(readExampleFiles(dir)).sort(), ['evaluate.py', 'peagen.example.json', 'slow.py']);
    const home = path.join(root, 'daemon-home');
    const prepared = prepareSelection(request(dir, source), home);
    const jobDir = selectionJobDir(home, prepared.job!.jobId);
    assert.ok(jobDir.startsWith(path.join(home, SELECTIONS_DIR, 'slow-')), jobDir);
    assert.deepEqual(fs.readdirSync(jobDir).sort(), ['base.txt', 'evaluate.py', 'peagen.example.json', 'selection.json', 'slow.py']);
    const config = JSON.parse(fs.readFileSync(path.join(jobDir, 'peagen.example.json'), 'utf8')) as { program: string; name: string };
    assert.deepEqual([config.program, config.name], ['slow.py', 'lib'], 'a file of the example is evolved in its place');
    assert.equal(fs.readFileSync(path.join(jobDir, 'slow.py'), 'utf8'), prepared.code);
    assert.equal(prepared.code, selectionProgram(PY, { startLine: 3, endLine: 7 }, 'python').code);
    const record = readSelectionJob(jobDir)!.record;
    assert.deepEqual([record.sourceFile, record.region, record.markersAdded, record.baseTextHash.length], [source, { startLine: 3, endLine: 7 }, true, 64]);
    // The same selection again: the same job, reused; a changed evaluator: a new job.
    assert.equal(prepareSelection(request(dir, source), home).job!.jobId, prepared.job!.jobId);
    fs.writeFileSync(path.join(dir, 'evaluate.py'), 'print(2)\n');
    assert.notEqual(prepareSelection(request(dir, source), home).job!.jobId, prepared.job!.jobId);
  });

  it('refuses an example whose files would land outside the job, or that has no peagen.example.json, saying what is wrong', () => {
    const { dir, source } = example();
    const home = path.join(root, 'daemon-home');
    const files = readExampleFiles(dir);
    const config = JSON.parse(Buffer.from(files['peagen.example.json']!, 'base64').toString('utf8')) as Record<string, unknown>;
    const withConfig = (change: Record<string, unknown>) => ({ ...files, 'peagen.example.json': Buffer.from(JSON.stringify({ ...config, ...change })).toString('base64') });
    const elsewhere = { ...request(dir, path.join(root, 'elsewhere.py')), example: { dir, files: withConfig({ program: '../../escaped.py' }) } };
    assert.throws(() => prepareSelection(elsewhere, home), /program "..\/..\/escaped.py" must be a path inside the example/);
    const { 'peagen.example.json': _config, ...noConfig } = files;
    void _config;
    assert.throws(() => prepareSelection({ ...request(dir, source), example: { dir, files: noConfig } }, home), /has no peagen.example.json/);
    assert.equal(fs.existsSync(path.join(root, 'escaped.py')), false);
  });

  it('proposal mapping: a selection run maps to the region; any other run to the whole program file', () => {
    const { dir, source } = example();
    const region = { startLine: 3, endLine: 7 };
    const prepared = prepareSelection(request(dir, source, region), path.join(root, 'daemon-home'));
    const job = readSelectionJob(selectionJobDir(path.join(root, 'daemon-home'), prepared.job!.jobId))!;
    const child = { code: prepared.code.replace('    total = 0\n    for v in values:\n        total += v\n    return total', '    return sum(values)'), objective: 12.34, lineage: { generation: 4, mutator: 'llm-patch', model: 'openai/gpt-4o-mini' } } as Program;

    const target = programTarget({ kind: 'selection', record: job.record, baseText: job.baseText }, 'speedup', child);
    assert.deepEqual(target, { file: source, baseText: PY, region, replacement: '    return sum(values)', title: 'speedup 12.3 (gen 4, openai/gpt-4o-mini)' });

    fs.writeFileSync(path.join(dir, 'other.py'), 'a = 1\nb = 2\n');
    const whole = programTarget({ kind: 'example', exampleDir: dir, program: 'other.py' }, 'speedup', { ...child, code: 'a = 1\nb = 3\n' });
    assert.deepEqual([whole.file, whole.region, whole.replacement], [path.join(dir, 'other.py'), { startLine: 0, endLine: 2 }, 'a = 1\nb = 3']);
    assert.equal(programTitle('speedup', { objective: null, lineage: { generation: 2, mutator: 'offline' } } as Program), 'failed (gen 2, offline)');
    assert.equal(programTitle('speedup', { objective: 2.8, lineage: { generation: 2, mutator: 'transplant' } } as Program), 'speedup 2.8 (gen 2, an edit from another lineage)');
  });
});

describe('Evolve Selection: stop conditions and the spend confirmation', () => {
  it('offers the default evaluations and typed generations, minutes, target', () => {
    assert.deepEqual(stopOptions(40)[0]!.stop, { evaluations: 40 });
    assert.deepEqual(parseStopInput('generations', '5'), { generations: 5 });
    assert.deepEqual(parseStopInput('minutes', '1.5'), { wallMs: 90_000 });
    assert.deepEqual(parseStopInput('target', '-2'), { target: -2 });
    assert.equal(typeof parseStopInput('generations', '2.5'), 'string');
    assert.equal(typeof parseStopInput('minutes', 'soon'), 'string');
  });

  it('asks above either limit only', () => {
    const limits = { usd: 1, tokens: 1_000_000 };
    assert.equal(needsConfirmation({ calls: 10, tokens: 50_000, usd: 0.2 }, limits), false);
    assert.equal(needsConfirmation({ calls: 10, tokens: 50_000, usd: 1.5 }, limits), true);
    assert.equal(needsConfirmation({ calls: 10, tokens: 2_000_000, usd: 0 }, limits), true);
    assert.equal(needsConfirmation(null, limits), false);
    assert.equal(describeWorstCase({ mutator: 'llm-patch', worstCase: { calls: 3, tokens: 12_345, usd: 0.5 } }), 'worst case: 3 LLM calls, 12,345 tokens, $0.50');
  });
});
