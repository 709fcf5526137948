/**
 * Every probe in examples/trap_windows_js/test_candidates/EXPECTED.json, run through the real
 * evaluator (--quick): the wrong, crashing and hanging programs stay rejected, the cheats (forged
 * results, patched clocks, a cache across calls, clock forgery through toJSON) keep failing or
 * earn nothing beyond the side branch's Set per window, and the running count stays far ahead.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from '../fixtures/paths';

const EXAMPLE = path.join(REPO, 'examples', 'trap_windows_js');
const PROBES = path.join(EXAMPLE, 'test_candidates');

interface Expectation {
  correct: boolean;
  errorIncludes?: string;
  minSpeedup?: number;
  maxSpeedup?: number;
  /** Timing rounds (`--repeats`) where a narrow band is asserted. */
  repeats?: number;
}

interface Verdict {
  correct: boolean;
  objective: number;
  error?: string;
  metrics: Record<string, number>;
}

function evaluate(probe: string, extra: string[] = []): Promise<{ status: number; verdict: Verdict }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['evaluate.js', path.join(PROBES, probe), '--quick', ...extra], { cwd: EXAMPLE, timeout: 90_000 }, (err, stdout) => {
      const status = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      const last = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve({ status, verdict: JSON.parse(last) as Verdict });
      } catch {
        reject(new Error(`no verdict line from ${probe} (status ${status}): ${stdout.slice(-500)}`));
      }
    });
  });
}

const expected = JSON.parse(fs.readFileSync(path.join(PROBES, 'EXPECTED.json'), 'utf8')) as Record<string, Expectation | string>;

describe('trap_windows_js probes (EXPECTED.json)', function () {
  this.timeout(120_000);

  for (const [probe, want] of Object.entries(expected)) {
    if (typeof want === 'string') continue; // _comment
    it(`${probe}: ${want.correct ? 'correct' : `rejected (${want.errorIncludes})`}`, async () => {
      const { status, verdict } = await evaluate(probe, want.repeats ? ['--repeats', String(want.repeats)] : []);
      assert.equal(status, 0, `a verdict about the candidate exits 0: ${verdict.error}`);
      assert.equal(verdict.correct, want.correct, verdict.error ?? `speedup ${verdict.metrics.speedup}`);
      if (!want.correct) assert.equal(verdict.objective, 0);
      if (want.errorIncludes !== undefined) assert.ok((verdict.error ?? '').includes(want.errorIncludes), `error: ${verdict.error}`);
      if (want.minSpeedup !== undefined) assert.ok(verdict.objective >= want.minSpeedup, `speedup ${verdict.objective} < ${want.minSpeedup}`);
      if (want.maxSpeedup !== undefined) assert.ok(verdict.objective <= want.maxSpeedup, `speedup ${verdict.objective} > ${want.maxSpeedup}`);
    });
  }

  it('lists every probe file, so a new cheat cannot go unchecked', () => {
    const files = fs.readdirSync(PROBES).filter((f) => f.endsWith('.js'));
    assert.deepEqual(files.filter((f) => !(f in expected)), []);
  });
});
