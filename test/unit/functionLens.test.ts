/**
 * "Evolve this function": which functions get the lens (those `peagen init` serves, in files
 * whose project has tests), the test command found for them, and the daemon's init for the
 * editor (the CLI's example, made again only when there is none for the same tests).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { functionLensTarget, noTestsMessage } from '../../extension/codeLens/functionLenses';
import { initFunction } from '../../daemon/usecases/initFunction';
import { servableFunctions } from '../../shared/functionScan';
import { findProjectTests } from '../../shared/projectTests';

const names = (text: string, language: 'python' | 'javascript'): string[] => servableFunctions(text, language).map((fn) => fn.name);

describe('Evolve this function: the functions init serves', () => {
  it('Python: top-level defs (decorators included) and generators, not methods, nested functions, async defs or defs inside a docstring', () => {
    const text = [
      '"""Module doc.',
      'def in_docstring():',
      '"""',
      'import math',
      '',
      '@cache',
      'def mean(v):',
      '    def inner(x):',
      '        return x',
      '    return sum(v) / len(v)',
      '',
      'class Stats:',
      '    def method(self):',
      '        return 1',
      '',
      'def numbers(n):',
      '    for i in range(n):',
      '        yield i  # a generator',
      '',
      'async def fetch():',
      '    return 1',
      '',
      'def last(v): return v[-1]',
    ].join('\n');
    const found = servableFunctions(text, 'python');
    assert.deepEqual(found.map((fn) => fn.name), ['mean', 'numbers', 'last']);
    assert.deepEqual(found[0], { name: 'mean', region: { startLine: 5, endLine: 10 }, definitionLine: 6 });
    assert.deepEqual(found[2]!.region, { startLine: 22, endLine: 23 });
  });

  it('JavaScript: function, export function, const f = (...) =>, not generators, async or nested functions', () => {
    const text = [
      "'use strict';",
      'function runningMax(values) {',
      '  function helper() { return 1; }',
      '  return values;',
      '}',
      'export function sum(a) {',
      '  return a.reduce((x, y) => x + y, 0);',
      '}',
      'const double = (x) => x * 2;',
      'function* ids() { yield 1; }',
      'async function load() { return 1; }',
      'const later = async (x) => x;',
      'module.exports = { runningMax };',
    ].join('\n');
    assert.deepEqual(names(text, 'javascript'), ['runningMax', 'sum', 'double']);
    assert.deepEqual(servableFunctions(text, 'javascript')[0]!.region, { startLine: 1, endLine: 5 });
  });

  it('TypeScript\'s formatted arrow functions: parameters over several lines (`export const f = (\\n  a: string,\\n) => {`), generics; a parenthesised value is not a function', () => {
    const text = [
      'export const balanced = (',
      '  a: string | RegExp,',
      '  str: string,',
      ') => {',
      '  return a;',
      '}',
      'const pick = <T>(items: T[]): T => items[0];',
      'const total = (',
      '  1 + 2',
      ');',
    ].join('\n');
    assert.deepEqual(names(text, 'javascript'), ['balanced', 'pick']);
    assert.deepEqual(servableFunctions(text, 'javascript')[0]!.region, { startLine: 0, endLine: 6 });
  });

  it('members of an exported object and `exports.f = function`: each gets a lens; not a class\'s methods, an unexported object\'s, accessors, or a member that uses `this`', () => {
    const text = [
      'exports.a = function (x) {',
      '  return x;',
      '};',
      'module.exports = {',
      '  c(x) {',
      '    if (x) {',
      '      return 1;',
      '    }',
      '    return x;',
      '  },',
      '  d: function (x) { return x; },',
      '  get size() { return 1; },',
      '  self(x) { return this.c(x); },',
      '  e: (x) => x + 1,',
      '};',
      'const hidden = {',
      '  g(x) { return x; },',
      '};',
      'const shown = {',
      '  h: (x) =>',
      '    x * 2',
      '};',
      'export { shown };',
      'class K {',
      '  m(x) { return x; }',
      '}',
    ].join('\n');
    assert.deepEqual(names(text, 'javascript'), ['a', 'c', 'd', 'e', 'h']);
    const regions = Object.fromEntries(servableFunctions(text, 'javascript').map((fn) => [fn.name, fn.region]));
    assert.deepEqual(regions.c, { startLine: 4, endLine: 10 });
    assert.deepEqual(regions.e, { startLine: 13, endLine: 14 }, 'a bodiless arrow ends at its comma');
    assert.deepEqual(regions.h, { startLine: 19, endLine: 21 }, 'the last member ends before the object closes');
    assert.deepEqual(names('export default {\n  slug(text) {\n    return text;\n  },\n};\n', 'javascript'), ['slug']);
  });

  it('a long file is scanned in one pass (a lens refresh of 3000 functions takes well under a second), and a huge one not at all', () => {
    const text = Array.from({ length: 3000 }, (_, index) => `def f${index}(values):\n    total = 0\n    for value in values:\n        total += value\n    return total\n`).join('\n');
    const started = process.hrtime.bigint();
    const found = servableFunctions(text, 'python');
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    assert.equal(found.length, 3000);
    assert.deepEqual(found[2999]!.region, { startLine: 2999 * 6, endLine: 2999 * 6 + 5 });
    assert.ok(ms < 500, `${ms} ms`);
    assert.deepEqual(servableFunctions(`def f():\n    return 1\n${'#'.repeat(2_000_001)}`, 'python'), []);
  });

  it('a function whose end cannot be told gets no lens', () => {
    assert.deepEqual(names('function broken(a) {\n  return a;\n', 'javascript'), []);
  });
});

describe('Evolve this function: the tests found for a file', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-lens-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const write = (relative: string, content = ''): string => {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    return file;
  };

  it('Python: unittest beside the file, discover in tests/, pytest when configured; the nearest folder up to the workspace', () => {
    const stats = write('app/stats.py', 'def mean(v):\n    return sum(v) / len(v)\n');
    assert.equal(findProjectTests(stats, root, 'python'), undefined);
    write('app/tests/test_stats.py');
    assert.deepEqual(findProjectTests(stats, root, 'python'), { projectDir: path.join(root, 'app'), command: 'python3 -m unittest discover -s tests', foundBy: 'tests/test_stats.py' });
    write('app/test_stats.py');
    assert.equal(findProjectTests(stats, root, 'python')?.command, 'python3 -m unittest');
    write('app/pyproject.toml', '[project]\nname = "x"\n\n[tool.pytest.ini_options]\n');
    assert.equal(findProjectTests(stats, root, 'python')?.command, 'python3 -m pytest');
    // A file deeper down uses the folder above that holds tests.
    const deep = write('app/pkg/util.py', 'def f():\n    return 1\n');
    assert.equal(findProjectTests(deep, root, 'python')?.projectDir, path.join(root, 'app'));
    // Outside the workspace folder: nothing.
    assert.equal(findProjectTests(stats, path.join(root, 'other'), 'python'), undefined);
  });

  it('JavaScript: package.json\'s test script, else node --test\'s own file patterns; npm\'s placeholder script is no tests', () => {
    const running = write('running.js', 'function runningMax(v) {\n  return v;\n}\nmodule.exports = { runningMax };\n');
    write('package.json', JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }));
    assert.equal(findProjectTests(running, root, 'javascript'), undefined);
    write('running.test.js');
    assert.deepEqual(findProjectTests(running, root, 'javascript'), { projectDir: root, command: 'node --test', foundBy: 'running.test.js' });
    write('package.json', JSON.stringify({ scripts: { test: 'node --test' } }));
    assert.equal(findProjectTests(running, root, 'javascript')?.command, 'npm test');
    // Python tests do not serve a JavaScript file.
    fs.rmSync(path.join(root, 'package.json'));
    fs.rmSync(path.join(root, 'running.test.js'));
    write('test_running.py');
    assert.equal(findProjectTests(running, root, 'javascript'), undefined);
  });

  it('the lens target: no lens without tests or in other languages; the setting\'s command replaces the one found', () => {
    const text = 'def mean(v):\n    return sum(v) / len(v)\n';
    const stats = write('stats.py', text);
    assert.equal(functionLensTarget(stats, text, root), undefined);
    assert.equal(functionLensTarget(path.join(root, 'stats.rb'), 'def f\nend\n', root, 'rake test'), undefined);
    assert.deepEqual(functionLensTarget(path.join(root, 'stats.ts'), 'export function f(a: number): number {\n  return a;\n}\n', root, 'npm test')?.functions.map((fn) => fn.name), ['f'], 'TypeScript has the lens');
    const configured = functionLensTarget(stats, text, root, 'make test');
    assert.deepEqual(configured?.tests, { projectDir: root, command: 'make test', foundBy: 'peagen.codeLens.testCommand' });
    write('test_stats.py');
    assert.deepEqual(functionLensTarget(stats, text, root)?.functions.map((fn) => fn.name), ['mean']);
    assert.match(noTestsMessage('stats.py', 'python'), /no tests found for stats\.py.*test_\*\.py.*peagen\.codeLens\.testCommand/);
  });
});

describe('Evolve this function: the daemon\'s init (InitFunction)', function () {
  // Each runs the project's tests in real processes: seconds on a machine that is busy.
  this.timeout(30_000);
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-lens-init-'));
    fs.writeFileSync(path.join(root, 'stats.py'), 'def mean(v):\n    return sum(v) / len(v)\n');
    fs.writeFileSync(path.join(root, 'test_stats.py'), 'import unittest\n');
    fs.mkdirSync(path.join(root, '.peagen'));
    fs.writeFileSync(path.join(root, '.peagen', 'workspace-id'), 'abcdefgh1234\n');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const params = (extra: Partial<Parameters<typeof initFunction>[0]> = {}) => ({
    projectDir: root,
    workspaceId: 'abcdefgh1234',
    testsDir: root,
    sourceFile: path.join(root, 'stats.py'),
    functionName: 'mean',
    tests: 'python3 -m unittest',
    ...extra,
  });

  it('makes the CLI\'s example (for speed: the tests pass; a copy of the project) where the CLI would, then uses it again', async () => {
    const made = await initFunction(params());
    assert.deepEqual(made, { exampleDir: path.join(root, '.peagen', 'examples', 'stats-mean'), reused: false, objective: 'speed' });
    const config = JSON.parse(fs.readFileSync(path.join(made.exampleDir, 'peagen.example.json'), 'utf8')) as { evaluator: string[]; objective: { name: string } };
    assert.equal(config.objective.name, 'speedup');
    assert.match(fs.readFileSync(path.join(made.exampleDir, 'peagen_evaluate.py'), 'utf8'), /^TESTS = "python3 -m unittest"/m);
    assert.ok(fs.existsSync(path.join(made.exampleDir, 'project', 'test_stats.py')));
    assert.deepEqual(await initFunction(params()), { exampleDir: made.exampleDir, reused: true });
  });

  it('makes an example for the tests when some fail on the code as it is (its speed would be of wrong answers)', async () => {
    fs.appendFileSync(path.join(root, 'test_stats.py'), '\nimport stats\n\n\nclass Failing(unittest.TestCase):\n    def test_wanted(self):\n        self.assertEqual(stats.mean([1, 2]), 2)\n');
    const made = await initFunction(params());
    assert.equal(made.objective, 'tests');
    const config = JSON.parse(fs.readFileSync(path.join(made.exampleDir, 'peagen.example.json'), 'utf8')) as { evaluator: string[]; objective: { name: string } };
    assert.equal(config.objective.name, 'tests passed');
    assert.ok(config.evaluator.includes('python3 -m unittest'));
  });

  it('refuses: a daemon that does not share the folder, another test command over an example, a file outside the tests\' folder, a function init cannot serve', async () => {
    await assert.rejects(initFunction(params({ workspaceId: 'another-id-999' })), /this daemon does not see the folder .*peagen init stats\.py --function mean --tests "python3 -m unittest"/);
    await initFunction(params());
    await assert.rejects(initFunction(params({ tests: 'python3 -m pytest' })), /already holds an example of mean for another test command \(python3 -m unittest\): delete that folder/);
    await assert.rejects(initFunction(params({ sourceFile: path.join(os.tmpdir(), 'elsewhere.py') })), /outside the tests' folder/);
    await assert.rejects(initFunction(params({ testsDir: os.tmpdir() })), /outside the workspace/);
    fs.writeFileSync(path.join(root, 'later.py'), 'async def numbers(n):\n    return n\n');
    await assert.rejects(initFunction(params({ sourceFile: path.join(root, 'later.py'), functionName: 'numbers' })), /numbers is async/);
  });
});
