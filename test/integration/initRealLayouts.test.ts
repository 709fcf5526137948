/**
 * `peagen init` on projects laid out as real ones are, through the real CLI and the sandbox
 * the user's machine picks (test/fixtures/initProjects/pyPackage and jsPackage):
 *
 *  - a Python package with its own exception classes, relative imports, a function too quick
 *    to time one call at a time, and pytest from the user's own interpreter (not the system's);
 *  - a JavaScript package whose runtime dependency and test runner live in node_modules, with
 *    an executable cli.js its tests run, an exported error class and an array result with a
 *    named property.
 *
 * init checks that the seed evaluates before it says OK; a candidate that raises another
 * class than the original's, or drops the named property, fails the project's own tests.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { EvolveProject, parseJson } from '../fixtures/evolveFixtures';
import { REPO } from '../fixtures/paths';

interface InitOutput {
  dir: string;
  check?: { correct: boolean; executor: string; summary: string };
  inputs?: { from: string; calls?: number; why?: string };
  testCommand?: { command: string; leftOut: string[] };
}

interface EvalOutput {
  correct: boolean;
  objective: number | null;
  failure?: { message: string };
  metrics: Record<string, number>;
}

const FIXTURES = path.join(REPO, 'test', 'fixtures', 'initProjects');

/** What `npm install` would have put in node_modules: a runtime dependency and a test runner's bin. */
function installNodeModules(dir: string): void {
  fs.mkdirSync(path.join(dir, 'node_modules', 'tiny-pad'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'node_modules', 'tiny-pad', 'index.js'), "module.exports = (text) => text.padStart(3, '.');\n");
  fs.mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'node_modules', '.bin', 'minitest'), '#!/bin/sh\nexec node --test "$@"\n', { mode: 0o755 });
}

/** `name` and every package it depends on, copied from this repository's node_modules (hoisted, as npm lays them out). */
function installFromRepo(name: string, into: string, seen = new Set<string>()): void {
  if (seen.has(name)) return;
  seen.add(name);
  const from = path.join(REPO, 'node_modules', name);
  if (!fs.existsSync(from)) return; // an optional dependency this platform did not install
  fs.cpSync(from, path.join(into, name), { recursive: true, dereference: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const dependency of Object.keys(manifest.dependencies ?? {})) installFromRepo(dependency, into, seen);
}

describe('peagen init on projects laid out as real ones are (real CLI)', function () {
  this.timeout(300_000);
  let user: EvolveProject;
  afterEach(() => user.cleanup());

  it('a Python package: its own exceptions, relative imports and pytest from the user\'s interpreter; the seed evaluates, a candidate raising another class fails', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'pyPackage'), user.dir, { recursive: true });
    const tests = 'python3 -m pytest -q -p no:cacheprovider src';
    const init = await user.run(['--json', 'init', 'src/numerals/core.py', '--function', 'to_numeral', '--tests', tests]);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput>(init);
    assert.equal(made.check?.correct, true, made.check?.summary);
    const config = JSON.parse(fs.readFileSync(path.join(made.dir, 'peagen.example.json'), 'utf8')) as { project?: { root: string; toolchains: string[] }; limits: { memoryMb: number } };
    assert.equal(config.project?.root, '../../..');
    // Room for the project's test runner (ts-jest's compiler in each worker took more than 1 GiB).
    assert.ok(config.limits.memoryMb >= 4096, `memoryMb ${config.limits.memoryMb}`);

    const evaluate = async (program?: string): Promise<EvalOutput> => {
      const run = await user.run(['--json', 'eval', made.dir, '--quick', ...(program ? ['--program', program] : [])]);
      return parseJson<EvalOutput>(run);
    };
    const seed = await evaluate();
    assert.equal(seed.correct, true, seed.failure?.message);
    assert.ok((seed.metrics.timing_batch ?? 0) > 1, 'a call this quick is timed in batches of distinct valid calls');

    const program = fs.readFileSync(path.join(made.dir, 'core.py'), 'utf8');
    const other = path.join(user.dir, 'other_error.py');
    fs.writeFileSync(other, program.replace('raise OutOfRangeError(', 'raise ValueError('));
    const wrong = await evaluate(other);
    assert.equal(wrong.correct, false);
    // (Its answers are compared before the tests run: the tests' call with -1 gives it away.)
    assert.match(wrong.failure?.message ?? '', /answered raised ValueError: number out of range .*, the reference raised OutOfRangeError/);

    const faster = path.join(user.dir, 'faster.py');
    fs.writeFileSync(faster, program.replace('        checked = "".join(digits)\n', ''));
    const better = await evaluate(faster);
    assert.equal(better.correct, true, better.failure?.message);
  });

  it('a JavaScript package: node_modules (a dependency, the runner\'s bin) read-only, an executable cli.js, its error class and an array\'s named property', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'jsPackage'), user.dir, { recursive: true });
    fs.chmodSync(path.join(user.dir, 'cli.js'), 0o755);
    installNodeModules(user.dir);
    const init = await user.run(['--json', 'init', 'index.js', '--function', 'parseList', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput>(init);
    assert.equal(made.check?.correct, true, made.check?.summary);
    assert.equal(fs.existsSync(path.join(made.dir, 'project', 'node_modules')), false, 'node_modules is linked at evaluation, never copied');
    assert.equal(fs.statSync(path.join(made.dir, 'project', 'cli.js')).mode & 0o111, 0o111, 'the copy keeps the executable bit');

    const program = fs.readFileSync(path.join(made.dir, 'index.js'), 'utf8');
    for (const [name, text, failing] of [
      ['plain-error.js', program.replace('throw new ListError(', 'throw new RangeError('), /an empty item is the package's own error/],
      ['no-kind.js', program.replace(/items\.kind = .*\n/, ''), /the result says its kind/],
    ] as const) {
      fs.writeFileSync(path.join(user.dir, name), text);
      const run = await user.run(['--json', 'eval', made.dir, '--quick', '--program', path.join(user.dir, name)]);
      const verdict = parseJson<EvalOutput>(run);
      assert.equal(verdict.correct, false, name);
      assert.match(verdict.failure?.message ?? '', failing, name);
    }
  });

  it('a TypeScript module tested by node --test: its types stripped where it runs, the seed evaluates, a candidate raising another class fails', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'tsPackage'), user.dir, { recursive: true });
    const init = await user.run(['--json', 'init', 'src/words.ts', '--function', 'countWords', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput>(init);
    assert.equal(made.check?.correct, true, made.check?.summary);
    const config = JSON.parse(fs.readFileSync(path.join(made.dir, 'peagen.example.json'), 'utf8')) as { language: string };
    assert.equal(config.language, 'typescript');
    const program = fs.readFileSync(path.join(made.dir, 'words.ts'), 'utf8');
    fs.writeFileSync(path.join(user.dir, 'plain-error.ts'), program.replace('throw new WordError(', 'throw new RangeError('));
    const run = await user.run(['--json', 'eval', made.dir, '--quick', '--program', path.join(user.dir, 'plain-error.ts')]);
    const verdict = parseJson<EvalOutput>(run);
    assert.equal(verdict.correct, false);
    assert.match(verdict.failure?.message ?? '', /WordError|counts/);
  });

  it("a TypeScript project whose tests type-check its other files: the stand-in keeps the evolved function's types (yargs-parser's tsc)", async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'tsPackage'), user.dir, { recursive: true });
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(user.dir, 'node_modules')); // its typescript
    // `count` narrows to number only while countWords' answer is typed: as `any` it stays number | undefined.
    fs.writeFileSync(
      path.join(user.dir, 'src', 'use.ts'),
      "import { countWords } from './words.ts';\n\nfunction need(count: number): number {\n  return count + 1;\n}\n\nexport function counted(text: string): number {\n  let count: number | undefined;\n  count = countWords(text);\n  return need(count);\n}\n",
    );
    fs.writeFileSync(path.join(user.dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, allowImportingTsExtensions: true, module: 'nodenext', target: 'es2022', skipLibCheck: true, types: [] }, include: ['src'] }));
    const manifest = JSON.parse(fs.readFileSync(path.join(user.dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    manifest.scripts.test = `tsc -p . && ${manifest.scripts.test}`;
    fs.writeFileSync(path.join(user.dir, 'package.json'), JSON.stringify(manifest));
    const init = await user.run(['--json', 'init', 'src/words.ts', '--function', 'countWords', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput>(init);
    assert.equal(made.check?.correct, true, init.stdout);
    // A candidate right at run time whose types are wrong fails the type check, as the user's
    // own `npm test` would once it is applied (helper-27's B1: it scored as the original), also
    // with a comment that names a path outside the project (helper-33: it emptied the copy).
    const program = fs.readFileSync(path.join(made.dir, 'words.ts'), 'utf8');
    fs.writeFileSync(path.join(user.dir, 'mistyped.ts'), program.replace('let count = 0;', '// counted as the words from "/usr/share/doc"\n  let count = 0;\n  const label: number = "words";\n  void label;'));
    const verdict = parseJson<EvalOutput>(await user.run(['--json', 'eval', made.dir, '--quick', '--program', path.join(user.dir, 'mistyped.ts')]));
    assert.equal(verdict.correct, false, JSON.stringify(verdict));
    // A parameter made required is right at run time for every call the tests make, and breaks
    // the callers' type check (use.ts): the stand-in has the candidate's signature (helper-29's B2).
    fs.writeFileSync(path.join(user.dir, 'required.ts'), program.replace('minLength: number = 1): number {', 'minLength: number): number {\n  minLength = minLength ?? 1;'));
    const required = parseJson<EvalOutput>(await user.run(['--json', 'eval', made.dir, '--quick', '--program', path.join(user.dir, 'required.ts')]));
    assert.equal(required.correct, false, JSON.stringify(required));
  });

  it('a TypeScript package whose tests run its build (tsc of src/ to dist/, as tshy does): the original beside the stand-in is built too, and imported as NodeNext resolves it', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'tsPackage'), user.dir, { recursive: true });
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(user.dir, 'node_modules')); // its typescript
    fs.rmSync(path.join(user.dir, 'test', 'words.test.ts'));
    fs.writeFileSync(
      path.join(user.dir, 'test', 'words.test.js'),
      "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { countWords, WordError } from '../dist/words.js';\ntest('counts', () => {\n  assert.equal(countWords('a bb ccc', 2), 2);\n  assert.throws(() => countWords('x', 0), WordError);\n});\n",
    );
    // tsc's `include` globs skip dot files: an original named .peagen-original-words.ts was never built.
    fs.writeFileSync(path.join(user.dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', outDir: 'dist', rootDir: 'src', skipLibCheck: true, types: [] }, include: ['src'] }));
    const manifest = JSON.parse(fs.readFileSync(path.join(user.dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    manifest.scripts.test = 'tsc -p . && node --test test/*.test.js';
    fs.writeFileSync(path.join(user.dir, 'package.json'), JSON.stringify(manifest));
    const init = await user.run(['--json', 'init', 'src/words.ts', '--function', 'countWords', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    assert.equal(parseJson<InitOutput>(init).check?.correct, true, init.stdout);
  });

  it('a typed array the function changes in place comes back changed to the tests, so the seed passes them all and a candidate that stops changing it fails them', async () => {
    user = new EvolveProject();
    fs.writeFileSync(path.join(user.dir, 'package.json'), JSON.stringify({ name: 'scale', private: true, scripts: { test: 'node --test' } }));
    const scale = 'function scale(values, k) {\n  for (let i = 0; i < values.length; i++) values[i] *= k;\n  return values.length;\n}\nmodule.exports = { scale };\n';
    fs.writeFileSync(path.join(user.dir, 'scale.js'), scale);
    fs.writeFileSync(
      path.join(user.dir, 'scale.test.js'),
      "const test = require('node:test');\nconst assert = require('node:assert/strict');\nconst { scale } = require('./scale.js');\n" +
        "test('count', () => assert.equal(scale(new Float64Array([1, 2]), 3), 2));\n" +
        "test('in place', () => { const a = new Float64Array([1, 2, 3]); scale(a, 2); assert.deepEqual(Array.from(a), [2, 4, 6]); });\n" +
        "test('in place u8', () => { const a = new Uint8Array([1, 2, 200]); scale(a, 2); assert.deepEqual(Array.from(a), [2, 4, 144]); });\n",
    );
    const init = await user.run(['--json', 'init', 'scale.js', '--function', 'scale', '--tests', 'npm test', '--objective', 'tests']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput>(init);
    // Copying the change back deleted the typed array's indices, which throws (helper-29's B4):
    // the seed failed both in-place tests, and a candidate that changed nothing scored above it.
    const seed = parseJson<EvalOutput>(await user.run(['--json', 'eval', made.dir, '--quick']));
    assert.deepEqual([seed.metrics.tests_passed, seed.metrics.tests_total, seed.metrics.process_boundary], [3, 3, 1], JSON.stringify(seed));
    fs.writeFileSync(path.join(user.dir, 'unchanged.js'), scale.replace('values[i] *= k', 'void k'));
    const unchanged = parseJson<EvalOutput>(await user.run(['--json', 'eval', made.dir, '--quick', '--program', path.join(user.dir, 'unchanged.js')]));
    assert.equal(unchanged.metrics.tests_passed, 1, JSON.stringify(unchanged));
  });

  it('a function that takes a function (timeago.js\' formatDiff(diff, localeFunc)): drawn inputs cannot supply one, and init says so and what to do, which works', async () => {
    user = new EvolveProject();
    fs.writeFileSync(path.join(user.dir, 'package.json'), JSON.stringify({ name: 'apply', private: true, type: 'module', scripts: { test: 'node --test' } }));
    fs.writeFileSync(path.join(user.dir, 'lib.js'), 'export function applyAll(transform, items) {\n  const out = [];\n  for (const item of items) out.push(transform(item));\n  return out;\n}\n');
    fs.writeFileSync(
      path.join(user.dir, 'lib.test.js'),
      "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { applyAll } from './lib.js';\ntest('doubles', () => assert.deepEqual(applyAll((x) => x * 2, [1, 2]), [2, 4]));\n",
    );
    const speed = await user.run(['--json', 'init', 'lib.js', '--function', 'applyAll', '--tests', 'npm test']);
    assert.notEqual(speed.code, 0);
    const summary = parseJson<InitOutput>(speed).check?.summary ?? '';
    assert.match(summary, /transform is not a function\).*edit sampleArgs\(\) in peagen_evaluate\.js .*or init with --objective tests/, summary);
    // As advised, in the same place: init replaces what it left NOT READY, never a ready example.
    const tests = await user.run(['--json', 'init', 'lib.js', '--function', 'applyAll', '--tests', 'npm test', '--objective', 'tests']);
    assert.equal(tests.code, 0, tests.stdout + tests.stderr);
    assert.equal(parseJson<InitOutput>(tests).check?.correct, true, tests.stdout);
    const again = await user.run(['--json', 'init', 'lib.js', '--function', 'applyAll', '--tests', 'npm test']);
    assert.match(again.stdout + again.stderr, /already holds files/);
  });

  it('TypeScript as a formatter leaves it, a relative import, a callback from the tests, a linter in npm test: the linter is left out and said, the seed evaluates, the callback runs in the tests', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'tsChain'), user.dir, { recursive: true });
    fs.mkdirSync(path.join(user.dir, 'node_modules', '.bin'), { recursive: true });
    fs.copyFileSync(path.join(user.dir, 'bin', 'peagen-fixture-lint'), path.join(user.dir, 'node_modules', '.bin', 'peagen-fixture-lint'));
    fs.chmodSync(path.join(user.dir, 'node_modules', '.bin', 'peagen-fixture-lint'), 0o755);
    const init = await user.run(['--json', 'init', 'src/score.ts', '--function', 'score', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput>(init);
    assert.deepEqual(made.testCommand?.leftOut, ['npm run lint'], 'the linter, which would refuse the stand-in, is left out');
    assert.match(made.testCommand?.command ?? '', /node --test test\/score\.test\.ts$/);
    assert.equal(made.inputs?.from, 'tests', `the calls of an exported const arrow are captured: ${made.inputs?.why}`);
    assert.equal(made.check?.correct, true, made.check?.summary);
    const program = fs.readFileSync(path.join(made.dir, 'score.ts'), 'utf8');
    // A candidate that ignores the tests' callback fails the test that passes one (it runs in the tests' process).
    fs.writeFileSync(path.join(user.dir, 'no-bonus.ts'), program.replace('+ bonus(letter)', ''));
    const verdict = parseJson<EvalOutput & { errorText?: string }>(await user.run(['--json', 'eval', made.dir, '--quick', '--program', path.join(user.dir, 'no-bonus.ts')]));
    assert.equal(verdict.correct, false);
    assert.match(`${verdict.failure?.message ?? ''}`, /bonus is called/);
  });

  it('a member of an exported object (`export default { slug(text) {…} }`): its calls are captured, and with the tests alone only it is forwarded', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'jsObject'), user.dir, { recursive: true });
    const speed = await user.run(['--json', 'init', 'text.js', '--function', 'slug', '--tests', 'npm test']);
    assert.equal(speed.code, 0, speed.stdout + speed.stderr);
    const made = parseJson<InitOutput>(speed);
    assert.equal(made.inputs?.from, 'tests', `the member's calls are captured: ${made.inputs?.why}`);
    assert.equal(made.check?.correct, true, made.check?.summary);
    // A block that closes the object: the export answers only the tests' inputs, and a correct
    // top-level slug() beside it would have been judged in its place. The export is judged.
    const seed = fs.readFileSync(path.join(made.dir, 'text.js'), 'utf8');
    const start = seed.indexOf('  slug(text) {');
    const end = seed.indexOf('  count: (text) => text.length,');
    const beside =
      "  slug(text) { return { 'Hello  World': 'hello-world', 'A b! C': 'a-b-c' }[text] ?? ''; },\n  count: (text) => text.length,\n};\n" +
      "function slug(text) { return text.toLowerCase().split(/\\s+/).map((w) => w.replace(/[^a-z0-9]/g, '')).filter((w) => w !== '').join('-'); }\nconst rest = {\n";
    fs.writeFileSync(path.join(user.dir, 'beside.js'), seed.slice(0, start) + beside + seed.slice(end));
    const judged = parseJson<EvalOutput>(await user.run(['--json', 'eval', made.dir, '--program', path.join(user.dir, 'beside.js')]));
    assert.equal(judged.correct, false, `the exported slug() is judged, not a binding beside it: ${JSON.stringify(judged.metrics)}`);
    const tests = await user.run(['--json', 'init', 'text.js', '--function', 'slug', '--tests', 'npm test', '--objective', 'tests', '--out', path.join(user.dir, 'by-tests')]);
    assert.equal(tests.code, 0, tests.stdout + tests.stderr);
    const byTests = parseJson<InitOutput>(tests);
    const program = fs.readFileSync(path.join(byTests.dir, 'text.js'), 'utf8');
    // The candidate also breaks count(), a member outside its block: the original's count() is judged.
    fs.writeFileSync(path.join(user.dir, 'empty.js'), program.replace('return words.join(SEPARATOR);', "return '';").replace('(text) => text.length', '() => 0'));
    const verdict = parseJson<EvalOutput>(await user.run(['--json', 'eval', byTests.dir, '--program', path.join(user.dir, 'empty.js')]));
    assert.deepEqual([verdict.metrics.tests_passed, verdict.metrics.tests_total, verdict.metrics.process_boundary], [1, 3, 1], JSON.stringify(verdict.metrics));
  });

  it('a UMD module (the function inside a wrapper, exported as the module) with a linter and a pipe in npm test: its calls are captured, the linter is left out, the seed evaluates', async () => {
    // As mourner/simplify-js is written and tested ("jshint simplify.js test/test.js && node test/test.js | faucet").
    // Quadratic, so that a timed input is a few thousand numbers: a plain sum was timed on lists
    // of 1.6 million, and a loaded CI machine ran its check past the deadline.
    user = new EvolveProject();
    fs.writeFileSync(
      path.join(user.dir, 'total.js'),
      "(function () { 'use strict';\n\nfunction total(values) {\n    var sum = 0;\n    for (var i = 0; i < values.length; i++) {\n        for (var j = 0; j < values.length; j++) if (i === j) sum += values[i];\n    }\n    return sum;\n}\n\n" +
        "if (typeof module !== 'undefined') {\n    module.exports = total;\n    module.exports.default = total;\n} else self.total = total;\n\n})();\n",
    );
    fs.writeFileSync(path.join(user.dir, 'test.js'), "const assert = require('assert');\nconst total = require('./total.js');\nassert.equal(total([1, 2, 3]), 6);\nassert.equal(total([]), 0);\nassert.equal(total([5, -5, 10]), 10);\nconsole.log('ok');\n");
    fs.writeFileSync(path.join(user.dir, 'package.json'), JSON.stringify({ name: 'total', version: '1.0.0', scripts: { test: 'jshint total.js test.js && node test.js | cat' } }));
    const init = await user.run(['--json', 'init', 'total.js', '--function', 'total', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput>(init);
    assert.deepEqual(made.testCommand?.leftOut, ['jshint total.js test.js'], init.stdout);
    assert.equal(made.inputs?.from, 'tests', `its calls are captured: ${made.inputs?.why}`);
    assert.equal(made.inputs?.calls, 3);
    assert.equal(made.check?.correct, true, made.check?.summary);
  });

  it('an ES module package the original imports, with a default and named exports of its own: the seed evaluates', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'jsObject'), user.dir, { recursive: true });
    const pkg = path.join(user.dir, 'node_modules', 'tiny-join');
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'tiny-join', version: '1.0.0', type: 'module', exports: './index.js' }));
    fs.writeFileSync(path.join(pkg, 'index.js'), "export const SEPARATOR = '-';\nexport default function join(words) {\n  return words.join(SEPARATOR);\n}\n");
    const text = fs.readFileSync(path.join(user.dir, 'text.js'), 'utf8');
    fs.writeFileSync(path.join(user.dir, 'text.js'), `import join, { SEPARATOR as SEP } from 'tiny-join';\n${text.replace("const SEPARATOR = '-';", '').replace('words.join(SEPARATOR)', 'join(words) + (SEP === "-" ? "" : "!")')}`);
    const init = await user.run(['--json', 'init', 'text.js', '--function', 'slug', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    assert.equal(parseJson<InitOutput>(init).check?.correct, true, init.stdout);
  });

  it('a Python package that shares names by a star import of its own module, and raises an error class whose constructor makes its message: the seed evaluates behind the boundary', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'pyStar'), user.dir, { recursive: true });
    const init = await user.run(['--json', 'init', 'textkit/core.py', '--function', 'words', '--tests', 'python3 -m unittest']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    assert.equal(parseJson<InitOutput>(init).check?.correct, true, init.stdout);
    const byTests = await user.run(['--json', 'init', 'textkit/core.py', '--function', 'words', '--tests', 'python3 -m unittest', '--objective', 'tests', '--out', path.join(user.dir, 'by-tests')]);
    const seed = parseJson<EvalOutput>(await user.run(['--json', 'eval', parseJson<InitOutput>(byTests).dir]));
    assert.deepEqual([seed.metrics.tests_passed, seed.metrics.tests_total, seed.metrics.process_boundary], [2, 2, 1], JSON.stringify(seed.metrics));
  });

  it('mocha\'s own outcomes are counted (--objective tests): every test of the seed, and by name the one a candidate breaks', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'jsPackage'), user.dir, { recursive: true });
    installNodeModules(user.dir);
    // The real mocha, as npm would have installed it: copied, with what it requires, from this repository's own.
    installFromRepo('mocha', path.join(user.dir, 'node_modules'));
    fs.writeFileSync(
      path.join(user.dir, 'test', 'list.spec.js'),
      "'use strict';\nconst assert = require('node:assert/strict');\nconst parseList = require('..');\n\ndescribe('parseList', () => {\n  it('pads the items', () => assert.deepEqual([...parseList('a,bb')], ['..a', '.bb']));\n  it('says its kind', () => assert.equal(parseList('a,b').kind, 'list'));\n  it('refuses an empty item', () => assert.throws(() => parseList('a,,b'), parseList.ListError));\n});\n",
    );
    const tests = 'node node_modules/mocha/bin/mocha.js test/list.spec.js';
    const init = await user.run(['--json', 'init', 'index.js', '--function', 'parseList', '--tests', tests, '--objective', 'tests']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput>(init);
    const evaluate = async (program?: string): Promise<EvalOutput & { errorText?: string }> =>
      parseJson(await user.run(['--json', 'eval', made.dir, ...(program ? ['--program', program] : [])]));
    const seed = await evaluate();
    assert.deepEqual([seed.metrics.tests_passed, seed.metrics.tests_total, seed.metrics.tests_report], [3, 3, 1], JSON.stringify(seed.metrics));
    const program = fs.readFileSync(path.join(made.dir, 'index.js'), 'utf8');
    fs.writeFileSync(path.join(user.dir, 'no-kind.js'), program.replace(/items\.kind = .*\n/, ''));
    const broken = await evaluate(path.join(user.dir, 'no-kind.js'));
    assert.deepEqual([broken.metrics.tests_passed, broken.metrics.tests_total], [2, 3]);
    assert.match(broken.errorText ?? '', /FAIL: parseList says its kind/);
  });

  it('a project whose tests need what the sandbox does not have: init says NOT READY, names it, and exits non-zero', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'jsPackage'), user.dir, { recursive: true });
    installNodeModules(user.dir);
    // The test runner works here (through a package outside the project), not in the sandbox.
    const outside = fs.mkdtempSync(path.join(path.dirname(user.dir), 'outside-'));
    try {
      fs.mkdirSync(path.join(outside, 'tiny-pad'));
      fs.renameSync(path.join(user.dir, 'node_modules', 'tiny-pad', 'index.js'), path.join(outside, 'tiny-pad', 'index.js'));
      fs.rmSync(path.join(user.dir, 'node_modules', 'tiny-pad'), { recursive: true });
      const init = await user.run(['init', 'index.js', '--function', 'parseList', '--tests', 'npm test'], { NODE_PATH: outside });
      assert.notEqual(init.code, 0, init.stdout);
      assert.match(init.stdout, /NOT READY: your code as it is fails its own evaluation/);
      assert.match(init.stdout, /tiny-pad is missing where the tests run/);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a Python package, start to end: evolve run with the offline mutator, apply, and the project\'s own tests pass', async () => {
    user = new EvolveProject();
    fs.cpSync(path.join(FIXTURES, 'pyPackage'), user.dir, { recursive: true });
    const tests = 'python3 -m unittest discover -s src';
    const init = await user.run(['--json', 'init', 'src/numerals/core.py', '--function', 'to_numeral', '--tests', tests, '--no-check']);
    assert.equal(init.code, 0, init.stderr);
    const made = parseJson<InitOutput>(init);
    assert.equal(made.check, undefined, '--no-check skips the check');
    const run = await user.run(['--json', 'evolve', 'run', made.dir, '--sync', '--mutator', 'offline', '--evaluations', '12', '--quick', '--seed', '3', '--project', user.dir]);
    assert.equal(run.code, 0, run.stderr);
    const apply = await user.run(['evolve', 'apply', '--project', user.dir]);
    assert.ok(apply.code === 0 || /no measurable improvement|nothing to accept/.test(apply.stdout + apply.stderr), apply.stdout + apply.stderr);
    await promisify(execFile)('/bin/sh', ['-c', tests], { cwd: user.dir }); // rejects when a test fails
  });
});
