/**
 * `peagen init`: finding a function's lines in Python and JavaScript, and the example it makes
 * (the marked program beside the scaffolded evaluator).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { functionLines } from '../../daemon/evaluation/scaffold/scaffoldExample';
import { initExample } from '../../daemon/usecases/initExample';

describe('peagen init', () => {
  it('finds a Python function with its decorators, to the last line indented under it', () => {
    const lines = ['import x', '', '@cache', 'def f(a):', '    if a:', '', '        return 1', '    return 2', '', 'def g():', '    pass'];
    assert.deepEqual(functionLines(lines, 'f', 'python'), { startLine: 2, endLine: 8 });
    assert.deepEqual(functionLines(lines, 'g', 'python'), { startLine: 9, endLine: 11 });
    assert.equal(functionLines(lines, 'h', 'python'), undefined);
  });

  it("finds a Python function whose signature spans lines (black's closing line at the def's indentation), past a docstring's text at column 0", () => {
    const lines = [
      'def parse_duration(',
      '    datestring: str, as_timedelta_if_possible: bool = True',
      ') -> Union[timedelta, Duration]:',
      '    """Parses a duration.',
      '',
      'Formats (at column 0, inside the string): PnnW ) ( """',
      '    s = "(" # )',
      '# a comment at column 0 inside the body',
      '    return s',
      '',
      'def after(): return 1',
      'x = 2',
    ];
    assert.deepEqual(functionLines(lines, 'parse_duration', 'python'), { startLine: 0, endLine: 9 });
    assert.deepEqual(functionLines(lines, 'after', 'python'), { startLine: 10, endLine: 11 });
  });

  it('finds a JavaScript function to its closing brace, braces in strings and comments not counted', () => {
    const lines = ['function f(a = { x: 1 }) {', "  const s = '}'; // }", '  /* { */ return `${a}`;', '}', 'const g = (x) => x + 1;', 'export const h = function () {', '  return 1;', '};'];
    assert.deepEqual(functionLines(lines, 'f', 'javascript'), { startLine: 0, endLine: 4 });
    assert.deepEqual(functionLines(lines, 'g', 'javascript'), { startLine: 4, endLine: 5 });
    assert.deepEqual(functionLines(lines, 'h', 'javascript'), { startLine: 5, endLine: 8 });
  });

  it('finds export default function and skips regular expression literals (their quotes and brackets), not divisions', () => {
    const lines = [
      "const apostrophe = /['’]/g;",
      'export default function count(value) {',
      "  const parts = value.replace(/[{'(]/g, '').split(/\\s+/);",
      '  const half = parts.length / 2; const third = (half) / 3;',
      '  return /}/.test(value) ? third : half;',
      '}',
      'export function after() {',
      '  return 1;',
      '}',
    ];
    assert.deepEqual(functionLines(lines, 'count', 'javascript'), { startLine: 1, endLine: 6 });
    assert.deepEqual(functionLines(lines, 'after', 'javascript'), { startLine: 6, endLine: 9 });
  });

  it('makes the example under .peagen/examples: the file with markers around the function, the reference as it is, the evaluator, the config; never over an existing one', async () => {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-init-'));
    try {
      const text = 'def mean(v):\n    return sum(v) / len(v)\n\n\ndef slow(v):\n    return sorted(v)[0]\n';
      fs.writeFileSync(path.join(project, 'lib.py'), text);
      const made = await initExample({ file: path.join(project, 'lib.py'), functionName: 'slow', projectDir: project });
      assert.equal(made.dir, path.join(project, '.peagen', 'examples', 'lib-slow'));
      assert.deepEqual(made.files, ['base.txt', 'lib.py', 'peagen.example.json', 'peagen_evaluate.py', 'peagen_reference_lib.py', 'selection.json']);
      assert.equal(fs.readFileSync(path.join(made.dir, 'lib.py'), 'utf8'), 'def mean(v):\n    return sum(v) / len(v)\n\n\n# EVOLVE-BLOCK-START\ndef slow(v):\n    return sorted(v)[0]\n# EVOLVE-BLOCK-END\n');
      assert.equal(fs.readFileSync(path.join(made.dir, 'peagen_reference_lib.py'), 'utf8'), text);
      await assert.rejects(initExample({ file: path.join(project, 'lib.py'), functionName: 'slow', projectDir: project }), /already holds files/);
      await assert.rejects(initExample({ file: path.join(project, 'lib.py'), functionName: 'nope', projectDir: project }), /defines no def nope/);
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });

  it('refuses what the generated evaluators cannot call, saying what to write instead', async () => {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-init-'));
    try {
      const js = path.join(project, 'lib.js');
      fs.writeFileSync(js, 'async function load(x) {\n  return x;\n}\nfunction* walk(x) {\n  yield x;\n}\nconst later = async (x) => x;\nmodule.exports = { load, walk, later };\n');
      const init = (file: string, functionName: string): Promise<unknown> => initExample({ file, functionName, projectDir: project });
      await assert.rejects(init(js, 'load'), /load is async: .*EVOLVE-BLOCK-START/);
      await assert.rejects(init(js, 'walk'), /walk is a generator/);
      await assert.rejects(init(js, 'later'), /later is async/);
      await assert.rejects(init(path.join(project, 'lib.rb'), 'f'), /handles Python \(\.py\), JavaScript \(\.js, \.cjs, \.mjs\) and TypeScript/);
      await assert.rejects(initExample({ file: js, functionName: 'load', projectDir: path.join(project, 'sub'), tests: 'true' }), /is outside the project/);
      assert.ok(!fs.existsSync(path.join(project, '.peagen')), 'nothing is written');
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });
});
