/**
 * "Scaffold an evaluator for <function>…": the function the selection is about, and the
 * scaffolded Python evaluator run for real on a correct, a faster and a wrong candidate.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { functionAt, scaffoldFiles } from '../../extension/evolve/scaffoldEvaluator';
import { ExampleConfigSchema } from '../../shared/evaluation';

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
});
