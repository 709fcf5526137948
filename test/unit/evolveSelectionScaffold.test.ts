/**
 * "Scaffold an evaluator for <function>…": the function the selection is about, and the
 * scaffolded Python and JavaScript evaluators run for real on a correct, a faster and a wrong
 * candidate.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { functionAt, scaffoldFiles } from '../../extension/evolve/scaffoldEvaluator';
import { ExampleConfigSchema } from '../../shared/evaluation';

const FIB_JS = path.join(__dirname, '..', '..', '..', 'examples', 'slow_fib_js', 'fib.js');
const SLOW = ['def total(values: list[int]) -> int:', '    out = 0', '    for v in values:', '        for _ in range(50):', '            pass', '        out += v', '    return out', ''].join('\n');

describe('Evolve Selection: scaffolded evaluators', function () {
  this.timeout(60_000);

  it('names the function whose body is selected, or the outermost one defined in the selection', () => {
    const lines = SLOW.split('\n');
    assert.equal(functionAt(lines, { startLine: 1, endLine: 6 }, 'python'), 'total');
    assert.equal(functionAt(['x = 1', 'def a():', '    def b():', '        pass'], { startLine: 1, endLine: 4 }, 'python'), 'a');
    assert.equal(functionAt(['const f = (a) => {', '  return a;', '};'], { startLine: 1, endLine: 2 }, 'javascript'), 'f');
    assert.equal(functionAt(['export function fib(n) {', '  return n;', '}'], { startLine: 1, endLine: 2 }, 'javascript'), 'fib');
    assert.equal(functionAt(['x = 1', 'y = 2'], { startLine: 0, endLine: 2 }, 'python'), undefined);
  });

  it('the Python evaluator: a valid peagen.example.json; correct and faster scores above 1, a wrong answer fails', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-scaffold-'));
    try {
      const { files, config } = scaffoldFiles({ fileName: 'calc.py', text: SLOW, functionName: 'total', language: 'python' });
      assert.ok(ExampleConfigSchema.safeParse(JSON.parse(files['peagen.example.json']!)).success);
      for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
      fs.writeFileSync(path.join(dir, 'calc.py'), SLOW);
      const score = (code: string): { correct: boolean; objective: number; error?: string } => {
        const candidate = path.join(dir, 'candidate.py');
        fs.writeFileSync(candidate, code);
        const args = config.evaluator.slice(1).map((arg) => arg.replace('{program}', candidate));
        const run = spawnSync(config.evaluator[0]!, [...args, '--quick'], { cwd: dir, encoding: 'utf8' });
        assert.equal(run.status, 0, run.stderr);
        return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { correct: boolean; objective: number };
      };
      assert.equal(score(SLOW).correct, true);
      const fast = score('def total(values: list[int]) -> int:\n    return sum(values)\n');
      assert.equal(fast.correct, true, fast.error);
      assert.ok(fast.objective > 2, `speedup ${fast.objective}`);
      const wrong = score('def total(values: list[int]) -> int:\n    return 0\n');
      assert.equal(wrong.correct, false);
      assert.match(wrong.error ?? '', /answered 0, the reference/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the JavaScript evaluator for fib() of examples/slow_fib_js: the program as it is scores correct, a faster one above 1, wrong answers fail', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-scaffold-js-'));
    try {
      const text = fs.readFileSync(FIB_JS, 'utf8');
      const program = path.join(dir, 'fib.js');
      fs.writeFileSync(program, text);
      const lines = text.split('\n');
      const def = lines.findIndex((line) => line.startsWith('function fib('));
      const functionName = functionAt(lines, { startLine: def + 1, endLine: def + 5 }, 'javascript');
      assert.equal(functionName, 'fib');
      const { files, config } = scaffoldFiles({ fileName: 'fib.js', text, functionName, language: 'javascript' });
      assert.ok(ExampleConfigSchema.safeParse(JSON.parse(files['peagen.example.json']!)).success);
      assert.deepEqual(config.evaluator, ['node', 'peagen_evaluate.js', '{program}']);
      for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
      const score = (file: string): { correct: boolean; objective: number; error?: string } => {
        const args = config.evaluator.slice(1).map((arg) => arg.replace('{program}', file));
        const run = spawnSync(config.evaluator[0]!, [...args, '--quick'], { cwd: dir, encoding: 'utf8' });
        assert.equal(run.status, 0, run.stderr);
        return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { correct: boolean; objective: number; error?: string };
      };
      const same = score(program);
      assert.equal(same.correct, true, same.error);
      assert.ok(same.objective > 0, `speedup ${same.objective}`);

      const fast = path.join(dir, 'fast.js');
      fs.writeFileSync(fast, "'use strict';\nfunction fib(n) {\n  let a = 0n;\n  let b = 1n;\n  for (let i = 0; i < n; i++) [a, b] = [b, a + b];\n  return a;\n}\nmodule.exports = { fib };\n");
      const faster = score(fast);
      assert.equal(faster.correct, true, faster.error);
      assert.ok(faster.objective > 2, `speedup ${faster.objective}`);

      fs.writeFileSync(program, text.replace('if (m < 2) return toBig(m);', 'if (m < 2) return toBig(m + 1);'));
      const wrong = score(program);
      assert.equal(wrong.correct, false);
      assert.match(wrong.error ?? '', /^call 1 of fib answered "\d+n", the reference "\d+n"$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
