/**
 * The Python harness library's own tests (harness/python/tests): the sandbox refuses eval
 * routes, clock patches and frame walks even under a permissive import allow-list, a
 * tampered process whose timings are impossible is rejected, and the process boundary's
 * stand-in lets only plain data of exact built-in types cross.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO } from '../fixtures/paths';

describe('peagen_harness (Python)', function () {
  this.timeout(120_000);

  for (const tests of ['test_sandbox.py', 'test_boundary.py']) {
    it(`passes its unit tests (${tests})`, () => {
      const run = spawnSync('python3', [path.join(REPO, 'harness', 'python', 'tests', tests)], { encoding: 'utf8' });
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stderr, /^OK/m);
    });
  }
});
