/**
 * `peagen init` as a new user runs it: on a function of a small project with its own tests
 * (test/fixtures/initProjects/, Python unittest and JS node --test), through the real CLI.
 * The example it makes records the calls the tests make, `evolve run` with the offline
 * mutator improves the function (it deletes the needless work the fixture carries), and the
 * best program still passes the project's tests.
 */
import * as assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { EvolveProject, NO_CONFIRMATION, parseJson, type RunOutput } from '../fixtures/evolveFixtures';
import { REPO } from '../fixtures/paths';
import { ConfigSchema } from '../../daemon/config';
import { Engine } from '../../daemon/engine/Engine';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { createRegistry } from '../../daemon/handlers';
import { BwrapExecutor } from '../../daemon/sandbox/bwrap/BwrapExecutor';
import { initFunction, seedEvaluationOn } from '../../daemon/usecases/initFunction';

interface InitOutput {
  dir: string;
  name: string;
  objective: string;
  files: string[];
  inputs: { from: 'tests'; calls: number } | { from: 'signature'; why: string };
  command: string;
}

const PROJECTS = [
  { language: 'Python', fixture: 'python', file: 'stats.py', fn: 'moving_average', tests: 'python3 -m unittest', calls: 5 },
  { language: 'JavaScript', fixture: 'js', file: 'running.js', fn: 'runningMax', tests: 'node --test', calls: 3 },
];

for (const project of PROJECTS) {
  describe(`peagen init on a ${project.language} project with its own tests (real CLI)`, function () {
    this.timeout(240_000);
    let user: EvolveProject;

    beforeEach(() => {
      user = new EvolveProject();
      fs.cpSync(path.join(REPO, 'test', 'fixtures', 'initProjects', project.fixture), user.dir, { recursive: true });
    });
    afterEach(() => user.cleanup());

    it(`makes an example from ${project.fn}() and its tests' calls; evolve run with the offline mutator speeds it up, and the best passes the project's tests`, async () => {
      const init = await user.run(['--json', 'init', project.file, '--function', project.fn, '--tests', project.tests]);
      assert.equal(init.code, 0, init.stderr);
      const made = parseJson<InitOutput>(init);
      assert.equal(made.dir, path.join(user.dir, '.peagen', 'examples', made.name));
      assert.deepEqual(made.inputs, { from: 'tests', calls: project.calls }, 'every distinct call the tests made is recorded');
      assert.equal(made.command, `peagen evolve run ${path.join('.peagen', 'examples', made.name)}`);
      const program = fs.readFileSync(path.join(made.dir, project.file), 'utf8');
      assert.match(program, /EVOLVE-BLOCK-START[\s\S]*EVOLVE-BLOCK-END/);
      if (project.file.endsWith('.js')) {
        // The project's own `eslint .` (in its test script, as unjs/ufo's) reads .peagen/ too: Peagen's evaluator passes any rules.
        const lint = spawnSync(process.execPath, [path.join(REPO, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--no-config-lookup', '--rule', '{"no-unused-vars": "error", "no-var": "error", "eqeqeq": "error"}', 'peagen_evaluate.js'], { cwd: made.dir, encoding: 'utf8' });
        assert.equal(lint.status, 0, lint.stdout + lint.stderr);
      }

      // 20 evaluations: the deletions that help are a few of the block's dozen statements (the first
      // comes after 11-14 evaluations with this seed); it speeds the function up 10x or far more.
      const run = await user.run(['--json', 'evolve', 'run', made.dir, ...NO_CONFIRMATION, '--sync', '--mutator', 'offline', '--evaluations', '20', '--target', '8', '--quick', '--seed', '3', '--project', user.dir]);
      assert.equal(run.code, 0, run.stderr);
      const report = parseJson<RunOutput>(run);
      assert.ok(report.seed.objective !== null && report.seed.objective > 0, 'the seed is correct and timed');
      assert.ok(report.best && report.best.improvement !== null && report.best.improvement >= 3, `best ${report.best?.objective} vs seed ${report.seed.objective}`);

      // The best, put back in the project, passes the project's own tests.
      const best = path.join(report.runDir, 'best', project.file);
      fs.copyFileSync(best, path.join(user.dir, project.file));
      await promisify(execFile)('/bin/sh', ['-c', project.tests], { cwd: user.dir }); // rejects when a test fails
    });
  });
}

describe('peagen init --objective tests (real CLI)', function () {
  this.timeout(300_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
    fs.cpSync(path.join(REPO, 'test', 'fixtures', 'initProjects', 'python'), user.dir, { recursive: true });
  });
  afterEach(() => user.cleanup());

  it('counts the tests that pass, reads "tests passed 5/6", and evolve run reaches all of them', async () => {
    // A bug a deletion fixes: negative values are read as positive.
    const file = path.join(user.dir, 'stats.py');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('    for value in values:\n', '    for value in values:\n        value = abs(value)\n'));
    const init = await user.run(['--json', 'init', 'stats.py', '--function', 'moving_average', '--tests', 'python3 -m unittest', '--objective', 'tests']);
    assert.equal(init.code, 0, init.stderr);
    const made = parseJson<InitOutput>(init);
    assert.equal(made.objective, 'tests');

    const seed = await user.run(['eval', made.dir]);
    assert.equal(seed.code, 0, seed.stderr);
    assert.match(seed.stdout, /correct — tests passed 5\/6 \(tests passed 0\.83\d+, maximize\)/);
    assert.match(seed.stdout, /FAIL: test_window_of_one_is_the_values/, 'the failing test is named');

    // The offline mutator finds the deletion by chance: within 30 evaluations for 9 of seeds
    // 1-10 under search policy 8, within 60 for all of them on an idle machine (seed 3 is the
    // slow one). Which evaluation ends first steers the next plans, so a loaded machine takes
    // other paths: one CI run needed more than 60. The run stops at the target, so the larger
    // budget costs nothing when the deletion is found early.
    const run = await user.run(['--json', 'evolve', 'run', made.dir, ...NO_CONFIRMATION, '--sync', '--mutator', 'offline', '--evaluations', '200', '--target', '1', '--quick', '--seed', '3', '--project', user.dir]);
    assert.equal(run.code, 0, run.stderr);
    const report = parseJson<RunOutput & { seed: { tests?: string }; best: { tests?: string } | null }>(run);
    assert.equal(report.seed.tests, 'tests passed 5/6');
    assert.equal(report.best?.tests, 'tests passed 6/6', `stopped by ${report.stopReason}`);
    assert.match(fs.readFileSync(path.join(report.runDir, 'report.md'), 'utf8'), /- Best: tests passed 1\.\d+ \(tests passed 6\/6\)/);
  });

  it('on a JavaScript project: reads "tests passed 3/4" from node --test\'s report, and evolve run reaches all of them', async () => {
    const js = new EvolveProject();
    try {
      fs.cpSync(path.join(REPO, 'test', 'fixtures', 'initProjects', 'js'), js.dir, { recursive: true });
      // A bug a deletion fixes: negative values are read as positive.
      const file = path.join(js.dir, 'running.js');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('  let best = -Infinity;\n', '  let best = -Infinity;\n  values = values.map(Math.abs);\n'));
      const init = await js.run(['--json', 'init', 'running.js', '--function', 'runningMax', '--tests', 'node --test', '--objective', 'tests']);
      assert.equal(init.code, 0, init.stderr);
      const made = parseJson<InitOutput>(init);
      const seed = await js.run(['eval', made.dir]);
      assert.equal(seed.code, 0, seed.stderr);
      assert.match(seed.stdout, /correct — tests passed 3\/4/);
      assert.match(seed.stdout, /FAIL: runningMax with negative values/, 'the failing test is named');

      const run = await js.run(['--json', 'evolve', 'run', made.dir, ...NO_CONFIRMATION, '--sync', '--mutator', 'offline', '--evaluations', '30', '--target', '1', '--quick', '--seed', '3', '--project', js.dir]);
      assert.equal(run.code, 0, run.stderr);
      const report = parseJson<RunOutput & { seed: { tests?: string }; best: { tests?: string } | null }>(run);
      assert.equal(report.seed.tests, 'tests passed 3/4');
      assert.equal(report.best?.tests, 'tests passed 4/4', `stopped by ${report.stopReason}`);
    } finally {
      js.cleanup();
    }
  });

  it('counts what the runner printed: a candidate that prints a passing summary of its own after it (at shutdown) earns nothing by it', async () => {
    const init = await user.run(['--json', 'init', 'stats.py', '--function', 'moving_average', '--tests', 'python3 -m unittest', '--objective', 'tests']);
    assert.equal(init.code, 0, init.stderr);
    const made = parseJson<InitOutput>(init);
    // No import needed: an object's __del__ runs as the interpreter exits, after unittest's own
    // "FAILED (failures=…)" summary; its forged "OK" summary comes last in the output.
    const forger = [
      'class _Ghost:',
      '    def __del__(self):',
      '        print("\\n" + "-" * 70 + "\\nRan 6 tests in 0.001s\\n\\nOK")',
      '',
      '',
      '_ghost = _Ghost()',
      '',
      '',
      'def moving_average(values, window):',
      '    return []',
    ].join('\n');
    const program = fs.readFileSync(path.join(made.dir, 'stats.py'), 'utf8');
    const candidate = path.join(user.dir, 'forger.py');
    fs.writeFileSync(candidate, program.replace(/def moving_average\(values, window\):[\s\S]*?(?=\n# EVOLVE-BLOCK-END)/, forger));
    assert.notEqual(fs.readFileSync(candidate, 'utf8'), program, 'the forger replaced the function');
    const forged = await user.run(['eval', made.dir, '--program', candidate]);
    const passed = /tests passed (\d+)\/6/.exec(forged.stdout + forged.stderr);
    assert.ok(passed, forged.stdout + forged.stderr);
    assert.ok(Number(passed[1]) <= 2, `the forged summary was counted: ${passed[0]}`);
  });
});

describe("peagen init: inputs from the tests' calls (real CLI)", function () {
  this.timeout(60_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
  });
  afterEach(() => user.cleanup());

  it('an unannotated parameter drawn from the signature gives degenerate inputs (refused); the calls the tests make give valid ones, with the answers recorded then', async () => {
    fs.writeFileSync(
      path.join(user.dir, 'pairs.py'),
      'def count_pairs(values, target):\n    return sum(1 for i in range(len(values)) for j in range(i + 1, len(values)) if values[i] + values[j] == target)\n',
    );
    fs.writeFileSync(
      path.join(user.dir, 'test_pairs.py'),
      'import unittest\n\nfrom pairs import count_pairs\n\n\nclass PairsTest(unittest.TestCase):\n    def test_pairs(self):\n        self.assertEqual(count_pairs([1, 2, 3, 4], 5), 2)\n        self.assertEqual(count_pairs([2, 2, 2], 4), 3)\n',
    );
    const seedVerdict = async (dir: string): Promise<{ correct: boolean; error?: string; metrics: Record<string, number> }> => {
      const { stdout } = await promisify(execFile)('python3', ['peagen_evaluate.py', 'pairs.py', '--quick'], {
        cwd: dir,
        env: { ...process.env, PYTHONPATH: '', PEAGEN_HARNESS_LIB: path.join(REPO, 'harness') },
      }).catch((error: { stdout: string }) => error); // an evaluator error exits 2 with its verdict
      return JSON.parse(stdout.trimEnd().split('\n').pop() ?? '') as { correct: boolean; error?: string; metrics: Record<string, number> };
    };

    const bySignature = parseJson<InitOutput>(await user.run(['--json', 'init', 'pairs.py', '--function', 'count_pairs', '--out', 'by-signature']));
    const refused = await seedVerdict(bySignature.dir);
    assert.equal(refused.correct, false);
    assert.match(refused.error ?? '', /the reference gives the same answer to every sample input/);

    const byTests = parseJson<InitOutput>(await user.run(['--json', 'init', 'pairs.py', '--function', 'count_pairs', '--tests', 'python3 -m unittest', '--out', 'by-tests']));
    assert.deepEqual(byTests.inputs, { from: 'tests', calls: 2 });
    const verdict = await seedVerdict(byTests.dir);
    assert.equal(verdict.correct, true, verdict.error);
    assert.equal(verdict.metrics.captured_inputs, 2);

    // The original's answers are recorded with the calls. A few the reference no longer gives are
    // state the tests had set (an activated language): the reference decides them. Most of them: an evaluator error.
    const inputsFile = path.join(byTests.dir, 'peagen_inputs.json');
    const recorded = JSON.parse(fs.readFileSync(inputsFile, 'utf8')) as { calls: unknown[][]; answers: ({ value: unknown } | null)[] };
    assert.deepEqual(recorded.answers, [{ value: 2 }, { value: 3 }]);
    fs.writeFileSync(inputsFile, JSON.stringify({ ...recorded, answers: [{ value: 2 }, { value: 4 }] }));
    const oneDiffers = await seedVerdict(byTests.dir);
    assert.equal(oneDiffers.correct, true, oneDiffers.error);
    assert.equal(oneDiffers.metrics.state_dependent_calls, 1);
    fs.writeFileSync(inputsFile, JSON.stringify({ ...recorded, answers: [{ value: 3 }, { value: 4 }] }));
    const changed = await seedVerdict(byTests.dir);
    assert.equal(changed.correct, false);
    assert.match(changed.error ?? '', /evaluator error: the reference answered 2 to the tests' call 1 of count_pairs, not 3 as when peagen init ran the tests/);
  });

  it('keeps integers beyond a double\'s exact range as they were (python-rsa\'s 77-digit numbers): the seed answers them as when the tests ran', async () => {
    fs.writeFileSync(path.join(user.dir, 'modular.py'), 'def inverse(x, n):\n    return pow(x, -1, n)\n');
    const [x, n] = ['123456789012345678901234567890123', '57896044618658097711785492504343953926634992332820282019728792003956564819949'];
    fs.writeFileSync(path.join(user.dir, 'test_modular.py'), `import unittest\nfrom modular import inverse\n\n\nclass T(unittest.TestCase):\n    def test_big(self):\n        self.assertEqual(inverse(${x}, ${n}) * ${x} % ${n}, 1)\n`);
    const init = await user.run(['--json', 'init', 'modular.py', '--function', 'inverse', '--tests', 'python3 -m unittest']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput & { check?: { correct: boolean; summary: string } }>(init);
    assert.equal(made.check?.correct, true, made.check?.summary);
    assert.match(fs.readFileSync(path.join(made.dir, 'peagen_inputs.json'), 'utf8'), new RegExp(`"calls":\\[\\[${x},${n}\\]\\]`));
  });

  for (const language of ['python', 'javascript'] as const) {
    it(`${language}: a drawn input the original never finishes (shortuuid's one-letter alphabet) is left out, not the end of the evaluation`, async () => {
      // Each turn divides by the alphabet's length: with one letter the number never shrinks and
      // the answer grows until the sandbox's memory is full. The tests never ask that.
      const python = language === 'python';
      const file = python ? 'digits.py' : 'digits.js';
      fs.writeFileSync(
        path.join(user.dir, file),
        python
          ? 'def digits(number, alphabet):\n    out = []\n    while number:\n        number, d = divmod(number, len(alphabet))\n        out.append(alphabet[d])\n    return "".join(out)\n'
          : 'function digits(number, alphabet) {\n  const out = [];\n  while (number) {\n    out.push(alphabet[number % alphabet.length]);\n    number = Math.floor(number / alphabet.length);\n  }\n  return out.join("");\n}\nmodule.exports = { digits };\n',
      );
      const hex = '["0","1","2","3","4","5","6","7","8","9","a","b","c","d","e","f"]';
      fs.writeFileSync(
        path.join(user.dir, python ? 'test_digits.py' : 'digits.test.js'),
        python
          ? `import unittest\nfrom digits import digits\n\n\nclass T(unittest.TestCase):\n    def test_hex(self):\n        for n in range(1, 40):\n            self.assertEqual(digits(n * 7919, ${hex}), format(n * 7919, "x")[::-1])\n`
          : `const test = require('node:test');\nconst assert = require('node:assert/strict');\nconst { digits } = require('./digits.js');\ntest('hex', () => { for (let n = 1; n < 40; n++) assert.equal(digits(n * 7919, ${hex}), (n * 7919).toString(16).split('').reverse().join('')); });\n`,
      );
      if (!python) fs.writeFileSync(path.join(user.dir, 'package.json'), JSON.stringify({ name: 'digits', private: true, scripts: { test: 'node --test' } }));
      const init = await user.run(['--json', 'init', file, '--function', 'digits', '--tests', python ? 'python3 -m unittest' : 'npm test']);
      assert.equal(init.code, 0, init.stdout + init.stderr);
      const made = parseJson<InitOutput & { check?: { correct: boolean; summary: string } }>(init);
      // Without the vetting, the check ended "the evaluation exceeded its memory limit".
      assert.equal(made.check?.correct, true, made.check?.summary);
    });
  }

  it("records the tests' calls with bytes and keyword arguments (reedsolo's rs_correct_msg(msg, nsym=4, erase_pos=[1])), replays them, and fails a candidate wrong on them", async () => {
    // Drawn inputs of its signature are not messages it can decode: only the tests' calls are.
    fs.writeFileSync(
      path.join(user.dir, 'codec.py'),
      'def fold(data, key=7, rounds=1):\n    if not isinstance(data, (bytes, bytearray)):\n        raise TypeError("bytes only")\n' +
        '    out = bytearray(data)\n    for _ in range(rounds):\n        for i in range(len(out)):\n            out[i] ^= (key + i) & 0xFF\n    return bytes(out), len(out)\n',
    );
    fs.writeFileSync(
      path.join(user.dir, 'test_codec.py'),
      'import unittest\nfrom codec import fold\n\n\nclass T(unittest.TestCase):\n    def test_round_trip(self):\n        for n in range(12):\n' +
        '            data = bytes(range(n * 3))\n            self.assertEqual(fold(fold(data, key=n)[0], key=n)[0], data)\n\n' +
        '    def test_bytearray(self):\n        self.assertEqual(fold(bytearray(b"abc"), rounds=2)[0], b"abc")\n',
    );
    const init = await user.run(['--json', 'init', 'codec.py', '--function', 'fold', '--tests', 'python3 -m unittest']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput & { check?: { correct: boolean; summary: string } }>(init);
    assert.deepEqual(made.inputs, { from: 'tests', calls: 24 });
    assert.equal(made.check?.correct, true, made.check?.summary);
    fs.writeFileSync(path.join(user.dir, 'wrong.py'), fs.readFileSync(path.join(made.dir, 'codec.py'), 'utf8').replace('(key + i) & 0xFF', 'key & 0xFF'));
    const verdict = parseJson<{ correct: boolean; failure?: { message: string } }>(await user.run(['--json', 'eval', made.dir, '--quick', '--program', path.join(user.dir, 'wrong.py')]));
    assert.equal(verdict.correct, false);
    assert.match(verdict.failure?.message ?? '', /the tests' call \d+ of fold answered/);
  });

  it("records the calls of a CommonJS module that is the function, whose properties the tests read (jsesc's jsesc.version)", async () => {
    fs.writeFileSync(path.join(user.dir, 'package.json'), JSON.stringify({ name: 'pad', private: true, scripts: { test: 'node --test' } }));
    fs.writeFileSync(path.join(user.dir, 'pad.js'), "'use strict';\nfunction pad(text, width) {\n  let out = String(text);\n  while (out.length < width) out = ' ' + out;\n  return out;\n}\npad.version = '1.2.3';\nmodule.exports = pad;\n");
    fs.writeFileSync(
      path.join(user.dir, 'pad.test.js'),
      "const test = require('node:test');\nconst assert = require('node:assert/strict');\nconst pad = require('./pad.js');\n" +
        "test('version', () => assert.equal(typeof pad.version, 'string'));\ntest('pads', () => assert.equal(pad('ab', 4), '  ab'));\n",
    );
    const init = await user.run(['--json', 'init', 'pad.js', '--function', 'pad', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    // The wrapper lost pad.version, so the tests failed traced and no call was recorded.
    assert.deepEqual(parseJson<InitOutput>(init).inputs, { from: 'tests', calls: 1 });
  });
});

describe('peagen init without tests: inputs of the types the function declares (real CLI)', function () {
  this.timeout(120_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
  });
  afterEach(() => user.cleanup());

  // Each original refuses arguments of any other type, so its seed evaluates only when the
  // evaluator draws what the declaration says (a list of strings, a number, a boolean).
  const FUNCTIONS = [
    {
      file: 'shout.js',
      fn: 'shout',
      text:
        '/**\n * Joins the words, each repeated.\n * @param {string[]} words\n * @param {number} times\n * @param {boolean} loud\n */\n' +
        "function shout(words, times, loud) {\n  if (!Array.isArray(words) || words.some((w) => typeof w !== 'string') || typeof times !== 'number' || typeof loud !== 'boolean') throw new TypeError('bad arguments');\n" +
        "  return words.map((w) => (loud ? w.toUpperCase() : w).repeat(Math.min(times, 3))).join(' ');\n}\nmodule.exports = { shout };\n",
    },
    {
      file: 'shout.ts',
      fn: 'shout',
      text:
        'export function shout(words: string[], times: number, loud: boolean): string {\n' +
        "  if (!Array.isArray(words) || words.some((w) => typeof w !== 'string') || typeof times !== 'number' || typeof loud !== 'boolean') throw new TypeError('bad arguments');\n" +
        "  return words.map((w) => (loud ? w.toUpperCase() : w).repeat(Math.min(times, 3))).join(' ');\n}\n",
    },
    {
      file: 'shout.py',
      fn: 'shout',
      text:
        'def shout(words: list[str], times: int, loud: bool) -> str:\n' +
        '    if not isinstance(words, list) or not all(isinstance(w, str) for w in words) or not isinstance(times, int) or not isinstance(loud, bool):\n' +
        "        raise TypeError('bad arguments')\n" +
        "    return ' '.join((w.upper() if loud else w) * min(times, 3) for w in words)\n",
    },
  ];

  for (const { file, fn, text } of FUNCTIONS) {
    it(`${file}: ${file.endsWith('.py') ? 'its type hints' : file.endsWith('.ts') ? 'its TypeScript annotations' : 'its JSDoc'} give the inputs`, async () => {
      fs.writeFileSync(path.join(user.dir, file), text);
      const init = await user.run(['--json', 'init', file, '--function', fn]);
      assert.equal(init.code, 0, init.stdout + init.stderr);
      const made = parseJson<InitOutput & { check?: { correct: boolean; summary: string } }>(init);
      assert.equal(made.check?.correct, true, made.check?.summary);
    });
  }
});

describe("peagen init: the seed is timed on inputs like the tests' calls (real CLI)", function () {
  this.timeout(120_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
  });
  afterEach(() => user.cleanup());

  /**
   * The project's files written, init with its tests, then eval of the seed: its metrics, once
   * the eval finds it correct (init's own check of the seed, a --quick eval, is left to the
   * other suites: here the eval is the check).
   */
  async function seedMetrics(project: { file: string; fn: string; tests: string; files: Record<string, string> }, evalArgs: string[] = []): Promise<Record<string, number>> {
    for (const [name, text] of Object.entries(project.files)) fs.writeFileSync(path.join(user.dir, name), text);
    const init = await user.run(['--json', 'init', project.file, '--function', project.fn, '--tests', project.tests, '--no-check']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput>(init);
    const seed = parseJson<{ correct: boolean; error?: string; metrics: Record<string, number> }>(await user.run(['--json', 'eval', made.dir, ...evalArgs]));
    assert.equal(seed.correct, true, seed.error);
    return seed.metrics;
  }

  const CASES: { what: string; project: { file: string; fn: string; tests: string; files: Record<string, string> }; evalArgs?: string[]; check: (metrics: Record<string, number>) => void }[] = [
    // A check of order returns at the first pair out of order: on random lists it does no work
    // at any size, so timing them measures nothing and the seed was refused. The tests pass only
    // sorted lists. (The JavaScript evaluator draws them sorted too, but no JavaScript case
    // here tells sorted from random lists: its timing differs too little.)
    {
      what: "order.py: the seed is timed on sorted lists, below the largest size and above the timer's floor",
      project: {
        file: 'order.py',
        fn: 'is_sorted',
        tests: 'python3 -m unittest',
        files: {
          'order.py': 'def is_sorted(values):\n    for i in range(1, len(values)):\n        if values[i - 1] > values[i]:\n            return False\n    return True\n',
          'test_order.py':
            'import unittest\nfrom order import is_sorted\n\nclass T(unittest.TestCase):\n    def test_sorted(self):\n' +
            '        self.assertTrue(is_sorted([1, 2, 2, 5]))\n        self.assertTrue(is_sorted([-3, 0, 7]))\n',
        },
      },
      check: (metrics) => {
        assert.ok((metrics.timing_size ?? Infinity) < 1e6, `timed at size ${metrics.timing_size}`);
        assert.ok(!metrics.timing_batch, JSON.stringify(metrics));
      },
    },
    // One test passes true (the function coerces it) and the others strings: the first call
    // made every timed input a boolean, too quick to time, so the seed was timed in batches
    // drawn from the tests' calls, whose long string filled the memory (trim-lines).
    ...[
      {
        file: 'squeeze.js',
        fn: 'squeeze',
        tests: 'node --test squeeze.test.js',
        files: {
          'squeeze.js': "function squeeze(value) {\n  const text = String(value);\n  let out = '';\n  for (let i = 0; i < text.length; i++) if (text[i] !== ' ' || text[i - 1] !== ' ') out += text[i];\n  return out;\n}\nmodule.exports = { squeeze };\n",
          'squeeze.test.js':
            "const test = require('node:test');\nconst assert = require('node:assert');\nconst { squeeze } = require('./squeeze.js');\n" +
            "test('squeeze', () => {\n  assert.equal(squeeze(true), 'true');\n  assert.equal(squeeze('a  b'), 'a b');\n  assert.equal(squeeze('  x'), ' x');\n  assert.equal(squeeze('a' + ' '.repeat(20000) + 'b'), 'a b');\n});\n",
        },
      },
      {
        file: 'squeeze.py',
        fn: 'squeeze',
        tests: 'python3 -m unittest',
        files: {
          'squeeze.py': "def squeeze(value):\n    text = str(value)\n    out = []\n    for i, c in enumerate(text):\n        if c != ' ' or i == 0 or text[i - 1] != ' ':\n            out.append(c)\n    return ''.join(out)\n",
          'test_squeeze.py':
            'import unittest\nfrom squeeze import squeeze\n\nclass T(unittest.TestCase):\n    def test_squeeze(self):\n' +
            "        self.assertEqual(squeeze(True), 'True')\n        self.assertEqual(squeeze('a  b'), 'a b')\n        self.assertEqual(squeeze('  x'), ' x')\n" +
            "        self.assertEqual(squeeze('a' + ' ' * 20000 + 'b'), 'a b')\n",
        },
      },
    ].map((project) => ({
      what: `${project.file}: the seed is timed on strings (the kind most calls pass), one call at a time`,
      project,
      check: (metrics: Record<string, number>) => assert.ok(!metrics.timing_batch, JSON.stringify(metrics)),
    })),
    // Each batch is drawn from distinct valid calls (the function refuses anything but a record):
    // with only the tests' few records to draw from, a batch was those few calls, far below
    // what a clock resolves (colord's hsvaToRgba).
    ...[
      {
        file: 'color.js',
        fn: 'brightness',
        tests: 'node --test color.test.js',
        files: {
          'color.js': "function brightness(color) {\n  if (color === null || typeof color !== 'object' || Array.isArray(color)) throw new TypeError('a color is {r, g, b}');\n  return Math.round((color.r * 299 + color.g * 587 + color.b * 114) / 1000);\n}\nmodule.exports = { brightness };\n",
          'color.test.js':
            "const test = require('node:test');\nconst assert = require('node:assert');\nconst { brightness } = require('./color.js');\n" +
            "test('brightness', () => {\n  assert.equal(brightness({ r: 0, g: 0, b: 0 }), 0);\n  assert.equal(brightness({ r: 255, g: 255, b: 255 }), 255);\n  assert.equal(brightness({ r: 255, g: 0, b: 0 }), 76);\n});\n",
        },
      },
      {
        file: 'color.py',
        fn: 'brightness',
        tests: 'python3 -m unittest',
        files: {
          'color.py': "def brightness(color):\n    if not isinstance(color, dict):\n        raise TypeError('a color is {r, g, b}')\n    return round((color['r'] * 299 + color['g'] * 587 + color['b'] * 114) / 1000)\n",
          'test_color.py':
            'import unittest\nfrom color import brightness\n\nclass T(unittest.TestCase):\n    def test_brightness(self):\n' +
            "        self.assertEqual(brightness({'r': 0, 'g': 0, 'b': 0}), 0)\n        self.assertEqual(brightness({'r': 255, 'g': 255, 'b': 255}), 255)\n" +
            "        self.assertEqual(brightness({'r': 255, 'g': 0, 'b': 0}), 76)\n",
        },
      },
    ].map((project) => ({
      what: `${project.file}: too quick for one call, it is timed in batches drawn from records with their numeric fields varied`,
      project,
      evalArgs: ['--quick'],
      check: (metrics: Record<string, number>) => assert.ok((metrics.timing_pool ?? 0) > 100, JSON.stringify(metrics)),
    })),
    // The tests' ends are 0 and 10^9 apart, so about half of the ends varied for a batch ask for
    // hundreds of millions of values: tried on the reference that answers the timed calls, one of
    // them filled the sandbox's memory and the seed failed its own evaluation (fill-range).
    {
      what: 'span.js: variations too large to answer are left out of the batches, and the seed evaluates',
      project: {
        file: 'span.js',
        fn: 'span',
        tests: 'node --test span.test.js',
        files: {
          'span.js': 'function span(from, to) {\n  const out = [];\n  for (let i = from; i < to; i += 1) out.push(i);\n  return out;\n}\nmodule.exports = { span };\n',
          'span.test.js':
            "const test = require('node:test');\nconst assert = require('node:assert');\nconst { span } = require('./span.js');\n" +
            "test('span', () => {\n  assert.deepEqual(span(0, 3), [0, 1, 2]);\n  assert.deepEqual(span(5, 6), [5]);\n  assert.deepEqual(span(1e9, 1e9 + 2), [1e9, 1e9 + 1]);\n  assert.deepEqual(span(4, 2), []);\n});\n",
        },
      },
      evalArgs: ['--quick'],
      check: (metrics) => assert.ok((metrics.timing_batch ?? 0) > 1, JSON.stringify(metrics)),
    },
    // Bytes the tests pass are drawn as bytes: drawn as lists of signed numbers, half of them
    // summed below zero and python-mnemonic's b58encode looped forever on them.
    {
      what: 'b58.py: the bytes the tests pass are drawn as bytes, which the original answers',
      project: {
        file: 'b58.py',
        fn: 'b58encode',
        tests: 'python3 -m unittest',
        files: {
          'b58.py':
            'def b58encode(v: bytes) -> str:\n    alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"\n    p, acc = 1, 0\n' +
            '    for c in reversed(v):\n        acc += p * c\n        p = p << 8\n    string = ""\n    while acc:\n' +
            '        acc, idx = divmod(acc, 58)\n        string = alphabet[idx : idx + 1] + string\n    return string\n',
          'test_b58.py':
            'import unittest\nfrom b58 import b58encode\n\nclass T(unittest.TestCase):\n    def test_encode(self):\n' +
            "        self.assertEqual(b58encode(b'hello world'), 'StV1DL6CwTryKyV')\n        self.assertEqual(b58encode(bytes([0, 0, 1])), '2')\n",
        },
      },
      evalArgs: ['--quick'],
      check: (metrics) => assert.ok((metrics.timing_size ?? 0) > 0, JSON.stringify(metrics)),
    },
    // An input that grows past what the original finishes (here: any list of more than 150
    // items) stops the timed input's growth at the last size it answered, in seconds, where
    // the call used to wait two minutes and end the evaluation.
    {
      what: 'capped.py: the timed input stops growing at the last size the original answered',
      project: {
        file: 'capped.py',
        fn: 'head_total',
        tests: 'python3 -m unittest',
        files: {
          'capped.py': 'def head_total(values):\n    while len(values) > 150:\n        pass\n    return sum(sorted(values)[:3])\n',
          'test_capped.py':
            'import unittest\nfrom capped import head_total\n\nclass T(unittest.TestCase):\n    def test_total(self):\n' +
            '        self.assertEqual(head_total([5, 1, 3, 2]), 6)\n        self.assertEqual(head_total([]), 0)\n',
        },
      },
      evalArgs: ['--quick'],
      check: (metrics) => assert.equal(metrics.timing_size_capped, 1, JSON.stringify(metrics)),
    },
  ];

  for (const { what, project, evalArgs, check } of CASES) {
    it(what, async () => check(await seedMetrics(project, evalArgs)));
  }
});

describe('peagen init --objective score (real CLI)', function () {
  this.timeout(60_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
    fs.cpSync(path.join(REPO, 'test', 'fixtures', 'initProjects', 'python'), user.dir, { recursive: true });
  });
  afterEach(() => user.cleanup());

  it('scores a candidate by the number its function returns: a function that returns more scores more, one that returns no number fails', async () => {
    const init = await user.run(['--json', 'init', 'stats.py', '--function', 'mean', '--objective', 'score']);
    assert.equal(init.code, 0, init.stderr);
    const made = parseJson<InitOutput>(init);
    // The generated evaluator run directly (what the sandbox runs, without its start-up cost).
    const score = async (edit: (program: string) => string): Promise<{ correct: boolean; objective: number; error?: string }> => {
      const candidate = path.join(user.dir, 'candidate.py');
      fs.writeFileSync(candidate, edit(fs.readFileSync(path.join(made.dir, 'stats.py'), 'utf8')));
      const { stdout } = await promisify(execFile)('python3', ['peagen_evaluate.py', candidate, '--quick'], {
        cwd: made.dir,
        env: { ...process.env, PYTHONPATH: '', PEAGEN_HARNESS_LIB: path.join(REPO, 'harness') },
      });
      return JSON.parse(stdout.trimEnd().split('\n').pop() ?? '') as { correct: boolean; objective: number; error?: string };
    };
    const seed = await score((p) => p);
    const larger = await score((p) => p.replace('return sum(values) / len(values)', 'return max(values)'));
    const text = await score((p) => p.replace('return sum(values) / len(values)', 'return str(max(values))'));
    assert.ok(seed.correct && larger.correct, `${seed.error} ${larger.error}`);
    assert.ok(larger.objective > seed.objective, `max ${larger.objective} vs mean ${seed.objective}`);
    assert.equal(text.correct, false);
    assert.match(text.error ?? '', /a score must be a finite number/);
  });
});

/** A project whose one test of four passes a Fraction, which cannot cross to the function's process. */
function writeTally(dir: string): void {
  fs.writeFileSync(path.join(dir, 'tally.py'), 'def total(values):\n    s = 0\n    for v in values:\n        s += v\n    return s\n');
  // A Fraction cannot be sent to the function's own process: that one test fails there only.
  fs.writeFileSync(
    path.join(dir, 'test_tally.py'),
    'import unittest\nfrom fractions import Fraction\nfrom tally import total\n\n\nclass Total(unittest.TestCase):\n' +
      '    def test_list(self):\n        self.assertEqual(total([1, 2, 3]), 6)\n\n' +
      '    def test_pair(self):\n        self.assertEqual(total([4, 5]), 9)\n\n' +
      '    def test_empty(self):\n        self.assertEqual(total([]), 0)\n\n' +
      '    def test_fractions(self):\n        self.assertEqual(total([Fraction(1, 2), Fraction(1, 2)]), 1)\n',
  );
}

describe('peagen init: tests that fail only behind the process boundary (real CLI)', function () {
  this.timeout(180_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
  });
  afterEach(() => user.cleanup());

  it('leaves out the tests whose arguments cannot cross to the function, says so and lists them; the rest still judge every candidate', async () => {
    writeTally(user.dir);
    const init = await user.run(['init', 'tally.py', '--function', 'total', '--tests', 'python3 -m unittest']);
    assert.equal(init.code, 0, `${init.stdout}\n${init.stderr}`);
    assert.match(init.stdout, /checked: your code as it is evaluates correctly/);
    assert.match(init.stdout, /left out 1 of 4 tests: they fail on your code as it is only in the sandbox, with total\(\) in a process of its own .* run your tests on what you apply/);
    const dir = path.join(user.dir, '.peagen', 'examples', 'tally-total');
    const file = path.join(dir, 'peagen_tests.json');
    const listed = JSON.parse(fs.readFileSync(file, 'utf8')) as { why: string; left_out: string[]; expected: string[] };
    assert.deepEqual(listed.left_out, ['unittest:test_tally.Total.test_fractions']);
    assert.equal(listed.expected.length, 3);

    const evaluate = async (source: string): Promise<{ correct: boolean; errorText?: string }> => {
      const candidate = path.join(user.dir, 'candidate.py');
      fs.writeFileSync(candidate, source);
      const result = await user.run(['--json', 'eval', dir, '--program', candidate, '--quick', '--sync']);
      return parseJson<{ correct: boolean; errorText?: string }>(result);
    };
    const seed = fs.readFileSync(path.join(dir, 'tally.py'), 'utf8');
    assert.equal((await evaluate(seed)).correct, true, 'the seed evaluates correct without the test left out');
    // A candidate wrong on a call the kept tests make is still refused.
    assert.equal((await evaluate(seed.replace('s = 0', 's = 0 if values else 1'))).correct, false);
    // Without the file every test counts again, and the seed fails the one its argument cannot reach.
    fs.rmSync(file);
    const counted = await evaluate(seed);
    assert.equal(counted.correct, false);
    assert.match(counted.errorText ?? '', /tests passed 3\/4/);

    // Fail-fast (unittest -f) stops neither init's learning nor a candidate's run: the same one
    // test is left out, and the tests that run after it (test_list, test_pair) still judge: the
    // seed, which must pass each of them, evaluates correct.
    fs.rmSync(path.join(user.dir, '.peagen'), { recursive: true });
    const failFast = await user.run(['init', 'tally.py', '--function', 'total', '--tests', 'python3 -m unittest -f']);
    assert.equal(failFast.code, 0, failFast.stdout + failFast.stderr);
    assert.match(failFast.stdout, /left out 1 of 4 tests/);
    assert.equal((await evaluate(seed)).correct, true);
    assert.equal((await evaluate(seed.replace('s = 0', 's = 1 if len(values) == 2 else 0'))).correct, false);
  });

  it('judges a table of subtests case by case: the case that cannot cross is left out, not its table', async () => {
    fs.writeFileSync(path.join(user.dir, 'tally.py'), 'def total(values):\n    s = 0\n    for v in values:\n        s += v\n    return s\n');
    fs.writeFileSync(
      path.join(user.dir, 'test_tally.py'),
      'import unittest\nfrom fractions import Fraction\nfrom tally import total\n\n\nclass Total(unittest.TestCase):\n' +
        '    def test_table(self):\n' +
        '        for values, want in (([1, 2, 3], 6), ((4, 5), 9), ([Fraction(1, 2), Fraction(1, 2)], 1), ([], 0)):\n' +
        '            with self.subTest(values=values):\n                self.assertEqual(total(values), want)\n\n' +
        '    def test_list(self):\n        self.assertEqual(total([7]), 7)\n',
    );
    const init = await user.run(['init', 'tally.py', '--function', 'total', '--tests', 'python3 -m unittest']);
    assert.equal(init.code, 0, `${init.stdout}\n${init.stderr}`);
    const dir = path.join(user.dir, '.peagen', 'examples', 'tally-total');
    const listed = JSON.parse(fs.readFileSync(path.join(dir, 'peagen_tests.json'), 'utf8')) as { left_out: string[]; expected: string[] };
    // The Fraction case and the method it fails; the table's other cases still judge.
    assert.deepEqual(listed.left_out.sort(), ['unittest:test_tally.Total.test_table', 'unittest:test_tally.Total.test_table (values=[Fraction(1, 2), Fraction(1, 2)])']);
    assert.ok(listed.expected.includes('unittest:test_tally.Total.test_table (values=(4, 5))'), listed.expected.join('\n'));
    // Wrong on tuples only (a tuple the tests passed is recorded as a list): the table's tuple case fails it.
    const candidate = path.join(user.dir, 'wrong.py');
    fs.writeFileSync(candidate, fs.readFileSync(path.join(dir, 'tally.py'), 'utf8').replace('s = 0', 's = 1 if isinstance(values, tuple) else 0'));
    const verdict = parseJson<{ correct: boolean; errorText?: string }>(await user.run(['--json', 'eval', dir, '--program', candidate, '--quick', '--sync']));
    assert.equal(verdict.correct, false);
    assert.match(verdict.errorText ?? '', /FAIL: test_table \(values=\(4, 5\)\)/);
  });
});

describe('peagen init: the tests the seed passes are listed, and each must pass (real CLI)', function () {
  this.timeout(180_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
  });
  afterEach(() => user.cleanup());

  it('a listed test that does not run, or is skipped, fails the candidate', async () => {
    writeTally(user.dir);
    fs.writeFileSync(path.join(user.dir, 'test_tally.py'), fs.readFileSync(path.join(user.dir, 'test_tally.py'), 'utf8').replace(/ {4}def test_fractions[^]*$/, ''));
    const init = await user.run(['init', 'tally.py', '--function', 'total', '--tests', 'python3 -m unittest']);
    assert.equal(init.code, 0, `${init.stdout}\n${init.stderr}`);
    assert.doesNotMatch(init.stdout, /left out/);
    const dir = path.join(user.dir, '.peagen', 'examples', 'tally-total');
    const file = path.join(dir, 'peagen_tests.json');
    const listed = JSON.parse(fs.readFileSync(file, 'utf8')) as { left_out: string[]; expected: string[] };
    assert.deepEqual(listed.left_out, []);
    assert.deepEqual(listed.expected.sort(), ['unittest:test_tally.Total.test_empty', 'unittest:test_tally.Total.test_list', 'unittest:test_tally.Total.test_pair']);
    const seed = path.join(dir, 'tally.py');
    const evaluate = async (): Promise<{ correct: boolean; errorText?: string }> => parseJson(await user.run(['--json', 'eval', dir, '--program', seed, '--quick', '--sync']));
    assert.equal((await evaluate()).correct, true);
    // A test that skips itself (as one can when the function raises NotImplementedError) no longer counts as judged.
    const copied = path.join(dir, 'project', 'test_tally.py');
    fs.chmodSync(copied, 0o644);
    fs.writeFileSync(copied, fs.readFileSync(copied, 'utf8').replace('    def test_pair', '    @unittest.skip("not judged")\n    def test_pair'));
    const skipped = await evaluate();
    assert.equal(skipped.correct, false);
    assert.match(skipped.errorText ?? '', /SKIPPED \(counts as failed\): test_pair/);
    // Without the list, a skipped test is neither passed nor failed, as before.
    fs.rmSync(file);
    assert.equal((await evaluate()).correct, true);
  });
});

describe('peagen init: tests of one name in two suites (real CLI, node --test)', function () {
  this.timeout(180_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
  });
  afterEach(() => user.cleanup());

  it('leaves out the one whose argument cannot cross (a generator), not its namesake in another suite', async () => {
    fs.writeFileSync(path.join(user.dir, 'package.json'), JSON.stringify({ name: 'tally', private: true, scripts: { test: 'node --test' } }));
    fs.writeFileSync(path.join(user.dir, 'tally.js'), 'function total(values) {\n  let s = 0;\n  for (const v of values) s += v;\n  return s;\n}\nmodule.exports = { total };\n');
    fs.mkdirSync(path.join(user.dir, 'test'));
    fs.writeFileSync(
      path.join(user.dir, 'test', 'tally.test.js'),
      "const { describe, test } = require('node:test');\nconst assert = require('node:assert/strict');\nconst { total } = require('../tally.js');\n" +
        "describe('lists', () => {\n  test('sums', () => assert.equal(total([1, 2, 3]), 6));\n  test('empty', () => assert.equal(total([]), 0));\n});\n" +
        "describe('generators', () => {\n  test('sums', () => assert.equal(total((function* () { yield 1; yield 2; })()), 3));\n});\n" +
        "describe('sets', () => {\n  test('sums', () => assert.equal(total(new Set([4, 5])), 9));\n});\n",
    );
    const init = await user.run(['init', 'tally.js', '--function', 'total', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    assert.match(init.stdout, /left out 1 of 4 tests/);
    const dir = path.join(user.dir, '.peagen', 'examples', 'tally-total');
    const program = fs.readFileSync(path.join(dir, 'tally.js'), 'utf8');
    // Wrong on a Set only (no call the tests made with a Set is recorded: it is not plain JSON): the sets suite's sums fails it.
    const candidate = path.join(user.dir, 'wrong.js');
    fs.writeFileSync(candidate, program.replace('let s = 0;', 'let s = values instanceof Set ? 1 : 0;'));
    const verdict = parseJson<{ correct: boolean; errorText?: string }>(await user.run(['--json', 'eval', dir, '--program', candidate, '--quick', '--sync']));
    assert.equal(verdict.correct, false);
    assert.match(verdict.errorText ?? '', /FAIL: sums/);
  });
});

describe("the editor's Evolve this function (the daemon's InitFunction on a real engine and bwrap)", function () {
  this.timeout(180_000);
  it('leaves out the tests that fail only behind the process boundary and says so, as the CLI does', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-initfn-'));
    const engine = new Engine(ConfigSchema.parse({ worker: { concurrency: 1 } }), { queue: new MemoryQueue(), registry: createRegistry([], new BwrapExecutor()) });
    try {
      writeTally(root);
      fs.mkdirSync(path.join(root, '.peagen'));
      fs.writeFileSync(path.join(root, '.peagen', 'workspace-id'), 'abcdefgh1234\n');
      const made = await initFunction(
        { projectDir: root, workspaceId: 'abcdefgh1234', testsDir: root, sourceFile: path.join(root, 'tally.py'), functionName: 'total', tests: 'python3 -m unittest' },
        seedEvaluationOn(engine),
      );
      assert.equal(made.objective, 'speed');
      assert.match(made.leftOut ?? '', /^left out 1 of 4 tests: .* listed in \.peagen\/examples\/tally-total\/peagen_tests\.json/);
      assert.ok(fs.existsSync(path.join(made.exampleDir, 'peagen_tests.json')));
    } finally {
      await engine.stop({ drain: false });
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('peagen init refusals (real CLI)', function () {
  this.timeout(60_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
    fs.cpSync(path.join(REPO, 'test', 'fixtures', 'initProjects', 'python'), user.dir, { recursive: true });
  });
  afterEach(() => user.cleanup());

  const refused = async (args: string[], message: RegExp): Promise<void> => {
    const result = await user.run(['init', ...args]);
    assert.equal(result.code, 2, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stderr, message);
    assert.ok(!fs.existsSync(path.join(user.dir, '.peagen', 'examples')), 'nothing is left behind');
  };

  it('says what to write by hand for a function it cannot handle, and refuses tests that fail on the original', async () => {
    fs.writeFileSync(path.join(user.dir, 'shapes.py'), 'class Box:\n    def area(self):\n        return 1\n');
    await refused(['shapes.py', '--function', 'area'], /area is a method or a nested function: .*move it to the top level.*EVOLVE-BLOCK-START/);
    await refused(['stats.py', '--function', 'median'], /defines no def median/);
    await refused(['stats.tsx', '--function', 'f'], /runs TypeScript \(\.ts, \.mts, \.cts\) by stripping its types, not TSX/);
    await refused(['stats.py', '--function', 'moving_average', '--objective', 'tests'], /--objective tests counts the tests that pass: name the test command with --tests/);
    fs.appendFileSync(path.join(user.dir, 'test_stats.py'), '\n\nclass Broken(unittest.TestCase):\n    def test_broken(self):\n        self.fail("broken")\n');
    await refused(['stats.py', '--function', 'moving_average', '--tests', 'python3 -m unittest'], /the tests \("python3 -m unittest"\) failed \(exit status 1\) on the original code/);
  });
});

describe('peagen init: a Python generator (real CLI)', function () {
  this.timeout(120_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
  });
  afterEach(() => user.cleanup());

  it('is read whole as its answer (pycodestyle\'s checks yield their findings): the seed evaluates, a candidate that yields one item less fails', async () => {
    fs.writeFileSync(path.join(user.dir, 'shapes.py'), 'def squares(n: int):\n    for i in range(n):\n        yield i * i\n');
    const init = await user.run(['--json', 'init', 'shapes.py', '--function', 'squares']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const made = parseJson<InitOutput & { check?: { correct: boolean; summary: string } }>(init);
    assert.equal(made.check?.correct, true, made.check?.summary);
    fs.writeFileSync(path.join(user.dir, 'short.py'), fs.readFileSync(path.join(made.dir, 'shapes.py'), 'utf8').replace('range(n)', 'range(n - 1)'));
    const verdict = parseJson<{ correct: boolean }>(await user.run(['--json', 'eval', made.dir, '--quick', '--program', path.join(user.dir, 'short.py')]));
    assert.equal(verdict.correct, false);
  });
});

describe("peagen init: the function's own realm has a console and text codecs (real CLI, node --test)", function () {
  this.timeout(180_000);
  let user: EvolveProject;
  beforeEach(() => {
    user = new EvolveProject();
  });
  afterEach(() => user.cleanup());

  it('a test that spies on console.log judges what the candidate logs, and TextDecoder decodes as Node does', async () => {
    fs.writeFileSync(path.join(user.dir, 'package.json'), JSON.stringify({ name: 'label', private: true, scripts: { test: 'node --test' } }));
    fs.writeFileSync(
      path.join(user.dir, 'label.js'),
      "function label(codes, name) {\n  const text = new TextDecoder('utf-8').decode(new Uint8Array(codes));\n" +
        "  console.log('label %s:', name, { chars: text.length });\n  return text + '/' + new TextEncoder().encode(name).length;\n}\nmodule.exports = { label };\n",
    );
    fs.mkdirSync(path.join(user.dir, 'test'));
    fs.writeFileSync(
      path.join(user.dir, 'test', 'label.test.js'),
      "const { test } = require('node:test');\nconst assert = require('node:assert/strict');\nconst { format } = require('node:util');\n" +
        "const { label } = require('../label.js');\ntest('decodes', () => assert.equal(label([0xc3, 0xa9, 0x74, 0xc3], 'né'), 'ét\\ufffd/3'));\n" +
        "test('logs', (t) => {\n  const log = t.mock.method(console, 'log', () => {});\n  label([104, 105], 'x');\n" +
        "  assert.deepEqual(log.mock.calls.map((call) => format(...call.arguments)), ['label x: { chars: 2 }']);\n});\n",
    );
    const init = await user.run(['init', 'label.js', '--function', 'label', '--tests', 'npm test']);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    assert.match(init.stdout, /checked: your code as it is evaluates correctly/);
    assert.doesNotMatch(init.stdout, /left out/);
    const dir = path.join(user.dir, '.peagen', 'examples', 'label-label');
    const program = fs.readFileSync(path.join(dir, 'label.js'), 'utf8');
    // Same answers, one log line fewer: the spying test fails it.
    const candidate = path.join(user.dir, 'quiet.js');
    fs.writeFileSync(candidate, program.replace(/ {2}console\.log\([^\n]*\n/, ''));
    const verdict = parseJson<{ correct: boolean; errorText?: string }>(await user.run(['--json', 'eval', dir, '--program', candidate, '--quick', '--sync']));
    assert.equal(verdict.correct, false);
    assert.match(verdict.errorText ?? '', /FAIL: logs/);
  });
});
