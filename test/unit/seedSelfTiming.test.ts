/**
 * The seed timed against itself, before a run: its speedup comes with the 95% interval the
 * evaluator's rounds give (the same order statistics in the JavaScript and Python harnesses),
 * and init says so when that interval leaves out 1.0.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { selfTimingWarning } from '../../daemon/cli/commands/init';
import { REPO } from '../fixtures/paths';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { medianInterval } = require(path.join(REPO, 'harness', 'js', 'peagen-harness.js')) as { medianInterval: (xs: number[]) => [number, number] | null };

describe('the seed timed against itself', () => {
  it('a distribution-free 95% interval for the median: the binomial ranks (2nd and 10th of 11), none below 6 values; Python gives the same', () => {
    const ranks = (n: number): [number, number] | null => medianInterval(Array.from({ length: n }, (_, i) => n - i));
    assert.equal(ranks(5), null);
    assert.deepEqual(ranks(6), [1, 6]);
    assert.deepEqual(ranks(11), [2, 10]);
    assert.deepEqual(ranks(20), [6, 15]);
    const samples = [[0.9, 1.2, 1.05, 0.97, 1.01, 1.3, 0.99], [3, 1, 2, 5, 4, 6, 8, 7, 9, 10, 11, 12, 13], [1, 1, 1, 1, 1]];
    const python = execFileSync(
      'python3',
      ['-c', `import json, sys\nsys.path.insert(0, ${JSON.stringify(path.join(REPO, 'harness', 'python'))})\nfrom peagen_harness.timing import median_interval\nprint(json.dumps([median_interval(s) for s in ${JSON.stringify(samples)}]))`],
      { encoding: 'utf8' },
    );
    assert.deepEqual(JSON.parse(python), samples.map((s) => medianInterval(s)));
  });

  it('warns when the interval leaves out 1.0, by how much, either way; says nothing when it holds 1.0 or there is none', () => {
    assert.equal(selfTimingWarning({ speedup_low: 0.94, speedup_high: 1.1 }), '');
    assert.equal(selfTimingWarning({}), '');
    assert.match(selfTimingWarning({ speedup_low: 1.21, speedup_high: 1.6 }), /off by at least 1\.21x/);
    assert.match(selfTimingWarning({ speedup_low: 0.5, speedup_high: 0.8 }), /off by at least 1\.25x/);
  });
});
