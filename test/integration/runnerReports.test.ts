/**
 * Jest's, Vitest's (3 and 4) and tape's own outcomes, counted test by test (--objective tests), on a project
 * whose runner npm installed (the real jest, vitest and tape, from scripts/provision/testRunners.mjs):
 * the seed's tests are each counted, and a candidate that breaks one is failed by that test's
 * name. Without the reporters, such a run counts as one test (the command's exit status).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EvolveProject, parseJson } from '../fixtures/evolveFixtures';
import { REPO, tempDir } from '../fixtures/paths';

interface EvalOutput {
  correct: boolean;
  metrics: Record<string, number>;
  errorText?: string;
}

const FIXTURE = path.join(REPO, 'test', 'fixtures', 'initProjects', 'runners');

const TESTS = (header: string): string =>
  `${header}\ndescribe('titleCase', () => {\n` +
  "  test('one word', () => assert.equal(titleCase('hello'), 'Hello'));\n" +
  "  test('two words', () => assert.equal(titleCase('hello world'), 'Hello World'));\n" +
  "  test('keeps small words', () => assert.equal(titleCase('war of the worlds'), 'War of the Worlds'));\n" +
  "  test.skip('one day', () => assert.equal(titleCase(''), 'x'));\n" +
  '});\n';

const RUNNERS = [
  {
    name: 'jest',
    script: 'jest',
    file: 'test/words.test.js',
    tests: TESTS("'use strict';\nconst assert = require('node:assert/strict');\nconst { titleCase } = require('../words');"),
  },
  {
    name: 'vitest',
    script: 'vitest run',
    file: 'test/words.test.mjs',
    tests: TESTS("import assert from 'node:assert/strict';\nimport { describe, test } from 'vitest';\nimport words from '../words.js';\nconst { titleCase } = words;"),
  },
  {
    name: 'vitest 4',
    script: 'vitest run',
    file: 'test/words.test.mjs',
    tests: TESTS("import assert from 'node:assert/strict';\nimport { describe, test } from 'vitest';\nimport words from '../words.js';\nconst { titleCase } = words;"),
    next: true,
  },
  {
    name: 'tape',
    script: "tape 'test/*.js'",
    file: 'test/words.js',
    tests:
      "'use strict';\nconst test = require('tape');\nconst { titleCase } = require('../words');\n" +
      "test('one word', (t) => { t.equal(titleCase('hello'), 'Hello'); t.end(); });\n" +
      "test('two words', (t) => { t.equal(titleCase('hello world'), 'Hello World'); t.end(); });\n" +
      "test('keeps small words', (t) => { t.equal(titleCase('war of the worlds'), 'War of the Worlds'); t.equal(titleCase('the end'), 'The End'); t.end(); });\n" +
      "test.skip('one day', (t) => { t.equal(titleCase(''), 'x'); t.end(); });\n",
  },
];

describe('jest, vitest and tape: each test counted by the runner itself (real CLI)', function () {
  this.timeout(300_000);
  let modules: string;
  let nextModules: string; // Vitest 4's
  let user: EvolveProject | undefined;
  before(() => {
    const provision = (...args: string[]): string => execFileSync(process.execPath, [path.join(REPO, 'scripts', 'provision', 'testRunners.mjs'), ...args], { encoding: 'utf8' }).trim();
    modules = provision();
    nextModules = provision('--next');
  });
  afterEach(() => user?.cleanup());

  /**
   * The fixture as a project of `runner` whose test file is `tests`, made an example of with
   * `--objective tests`: its evaluation (the seed, or a candidate), and a candidate that
   * capitalises every word (the original keeps small words lower-case).
   */
  async function testsObjective(runner: (typeof RUNNERS)[number], tests: string): Promise<{ evaluate: (program?: string) => Promise<EvalOutput>; everyWord: string }> {
    const project = new EvolveProject();
    user = project;
    fs.cpSync(FIXTURE, project.dir, { recursive: true });
    fs.cpSync('next' in runner ? nextModules : modules, path.join(project.dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: `fixture-${runner.name.replace(' ', '-')}`, version: '1.0.0', private: true, scripts: { test: runner.script } }));
    fs.mkdirSync(path.join(project.dir, 'test'));
    fs.writeFileSync(path.join(project.dir, runner.file), tests);
    // --no-check: each test evaluates the seed itself, with the evaluator's full report.
    const init = await project.run(['--json', 'init', 'words.js', '--function', 'titleCase', '--tests', 'npm test', '--objective', 'tests', '--no-check']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<{ dir: string }>(init);
    const everyWord = path.join(project.dir, 'no-small.js');
    fs.writeFileSync(everyWord, fs.readFileSync(path.join(made.dir, 'words.js'), 'utf8').replace('i > 0 && SMALL.has(word)', 'false'));
    return { evaluate: async (program) => parseJson(await project.run(['--json', 'eval', made.dir, ...(program ? ['--program', program] : [])])), everyWord };
  }

  /** The runner's test file up to its describe block (its imports). */
  const headerOf = (runner: (typeof RUNNERS)[number]): string => runner.tests.slice(0, runner.tests.indexOf("\ndescribe('titleCase'"));

  it('vitest: a member of an ES module\'s default export (its namespace has getters under vitest) is judged behind the boundary', async () => {
    const project = new EvolveProject();
    user = project;
    fs.cpSync(modules, path.join(project.dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'fixture-vitest-esm', version: '1.0.0', private: true, type: 'module', scripts: { test: 'vitest run' } }));
    fs.writeFileSync(
      path.join(project.dir, 'words.js'),
      "const SMALL = new Set(['a', 'an', 'of', 'the']);\n\nexport default {\n  titleCase(text) {\n    const words = text.split(' ');\n" +
        "    return words.map((w, i) => (i > 0 && SMALL.has(w.toLowerCase()) ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())).join(' ');\n  },\n};\n",
    );
    fs.mkdirSync(path.join(project.dir, 'test'));
    fs.writeFileSync(path.join(project.dir, 'test', 'words.test.mjs'), TESTS("import assert from 'node:assert/strict';\nimport { describe, test } from 'vitest';\nimport words from '../words.js';\nconst titleCase = (text) => words.titleCase(text);"));
    for (const objective of ['tests', 'speed']) {
      const init = await project.run(['--json', 'init', 'words.js', '--function', 'titleCase', '--tests', 'npm test', '--objective', objective, '--out', path.join(project.dir, objective), '--no-check']);
      assert.equal(init.code, 0, init.stdout + init.stderr);
      const seed = parseJson<EvalOutput>(await project.run(['--json', 'eval', path.join(project.dir, objective)]));
      assert.equal(seed.correct, true, `${objective}: ${JSON.stringify(seed)}`);
      if (objective === 'tests') assert.deepEqual([seed.metrics.tests_passed, seed.metrics.tests_total, seed.metrics.process_boundary], [3, 3, 1], JSON.stringify(seed.metrics));
    }
  });

  it("vitest's in-source tests (includeSource) in TypeScript: the candidate's copy kept for the type check never runs in the tests' process", async () => {
    const project = new EvolveProject();
    user = project;
    fs.cpSync(modules, path.join(project.dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'fixture-vitest-in-source', version: '1.0.0', private: true, type: 'module', scripts: { test: 'vitest run' } }));
    fs.writeFileSync(path.join(project.dir, 'vitest.config.mjs'), "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { includeSource: ['src/**/*.ts'] } });\n");
    fs.mkdirSync(path.join(project.dir, 'src'));
    const tally =
      'export function total(xs: number[]): number {\n  let s = 0;\n  for (const x of xs) s += x;\n  return s;\n}\n' +
      "if (import.meta.vitest) {\n  const { test, expect } = import.meta.vitest;\n  test('in-source', () => expect(total([2, 2])).toBe(4));\n}\n";
    fs.writeFileSync(path.join(project.dir, 'src', 'tally.ts'), tally);
    fs.mkdirSync(path.join(project.dir, 'test'));
    fs.writeFileSync(
      path.join(project.dir, 'test', 'tally.test.ts'),
      "import { test, expect } from 'vitest';\nimport { total } from '../src/tally';\n" +
        "test('small', () => expect(total([1, 2, 3])).toBe(6));\ntest('neg', () => expect(total([5, -7, 2, 10])).toBe(10));\n",
    );
    const init = await project.run(['--json', 'init', 'src/tally.ts', '--function', 'total', '--tests', 'npm test', '--objective', 'tests', '--no-check']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<{ dir: string }>(init);
    const evaluate = async (program?: string): Promise<EvalOutput> => parseJson(await project.run(['--json', 'eval', made.dir, ...(program ? ['--program', program] : [])]));
    const seed = await evaluate();
    assert.deepEqual([seed.metrics.tests_passed, seed.metrics.tests_total, seed.metrics.process_boundary], [3, 3, 1], JSON.stringify(seed.metrics));
    // helper-29's B3: vitest ran the copy as a test file, beside the tests, and its in-source
    // block made the stand-in the original itself: a candidate wrong for negatives passed all.
    const cheat = path.join(project.dir, 'cheat.ts');
    fs.writeFileSync(
      cheat,
      tally.replace('for (const x of xs) s += x;', 'for (const x of xs) {\n    if (x < 0) return 0;\n    s += x;\n  }') +
        "if (import.meta.vitest && import.meta.url.includes('peagen')) process.getBuiltinModule('fs').writeFileSync('src/tally.ts', 'export * from \"./peagen-original-tally\";\\n');\n",
    );
    const judged = await evaluate(cheat);
    assert.equal(judged.metrics.tests_passed, 2, JSON.stringify(judged));
  });

  it('jest with a coverage threshold of 100%: Peagen\'s runs switch coverage off, so the traced copy records the tests\' calls', async () => {
    const project = new EvolveProject();
    user = project;
    fs.cpSync(FIXTURE, project.dir, { recursive: true });
    fs.cpSync(modules, path.join(project.dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    const jest = { collectCoverage: true, coverageThreshold: { global: { lines: 100, branches: 100 } } };
    fs.writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'fixture-jest-coverage', version: '1.0.0', private: true, scripts: { test: 'jest' }, jest }));
    fs.mkdirSync(path.join(project.dir, 'test'));
    fs.writeFileSync(path.join(project.dir, 'test', 'words.test.js'), RUNNERS[0]!.tests);
    const init = await project.run(['--json', 'init', 'words.js', '--function', 'titleCase', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<{ inputs?: { from: string; why?: string }; check?: { correct: boolean; summary: string } }>(init);
    assert.equal(made.inputs?.from, 'tests', made.inputs?.why);
    assert.equal(made.check?.correct, true, made.check?.summary);
  });

  for (const runner of RUNNERS) {
    it(`${runner.name}: the seed's 3 tests and its skipped one are told apart; a candidate that breaks one fails by its name`, async () => {
      const { evaluate, everyWord } = await testsObjective(runner, runner.tests);
      const seed = await evaluate();
      assert.deepEqual([seed.metrics.tests_passed, seed.metrics.tests_total, seed.metrics.tests_report], [3, 3, 1], JSON.stringify(seed.metrics));
      // Every word capitalised: only the test of small words fails.
      const broken = await evaluate(everyWord);
      assert.deepEqual([broken.metrics.tests_passed, broken.metrics.tests_total], [2, 3], JSON.stringify(broken.metrics));
      assert.match(broken.errorText ?? '', /keeps small words/);
    });
  }

  for (const runner of RUNNERS.filter((each) => each.name !== 'tape')) {
    it(`${runner.name}: an afterAll hook that fails while every test passes fails the candidate`, async () => {
      // The tests record answers and a hook checks them: a wrong answer fails the hook only.
      const hooks = runner.name === 'jest' ? '' : "import { afterAll } from 'vitest';\n";
      const { evaluate, everyWord } = await testsObjective(
        runner,
        `${headerOf(runner)}\n${hooks}const got = [];\ndescribe('titleCase', () => {\n` +
          "  test('one word', () => { got.push(titleCase('war of the worlds')); assert.equal(titleCase('hello'), 'Hello'); });\n" +
          "  afterAll(() => assert.deepEqual(got, ['War of the Worlds']));\n});\n",
      );
      const seed = await evaluate();
      assert.deepEqual([seed.metrics.tests_passed, seed.metrics.tests_total], [1, 1], JSON.stringify(seed.metrics));
      const broken = await evaluate(everyWord);
      // The hook's failure takes the one pass away (it is not a test of the original's to add).
      assert.deepEqual([broken.metrics.tests_passed, broken.metrics.tests_total], [0, 1], JSON.stringify(broken.metrics));
      assert.match(broken.errorText ?? '', /the file failed outside its tests/);
    });
  }

  for (const runner of RUNNERS.filter((each) => each.name !== 'tape')) {
    it(`${runner.name}: an assertion that fails after its test ended fails the candidate, even where the original fails a test`, async () => {
      // A known bug fails on the original, so the command exits 1 either way (helper-27's B2);
      // another one fails on the candidate too, so not every test passes there (atk7's B1).
      // The late assertion runs after the last test, where no test is running to pin it on.
      const { evaluate, everyWord } = await testsObjective(
        runner,
        `${headerOf(runner)}\ndescribe('titleCase', () => {\n` +
          "  test('one word', () => { assert.equal(titleCase('hello'), 'Hello'); });\n" +
          "  test('every word capitalised (a known bug)', () => assert.equal(titleCase('war of the worlds'), 'War Of The Worlds'));\n" +
          "  test('shouts (a known bug)', () => assert.equal(titleCase('hello'), 'HELLO'));\n" +
          "  test('checks later', () => { setTimeout(() => assert.equal(titleCase('war of the worlds'), 'War of the Worlds'), 0); });\n});\n",
      );
      const seed = await evaluate();
      // It "fixes" one known bug and breaks what the late assertion checks: no gain over the original.
      const broken = await evaluate(everyWord);
      assert.ok(broken.metrics.tests_passed! <= seed.metrics.tests_passed! && seed.metrics.tests_passed! < seed.metrics.tests_total!, `seed ${JSON.stringify(seed.metrics)}, broken ${JSON.stringify(broken.metrics)}`);
      assert.match(broken.errorText ?? '', /exited with status \d+, with every test passed|FAIL/);
    });
  }
});

describe("mocha's reporter (preloaded as Peagen's runs do)", function () {
  this.timeout(60_000);

  it('counts an assertion thrown after the run ended as a failed test of its own, also beside a failing test (atk7 B1)', () => {
    const dir = tempDir('mocha-late');
    const reports = path.join(dir, 'reports');
    fs.mkdirSync(reports);
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    fs.writeFileSync(
      path.join(dir, 'late.test.js'),
      "const assert = require('node:assert');\ndescribe('sum', () => {\n  it('adds', () => assert.equal(1 + 1, 2));\n" +
        "  it('a known bug', () => assert.equal(0.1 + 0.2, 0.3));\n  it('checks later', () => { setTimeout(() => assert.equal(1 + 1, 3), 50); });\n});\n",
    );
    try {
      execFileSync(process.execPath, [path.join(REPO, 'node_modules', 'mocha', 'bin', 'mocha.js'), 'late.test.js'], {
        cwd: dir,
        stdio: 'ignore',
        env: { ...process.env, PEAGEN_TEST_REPORT_DIR: reports, NODE_OPTIONS: `--require ${path.join(REPO, 'harness', 'js', 'peagen-mocha-report.js')}` },
      });
    } catch {
      // mocha exits 1: a test failed, and the late assertion crashed it after its summary
    }
    // The worst outcome of each test id, as Peagen reads them (test_report.read_reports).
    const worst = new Map<string, string>();
    for (const name of fs.readdirSync(reports)) {
      for (const line of fs.readFileSync(path.join(reports, name), 'utf8').trim().split('\n')) {
        const { id, outcome } = JSON.parse(line) as { id: string; outcome: string };
        if (worst.get(id) !== 'failed') worst.set(id, outcome);
      }
    }
    // Mocha pins the late assertion on the last test while its run is still ending, or nothing
    // does once it has ended (then the reporter counts it): either way, a failure besides the bug.
    const failed = [...worst].filter(([, outcome]) => outcome === 'failed').map(([id]) => id);
    assert.equal(failed.length, 2, JSON.stringify([...worst]));
    assert.ok(failed.includes('late.test.js::sum a known bug'));
  });
});
