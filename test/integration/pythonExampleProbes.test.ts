/**
 * Every probe in examples/bad_sort/test_candidates/EXPECTED.json (and in the same file of the
 * other Python examples, dedupe_counts, holdout_lis, spread_points and trap_pairs), run through the real evaluator
 * (python3 evaluate.py --quick), must get its expected verdict: the cheats stay failing, the
 * honest fast programs stay fast, and a score computed by the evaluator stays in its band. Probes with `withoutStaticCheck` are run a second time with the static check
 * skipped, so the sandbox alone is shown to refuse them.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { REPO } from '../fixtures/paths';

/** The Python examples whose test_candidates/EXPECTED.json this file checks. */
const EXAMPLES = ['bad_sort', 'dedupe_counts', 'holdout_lis', 'spread_points', 'trap_pairs'];

interface Expected {
  correct: boolean;
  errorIncludes?: string;
  minSpeedup?: number;
  maxSpeedup?: number;
  /** Bounds on the objective of an example whose objective is a score, not a speedup. */
  minObjective?: number;
  maxObjective?: number;
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

for (const name of EXAMPLES) {
  const example = path.join(REPO, 'examples', name);
  const PROBES = path.join(example, 'test_candidates');

  const expectations = Object.entries(JSON.parse(fs.readFileSync(path.join(PROBES, 'EXPECTED.json'), 'utf8')) as Record<string, Expected | string>).filter(
    (entry): entry is [string, Expected] => !entry[0].startsWith('_'),
  );

  const evaluate = async (probe: string, extra: string[] = []): Promise<Verdict> => {
    const { stdout } = await promisify(execFile)('python3', ['evaluate.py', path.join(PROBES, probe), '--quick', ...extra], {
      cwd: example,
      env: { ...process.env, PYTHONPATH: '' }, // the evaluator's own fallback finds harness/python
      maxBuffer: 16 * 1024 * 1024,
    }); // rejects on a non-zero exit: every verdict about a candidate exits 0
    return JSON.parse(stdout.trimEnd().split('\n').pop() ?? '') as Verdict;
  };

  describe(`${name} probes (EXPECTED.json)`, function () {
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
        if (expected.minObjective !== undefined) assert.ok(verdict.objective >= expected.minObjective, `objective ${verdict.objective}`);
        if (expected.maxObjective !== undefined) assert.ok(verdict.objective <= expected.maxObjective, `objective ${verdict.objective}`);
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
}
