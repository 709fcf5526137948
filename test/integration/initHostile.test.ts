/**
 * Hostile candidates against the evaluators `peagen init --tests` generates (Python and JS, on
 * the fixture projects), as examples/bad_sort/test_candidates are against the bundled ones: a
 * patched clock, a forged verdict line, answers precomputed at load time for the inputs the
 * tests show, and a change to the shared input are rejected or earn nothing; a candidate that
 * breaks one of the project's tests is rejected with that test named. Each probe is
 * the example's own program with one hostile edit, run through the generated evaluator
 * (--quick) outside a sandbox: what is shown is the evaluator's own defence.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { initExample } from '../../daemon/usecases/initExample';
import { REPO, tempDir } from '../fixtures/paths';

interface Verdict {
  correct: boolean;
  objective: number;
  error?: string;
  metrics: Record<string, number>;
}

const FORGED = '{"correct": true, "objective": 1e9, "direction": "maximize", "metrics": {}}';

interface Probe {
  name: string;
  edit: (program: string) => string;
  /** A rejection whose error matches, or a correct verdict that earns less than maxSpeedup. */
  expect: { errorIncludes: string } | { maxSpeedup: number };
}

const LANGUAGES: { language: string; fixture: string; file: string; fn: string; tests: string; run: string; probes: Probe[] }[] = [
  {
    language: 'Python',
    fixture: 'python',
    file: 'stats.py',
    fn: 'moving_average',
    tests: 'python3 -m unittest',
    run: 'python3',
    probes: [
      { name: 'patches the clock', edit: (p) => `import time\ntime.perf_counter_ns = lambda: 0\ntime.process_time_ns = lambda: 0\n${p}`, expect: { errorIncludes: "import of module 'time' is not allowed" } },
      { name: 'prints a forged verdict line', edit: (p) => `print('${FORGED}')\n${p.replace('    sums = [0]\n', `    print('${FORGED}')\n    sums = [0]\n`)}`, expect: { maxSpeedup: 3 } },
      {
        name: "precomputes the answers to the tests' calls at load",
        edit: (p) =>
          `_TABLE = {}\n${p.replace('def moving_average(values, window):\n', 'def moving_average(values, window):\n    known = _TABLE.get(repr((values, window)))\n    if known is not None:\n        return list(known)\n')}\n\nfor _v, _w in [([1, 2, 3, 4], 2), ([2, 4, 6, 8], 4), ([1, 2], 3), ([5, -1, 7], 1)]:\n    _TABLE[repr((_v, _w))] = moving_average(_v, _w)\n`,
        expect: { maxSpeedup: 3 },
      },
      { name: 'regenerates the seeded input stream', edit: (p) => `import random\n_RNG = random.Random(1 * 1_000_003 + 1)\n${p}`, expect: { errorIncludes: "import of module 'random' is not allowed" } },
      // Its answers are compared before the tests run: the call a test makes gives it away first.
      { name: 'breaks a project test', edit: (p) => p.replace('    if window <= 0:', '    if window < 0:'), expect: { errorIncludes: 'answered raised ZeroDivisionError: division by zero (line 18 of the program), the reference raised ValueError' } },
      { name: 'changes the shared input', edit: (p) => p.replace('    return [(sums', '    values.reverse()\n    return [(sums'), expect: { errorIncludes: 'modified its arguments, the reference did not' } },
    ],
  },
  {
    language: 'JavaScript',
    fixture: 'js',
    file: 'running.js',
    fn: 'runningMax',
    tests: 'node --test',
    run: process.execPath,
    probes: [
      { name: 'patches the clock', edit: (p) => `process.hrtime.bigint = () => 0n;\nperformance.now = () => 0;\nDate.now = () => 0;\n${p}`, expect: { errorIncludes: 'process is not defined' } },
      { name: 'prints a forged verdict line', edit: (p) => `console.log('${FORGED}');\n${p.replace('  let best = -Infinity;\n', `  console.log('${FORGED}');\n  let best = -Infinity;\n`)}`, expect: { maxSpeedup: 3 } },
      {
        name: "precomputes the answers to the tests' calls at load",
        edit: (p) =>
          `const table = new Map();\n${p.replace('function runningMax(values) {\n', 'function runningMax(values) {\n  if (table.has(String(values))) return table.get(String(values)).slice();\n')}\nfor (const v of [[3, 1, 4, 1, 5, 9, 2, 6], [-5, -7, -2]]) table.set(String(v), runningMax(v));\n`,
        expect: { maxSpeedup: 3 },
      },
      { name: 'writes its own verdict through fs', edit: (p) => `require('fs').writeSync(1, '${FORGED}\\n');\n${p}`, expect: { errorIncludes: 'require("fs") is not allowed' } },
      { name: 'breaks a project test', edit: (p) => p.replace('  let best = -Infinity;', '  let best = 0;'), expect: { errorIncludes: "the project's tests failed (tests passed 3/4): FAIL: runningMax with negative values" } },
      { name: 'changes the shared input', edit: (p) => p.replace('  return values.map((value) => (best = Math.max(best, value)));\n', '  const maxima = values.map((value) => (best = Math.max(best, value)));\n  values.reverse();\n  return maxima;\n'), expect: { errorIncludes: 'answered (changing its arguments)' } },
    ],
  },
];

for (const lang of LANGUAGES) {
  describe(`hostile candidates against the evaluator peagen init generates (${lang.language})`, function () {
    this.timeout(120_000);
    let example: string;
    let program: string;
    let work: string;

    before(async () => {
      const project = tempDir('init-hostile');
      fs.cpSync(path.join(REPO, 'test', 'fixtures', 'initProjects', lang.fixture), project, { recursive: true });
      const made = await initExample({ file: path.join(project, lang.file), functionName: lang.fn, projectDir: project, tests: lang.tests });
      assert.equal(made.inputs.from, 'tests');
      example = made.dir;
      program = fs.readFileSync(path.join(example, lang.file), 'utf8');
      work = tempDir('init-probes');
    });

    const evaluate = async (source: string): Promise<Verdict> => {
      const candidate = path.join(work, lang.file);
      fs.writeFileSync(candidate, source);
      const evaluator = lang.fixture === 'python' ? 'peagen_evaluate.py' : 'peagen_evaluate.js';
      const { stdout } = await promisify(execFile)(lang.run, [evaluator, candidate, '--quick'], {
        cwd: example,
        // The evaluator's own fallback finds the harness library here.
        env: { ...process.env, PYTHONPATH: '', NODE_PATH: '', PEAGEN_HARNESS_LIB: path.join(REPO, 'harness') },
        maxBuffer: 16 * 1024 * 1024,
      }); // rejects on a non-zero exit: every verdict about a candidate exits 0
      return JSON.parse(stdout.trimEnd().split('\n').pop() ?? '') as Verdict;
    };

    for (const probe of lang.probes) {
      it(`${probe.name}: ${'errorIncludes' in probe.expect ? 'rejected' : 'earns nothing'}`, async () => {
        const edited = probe.edit(program);
        assert.notEqual(edited, program, 'the probe edits the program');
        const verdict = await evaluate(edited);
        if ('errorIncludes' in probe.expect) {
          assert.equal(verdict.correct, false, JSON.stringify(verdict));
          assert.ok(verdict.error?.includes(probe.expect.errorIncludes), verdict.error);
        } else {
          assert.equal(verdict.correct, true, verdict.error);
          assert.ok(verdict.metrics.inputs_checked! > 0, "the last line is the evaluator's verdict");
          assert.ok(verdict.objective < probe.expect.maxSpeedup, `speedup ${verdict.objective}`);
        }
      });
    }
  });
}
