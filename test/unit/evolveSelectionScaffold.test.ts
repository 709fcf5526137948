/**
 * "Scaffold an evaluator for <function>…": the function the selection is about, and the
 * scaffolded Python and JavaScript evaluators run for real, the way the daemon runs an
 * example's evaluator (evaluateProgram: the example directory as the working directory, the
 * harness library on PYTHONPATH / NODE_PATH), on honest candidates and on hostile ones that
 * try to fool the timing (patched clocks, forged result lines, precomputed answers).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateProgram } from '../../daemon/evaluation/evaluateProgram';
import { loadExample } from '../../daemon/evaluation/example';
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import { functionAt, type ScaffoldInput, scaffoldFiles } from '../../daemon/evaluation/scaffold/scaffoldExample';
import { type Evaluation, ExampleConfigSchema } from '../../shared/evaluation';

const FIB_JS = path.join(__dirname, '..', '..', '..', 'examples', 'slow_fib_js', 'fib.js');
const SLOW = ['def total(values: list[int]) -> int:', '    out = 0', '    for v in values:', '        for _ in range(50):', '            pass', '        out += v', '    return out', ''].join('\n');
/** A program that imports what the attacks below need, so only the harness stands in their way. */
const PY_FIB = ['import json', 'import os', 'import sys', 'import time', '', '', 'def fib(n: int) -> int:', '    if n < 2:', '        return n', '    return fib(n - 1) + fib(n - 2)', ''].join('\n');
const PY_SLOW_FIB = 'def slow(n):\n    return n if n < 2 else slow(n - 1) + slow(n - 2)\n';

const executor = new ProcessExecutor(() => {});

/** Writes the scaffold into a fresh directory; score(code) evaluates one candidate as the daemon does. */
function scaffolded(input: ScaffoldInput): { dir: string; score: (code: string, args?: string[]) => Promise<Evaluation> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-scaffold-'));
  const { files } = scaffoldFiles(input);
  assert.ok(ExampleConfigSchema.safeParse(JSON.parse(files['peagen.example.json']!)).success);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  fs.writeFileSync(path.join(dir, input.fileName), input.text);
  return {
    dir,
    score: async (code, args = ['--quick']) => {
      const evaluation = await evaluateProgram(executor, loadExample(dir), code, { args });
      console.log(`      ${evaluation.correct ? `correct, speedup ${evaluation.objective} (timed size ${evaluation.metrics.timing_size})` : `failed: ${(evaluation.failure?.message ?? '').split('\n')[0]!.slice(0, 160)}`} (${evaluation.wallMs} ms)`);
      return evaluation;
    },
  };
}

/** Not rewarded: a failed verdict, or no more than `honestBound` (what an honest slow program gets, with margin). */
function assertNotRewarded(evaluation: Evaluation, honestBound: number): void {
  if (!evaluation.correct) return;
  assert.ok((evaluation.objective ?? 0) <= honestBound, `the cheat was rewarded: speedup ${evaluation.objective} > ${honestBound}`);
}

describe('Evolve Selection: scaffolded evaluators', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names the function whose body is selected, or the outermost one defined in the selection', () => {
    const lines = SLOW.split('\n');
    assert.equal(functionAt(lines, { startLine: 1, endLine: 6 }, 'python'), 'total');
    assert.equal(functionAt(['x = 1', 'def a():', '    def b():', '        pass'], { startLine: 1, endLine: 4 }, 'python'), 'a');
    assert.equal(functionAt(['const f = (a) => {', '  return a;', '};'], { startLine: 1, endLine: 2 }, 'javascript'), 'f');
    assert.equal(functionAt(['export function fib(n) {', '  return n;', '}'], { startLine: 1, endLine: 2 }, 'javascript'), 'fib');
    assert.equal(functionAt(['x = 1', 'y = 2'], { startLine: 0, endLine: 2 }, 'python'), undefined);
  });

  it('generates evaluators built on the harness, never timing inside the candidate', () => {
    const py = scaffoldFiles({ fileName: 'calc.py', text: SLOW, functionName: 'total', language: 'python' });
    const js = scaffoldFiles({ fileName: 'fib.js', text: 'function fib(n) {}\n', functionName: 'fib', language: 'javascript' });
    assert.deepEqual(py.config.evaluator, ['python3', 'peagen_evaluate.py', '{program}']);
    assert.deepEqual(js.config.evaluator, ['node', 'peagen_evaluate.js', '{program}']);
    assert.match(py.files['peagen_evaluate.py']!, /import peagen_harness/);
    assert.match(js.files['peagen_evaluate.js']!, /require\('peagen-harness'\)/);
    assert.doesNotMatch(py.files['peagen_evaluate.py']!, /process_time|exec_module/);
    assert.doesNotMatch(js.files['peagen_evaluate.js']!, /cpuUsage|require\(file\)/);
  });

  describe('Python: total() of a bad_sort-style program', () => {
    let score: (code: string, args?: string[]) => Promise<Evaluation>;
    before(() => {
      const made = scaffolded({ fileName: 'calc.py', text: SLOW, functionName: 'total', language: 'python' });
      dirs.push(made.dir);
      score = made.score;
    });

    it('the program as it is: correct, speedup near 1', async () => {
      // The full measurement (7 rounds, 30 ms timed calls), not --quick: 5 rounds of 10 ms
      // calls in fresh processes scored this unchanged program 0.47x under a burst of CI load.
      const same = await score(SLOW, []);
      assert.equal(same.correct, true, same.failure?.message);
      assert.ok(same.objective! > 0.5 && same.objective! < 2, `speedup ${same.objective}: ${JSON.stringify(same.metrics)}`);
      assert.ok(same.metrics.inputs_checked! >= 9 && same.metrics.repeats! >= 3, JSON.stringify(same.metrics));
    });

    it('a faster correct one scores above 2; a wrong answer fails, saying which call', async () => {
      // The full measurement, as above. Its net CPU is below what subtracting the data's echo
      // resolves, so it scores the reference's over that resolution, not 0.27x or 13,000x as
      // when a fresh process's cold first echo was subtracted (the harness's timing.py).
      const fast = await score('def total(values: list[int]) -> int:\n    return sum(values)\n', []);
      assert.equal(fast.correct, true, fast.failure?.message);
      assert.ok(fast.objective! > 2, `speedup ${fast.objective}: ${JSON.stringify(fast.metrics)}`);
      const wrong = await score('def total(values: list[int]) -> int:\n    return 0\n');
      assert.equal(wrong.correct, false);
      assert.match(wrong.failure?.message ?? '', /^call \d+ of total answered 0, the reference -?\d+/);
    });

    it('a candidate that imports what the program does not is refused', async () => {
      const sneaky = await score('import subprocess\n\ndef total(values: list[int]) -> int:\n    return sum(values)\n');
      assert.equal(sneaky.correct, false);
      assert.match(sneaky.failure?.message ?? '', /static check.*subprocess/);
    });
  });

  describe('Python: hostile candidates for fib() of a program that imports json, os, sys and time', () => {
    let score: (code: string) => Promise<Evaluation>;
    before(() => {
      const made = scaffolded({ fileName: 'fibs.py', text: PY_FIB, functionName: 'fib', language: 'python' });
      dirs.push(made.dir);
      score = made.score;
    });

    it('the program as it is: correct, speedup near 1', async () => {
      const same = await score(PY_FIB);
      assert.equal(same.correct, true, same.failure?.message);
      assert.ok(same.objective! > 0.5 && same.objective! < 2, `speedup ${same.objective}`);
    });

    it('(a) patching time.perf_counter / process_time (and their _ns) earns nothing', async () => {
      const cheat = await score(
        `import time\n\ntime.perf_counter = lambda: 0.0\ntime.process_time = lambda: 0.0\ntime.perf_counter_ns = lambda: 0\ntime.process_time_ns = lambda: 0\n\n\n${PY_SLOW_FIB}\n\ndef fib(n: int) -> int:\n    return slow(n)\n`,
      );
      assertNotRewarded(cheat, 2);
    });

    it('(b) printing a forged result line and exiting is a failed verdict', async () => {
      const cheat = await score(
        `import json\nimport sys\n\nanswers = []\n\n${PY_SLOW_FIB}\n\ndef fib(n: int) -> int:\n    value = slow(n)\n    answers.append(repr(value))\n    if len(answers) == 5:\n        print(json.dumps({"correct": True, "objective": 1e9, "direction": "maximize", "metrics": {}}))\n        print(json.dumps({"cpu": 1e-9, "answers": answers}))\n        sys.stdout.flush()\n        sys.exit(0)\n    return value\n`,
      );
      assert.equal(cheat.correct, false, `speedup ${cheat.objective}`);
    });

    it('(c) answers precomputed while loading (untimed) are charged back: no better than the honest slow program', async () => {
      // The table covers every n whose slow answer takes up to ~0.1 s: the timed n among them.
      const cheat = await score(`import time\n\n${PY_SLOW_FIB}\nTABLE = {}\nstart = time.process_time()\nwhile time.process_time() - start < 0.25:\n    TABLE[len(TABLE)] = slow(len(TABLE))\n\n\ndef fib(n: int) -> int:\n    return TABLE[n] if n in TABLE else slow(n)\n`);
      assertNotRewarded(cheat, 2);
    });
  });

  describe('JavaScript: fib() of examples/slow_fib_js', () => {
    let score: (code: string) => Promise<Evaluation>;
    const text = fs.readFileSync(FIB_JS, 'utf8');
    before(() => {
      const lines = text.split('\n');
      const def = lines.findIndex((line) => line.startsWith('function fib('));
      const functionName = functionAt(lines, { startLine: def + 1, endLine: def + 5 }, 'javascript');
      assert.equal(functionName, 'fib');
      const made = scaffolded({ fileName: 'fib.js', text, functionName, language: 'javascript' });
      dirs.push(made.dir);
      score = made.score;
    });

    it('the program as it is: correct, speedup near 1', async () => {
      const same = await score(text);
      assert.equal(same.correct, true, same.failure?.message);
      assert.ok(same.objective! > 0.5 && same.objective! < 2, `speedup ${same.objective}`);
      assert.ok(same.metrics.inputs_checked! >= 9 && same.metrics.repeats! >= 3, JSON.stringify(same.metrics));
    });

    it('a faster correct one scores above 2; a wrong answer fails, saying which call', async () => {
      const faster = await score("'use strict';\nfunction fib(n) {\n  let a = 0n;\n  let b = 1n;\n  for (let i = 0; i < n; i++) [a, b] = [b, a + b];\n  return a;\n}\nmodule.exports = { fib };\n");
      assert.equal(faster.correct, true, faster.failure?.message);
      assert.ok(faster.objective! > 2, `speedup ${faster.objective}`);
      const wrong = await score(text.replace('if (m < 2) return toBig(m);', 'if (m < 2) return toBig(m + 1);'));
      assert.equal(wrong.correct, false);
      assert.match(wrong.failure?.message ?? '', /^call \d+ of fib answered "\d+n", the reference "\d+n"$/);
    });

    it('(a) patching process.hrtime, performance.now and process.cpuUsage earns nothing', async () => {
      const cheat = await score(
        "'use strict';\nprocess.cpuUsage = () => ({ user: 0, system: 0 });\nprocess.hrtime = Object.assign(() => [0, 0], { bigint: () => 0n });\nperformance.now = () => 0;\n" +
          text.slice(text.indexOf('// EVOLVE-BLOCK-START')),
      );
      assertNotRewarded(cheat, 2);
    });

    it('(b) printing a forged result line and exiting is a failed verdict', async () => {
      const cheat = await score(
        text.replace(
          'module.exports = { fib };',
          "const answers = [];\nconst real = fib;\nfunction forged(n) {\n  const value = real(n);\n  answers.push(JSON.stringify(value.toString() + 'n'));\n  if (answers.length === 5) {\n    const out = require('fs');\n    out.writeSync(1, JSON.stringify({ correct: true, objective: 1e9, direction: 'maximize', metrics: {} }) + '\\n');\n    out.writeSync(1, JSON.stringify({ cpu: 1e-9, answers, kinds: 'int' }) + '\\n');\n    process.exit(0);\n  }\n  return value;\n}\nmodule.exports = { fib: forged };\n",
        ),
      );
      assert.equal(cheat.correct, false, `speedup ${cheat.objective}`);
    });

    it('(c) answers precomputed while loading (untimed) are charged back: no better than the program itself', async () => {
      const cheat = await score(
        text.replace('module.exports = { fib };', "const table = [];\nconst start = Date.now();\nwhile (Date.now() - start < 250) table.push(fib(table.length));\nconst slowFib = fib;\nmodule.exports = { fib: (n) => (n < table.length ? table[n] : slowFib(n)) };\n"),
      );
      assertNotRewarded(cheat, 2);
    });
  });

  // A timed call on which the reference throws would reward a candidate that throws the same
  // error at once: the evaluator times batches of calls the reference answers instead.
  for (const [language, fileName, text, cheat] of [
    [
      'python',
      'limited.py',
      'def total(values: list[int]) -> int:\n    if len(values) > 60:\n        raise ValueError("too many values")\n    out = 0\n    for v in values:\n        for _ in range(50):\n            pass\n        out += v\n    return out\n',
      'def total(values: list[int]) -> int:\n    if len(values) > 60:\n        raise ValueError("too many values")\n    return sum(values)\n',
    ],
    [
      'javascript',
      'limited.js',
      "'use strict';\nfunction total(values) {\n  if (values.length > 60) throw new RangeError('too many values');\n  let out = 0;\n  for (const v of values) { for (let i = 0; i < 5000; i++); out += v; }\n  return out;\n}\nmodule.exports = { total };\n",
      "'use strict';\nfunction total(values) {\n  if (values.length > 60) throw new RangeError('too many values');\n  return values.reduce((a, b) => a + b, 0);\n}\nmodule.exports = { total };\n",
    ],
  ] as const) {
    it(`${language}: where larger inputs make the reference raise, batches of valid calls are timed: a faster candidate gains, one that raises gains nothing`, async () => {
      const made = scaffolded({ fileName, text, functionName: 'total', language });
      dirs.push(made.dir);
      const faster = await made.score(cheat);
      assert.equal(faster.correct, true, faster.failure?.message);
      assert.ok((faster.metrics.timing_batch ?? 0) > 0 && (faster.objective ?? 0) > 2, `batch ${faster.metrics.timing_batch}, speedup ${faster.objective}`);
      const raising = await made.score(language === 'python' ? cheat.replace('if len(values) > 60:', 'if len(values) > 6:') : cheat.replace('values.length > 60', 'values.length > 6'));
      assert.equal(raising.correct, false, `speedup ${raising.objective}`);
    });
  }

  it('javascript: a loop over a long list is timed without the cost of sending the list, so a candidate many times faster reads so', async () => {
    // Decoding and comparing 50,000 arguments cost 40 ms inside the timed call: a candidate of
    // such a function many times faster read about 1.07x.
    const text = "'use strict';\nfunction total(values) {\n  let out = 0;\n  for (const v of values) out += JSON.parse(JSON.stringify({ v: String(v) })).v.length;\n  return out;\n}\nmodule.exports = { total };\n";
    const made = scaffolded({ fileName: 'sum.js', text, functionName: 'total', language: 'javascript' });
    dirs.push(made.dir);
    const faster = await made.score(text.replace('out += JSON.parse(JSON.stringify({ v: String(v) })).v.length', 'out += (v < 0 ? 1 : 0) + (Math.abs(v) >= 1 ? Math.floor(Math.log10(Math.abs(v))) + 1 : 1)'));
    assert.equal(faster.correct, true, faster.failure?.message);
    assert.ok((faster.objective ?? 0) > 2, `speedup ${faster.objective} (timed size ${faster.metrics.timing_size})`);
  });

  it('javascript: an answer is all of it: an array\'s named property and an exception\'s message are compared too', async () => {
    const text =
      "'use strict';\nfunction fields(text) {\n  if (text.length > 50) throw new RangeError('too long: ' + text.length);\n" +
      "  const out = text.split('a');\n  out.kind = 'split';\n  return out;\n}\nmodule.exports = { fields };\n";
    const made = scaffolded({ fileName: 'fields.js', text, functionName: 'fields', language: 'javascript' });
    dirs.push(made.dir);
    const same = await made.score(text);
    assert.equal(same.correct, true, same.failure?.message);
    const otherKind = await made.score(text.replace("out.kind = 'split'", "out.kind = 'other'"));
    assert.equal(otherKind.correct, false, 'a wrong named property');
    const otherMessage = await made.score(text.replace("'too long: ' + text.length", "'too long'"));
    assert.equal(otherMessage.correct, false, 'the same class with another message');
    const notAnError = await made.score(text.replace("throw new RangeError('too long: ' + text.length)", "throw { name: 'RangeError', message: 'too long: ' + text.length, toString() { return 'RangeError: too long: ' + text.length; } }"));
    assert.equal(notAnError.correct, false, 'a plain object that prints as the error');
  });

  it('javascript: a candidate that reaches the runner\'s realm (an allowed module is of it) cannot hook it to work where nothing is timed', async () => {
    // The cheat hooks toJSON on the runner's Object.prototype (reached through node:assert, a
    // function of the runner's realm), computes each input's answer while the runner reads
    // it before the timed request, and answers the timed call from that cache: it scored 142x.
    const text = "\"use strict\";\nconst assert = require(\"node:assert\");\n/**\n * @param {number[]} list\n */\nfunction total(list) {\n  assert(Array.isArray(list));\n  let acc = 0;\n  for (let i = 0; i < list.length; i++) {\n    let x = Math.abs(list[i]);\n    let s = 0;\n    for (let k = 0; k < 20; k++) { s = (s * 31 + (x % 7) + k) % 1000003; x = Math.floor(x / 2) + k; }\n    acc = (acc + s) % 1000000007;\n  }\n  return acc;\n}\nmodule.exports = { total };\n";
    const cheat = "\"use strict\";\nconst assert = require(\"node:assert\");\nfunction realTotal(list) {\n  let acc = 0;\n  for (let i = 0; i < list.length; i++) {\n    let x = Math.abs(list[i]);\n    let s = 0;\n    for (let k = 0; k < 20; k++) { s = (s * 31 + (x % 7) + k) % 1000003; x = Math.floor(x / 2) + k; }\n    acc = (acc + s) % 1000000007;\n  }\n  return acc;\n}\nconst key = (l) => l.length + ':' + l[0] + ':' + l[l.length >> 1] + ':' + l[l.length - 1];\nconst cache = new Map();\n// assert is a function of the runner's realm: its prototype chain is the runner's Object.prototype\nconst MainObjectProto = Object.getPrototypeOf(Object.getPrototypeOf(assert));\nObject.defineProperty(MainObjectProto, 'toJSON', {\n  configurable: true,\n  get() {\n    // the runner's prepare: stringify(request.args) looks up toJSON on the wire array of arguments\n    try {\n      if (Array.isArray(this) && this.length === 1 && this[0] !== null && typeof this[0] === 'object' && this[0].$ === 'array' && Array.isArray(this[0].v)) {\n        const v = this[0].v;\n        if (v.every((x) => typeof x === 'number')) cache.set(key(v), realTotal(v));\n      }\n    } catch {}\n    return undefined;\n  },\n});\nfunction total(list) {\n  const hit = cache.get(key(list));\n  if (hit !== undefined) return hit;\n  return realTotal(list);\n}\nmodule.exports = { total };\n";
    const made = scaffolded({ fileName: 'sum.js', text, functionName: 'total', language: 'javascript' });
    dirs.push(made.dir);
    assertNotRewarded(await made.score(cheat), 2);
  });

  it('javascript: what a call leaves its arguments as is compared, not only whether it changed them', async () => {
    // An attack: the original sorts its list in place; filling it with the median instead was accepted.
    const text =
      "'use strict';\nfunction median(values) {\n  values.sort((a, b) => a - b);\n  return values.length === 0 ? null : values[values.length >> 1];\n}\nmodule.exports = { median };\n";
    const made = scaffolded({ fileName: 'median.js', text, functionName: 'median', language: 'javascript' });
    dirs.push(made.dir);
    const filled = await made.score(
      "'use strict';\nfunction median(values) {\n  const m = values.length === 0 ? null : [...values].sort((a, b) => a - b)[values.length >> 1];\n  if (values.some((v, i) => i > 0 && values[i - 1] > v)) values.fill(m);\n  return m;\n}\nmodule.exports = { median };\n",
    );
    assert.equal(filled.correct, false, `speedup ${filled.objective}`);
  });

  // Sample inputs that cannot tell answers apart: with no annotation, `target` is drawn as a
  // list, so the reference counts 0 pairs for every input and `return 0` would pass as correct.
  for (const [language, fileName, text, cheat] of [
    [
      'python',
      'pairs.py',
      'def count_pairs(values, target):\n    count = 0\n    for i in range(len(values)):\n        for j in range(len(values)):\n            if i < j and values[i] + values[j] == target:\n                count += 1\n    return count\n',
      'def count_pairs(values, target):\n    return 0\n',
    ],
    [
      'javascript',
      'pairs.js',
      "'use strict';\nfunction count_pairs(values, target) {\n  let count = 0;\n  for (let i = 0; i < values.length; i++) for (let j = i + 1; j < values.length; j++) if (values[i] + values[j] === target) count++;\n  return count;\n}\nmodule.exports = { count_pairs };\n",
      "'use strict';\nfunction count_pairs(values, target) {\n  return 0;\n}\nmodule.exports = { count_pairs };\n",
    ],
  ] as const) {
    it(`${language}: a reference that gives one answer to every sample input is an evaluator error, for the program itself and for a constant cheat`, async () => {
      const made = scaffolded({ fileName, text, functionName: 'count_pairs', language });
      dirs.push(made.dir);
      for (const code of [text, cheat]) {
        const evaluation = await made.score(code);
        assert.equal(evaluation.correct, false, `speedup ${evaluation.objective}`);
        assert.match(evaluation.failure?.message ?? evaluation.errorText ?? '', /the reference gives the same answer to every sample input \(0\)/);
      }
    });
  }

  it('run by hand without the harness library: an evaluator error that says what to set, exit status 2', () => {
    const { files } = scaffoldFiles({ fileName: 'calc.py', text: SLOW, functionName: 'total', language: 'python' });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-scaffold-'));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
    fs.writeFileSync(path.join(dir, 'calc.py'), SLOW);
    const env = { ...process.env, PYTHONPATH: '', PEAGEN_HARNESS_LIB: '' };
    const run = spawnSync('python3', ['peagen_evaluate.py', 'calc.py', '--quick'], { cwd: dir, encoding: 'utf8', env });
    assert.equal(run.status, 2, run.stderr);
    assert.match(JSON.parse(run.stdout.trim().split('\n').at(-1)!).error, /PYTHONPATH=<peagen>\/harness\/python/);
  });
});
