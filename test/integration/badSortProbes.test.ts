/**
 * Every probe in examples/bad_sort/test_candidates/EXPECTED.json, run through the real
 * evaluator (python3 evaluate.py --quick), must get its expected verdict: the cheats stay
 * failing, the honest fast programs stay fast. Probes with `withoutStaticCheck` are run a
 * second time with the static check skipped, so the sandbox alone is shown to refuse them.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { REPO } from '../fixtures/paths';

const BAD_SORT = path.join(REPO, 'examples', 'bad_sort');
const PROBES = path.join(BAD_SORT, 'test_candidates');

interface Expected {
  correct: boolean;
  errorIncludes?: string;
  minSpeedup?: number;
  maxSpeedup?: number;
  /** Timing rounds (`--repeats`) where a narrow band is asserted. */
  repeats?: number;
  withoutStaticCheck?: { errorIncludes: string };
}
interface Verdict {
  correct: boolean;
  objective: number;
  error?: string;
  metrics: Record<string, unknown>;
}

const expectations = Object.entries(JSON.parse(fs.readFileSync(path.join(PROBES, 'EXPECTED.json'), 'utf8')) as Record<string, Expected | string>).filter(
  (entry): entry is [string, Expected] => !entry[0].startsWith('_'),
);

async function evaluate(probe: string, extra: string[] = []): Promise<Verdict> {
  const { stdout } = await promisify(execFile)('python3', ['evaluate.py', path.join(PROBES, probe), '--quick', ...extra], {
    cwd: BAD_SORT,
    env: { ...process.env, PYTHONPATH: '' }, // the evaluator's own fallback finds harness/python
    maxBuffer: 16 * 1024 * 1024,
  }); // rejects on a non-zero exit: every verdict about a candidate exits 0
  return JSON.parse(stdout.trimEnd().split('\n').pop() ?? '') as Verdict;
}

describe('bad_sort probes (EXPECTED.json)', function () {
  this.timeout(60_000);

  it('lists every probe file, and only existing ones', () => {
    const files = fs.readdirSync(PROBES).filter((f) => f.endsWith('.py'));
    const listed = new Set(expectations.map(([file]) => file));
    assert.deepEqual(files.filter((f) => !listed.has(f)), []);
    for (const [file] of expectations) assert.ok(fs.existsSync(path.join(PROBES, file)), file);
  });

  for (const [file, expected] of expectations) {
    it(`${file}: ${expected.correct ? 'correct' : `rejected (${expected.errorIncludes})`}`, async () => {
      const verdict = await evaluate(file, expected.repeats ? ['--repeats', String(expected.repeats)] : []);
      assert.equal(verdict.correct, expected.correct, verdict.error);
      if (!expected.correct) {
        assert.equal(verdict.objective, 0);
        assert.ok(verdict.error?.includes(expected.errorIncludes ?? ''), `error: ${verdict.error}`);
      }
      if (expected.minSpeedup !== undefined) assert.ok(verdict.objective >= expected.minSpeedup, `speedup ${verdict.objective}`);
      if (expected.maxSpeedup !== undefined) assert.ok(verdict.objective <= expected.maxSpeedup, `speedup ${verdict.objective}`);
    });

    const sandboxOnly = expected.withoutStaticCheck;
    if (sandboxOnly) {
      it(`${file}: the sandbox alone refuses it too (${sandboxOnly.errorIncludes})`, async () => {
        const verdict = await evaluate(file, ['--no-static-check']);
        assert.equal(verdict.correct, false);
        assert.ok(verdict.error?.includes(sandboxOnly.errorIncludes), `error: ${verdict.error}`);
      });
    }
  }
});
