/**
 * init's listing of the tests an example goes by (daemon/usecases/listedTests.ts): which failures
 * of the user's own code it may leave out, and what it writes for the evaluation to read.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Evaluation } from '../../shared/evaluation';
import { evaluateSeedListingTests } from '../../daemon/usecases/listedTests';
import { tempDir } from '../fixtures/paths';

const PASSED = ['vitest:test/a.test.ts::adds', 'vitest:test/a.test.ts::splits'];

function seedEvaluation(failedTests: string[]): Evaluation {
  return {
    correct: false,
    objective: null,
    direction: 'maximize',
    metrics: {},
    failure: { reason: 'incorrect', message: `the project's tests failed (tests passed 2/${2 + failedTests.length})` },
    failedTests,
    originalPassedTests: PASSED,
    executor: 'bwrap',
    exitCode: 0,
    wallMs: 1,
  };
}

describe('init: tests left out of an example', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('listed');
  });

  it("leaves out an error the runner pins on no test when the user's own code has it in the sandbox (ufo's Unhandled Errors)", async () => {
    const evaluations = [seedEvaluation(['vitest:(unhandled error 1)']), { ...seedEvaluation([]), correct: true, objective: 1 }];
    const { evaluation, leftOut } = await evaluateSeedListingTests(dir, 'f', async () => evaluations.shift()!, 'checking');
    assert.equal(evaluation.correct, true);
    assert.equal(leftOut?.tests, 1);
    const listed = JSON.parse(fs.readFileSync(path.join(dir, 'peagen_tests.json'), 'utf8')) as { expected: string[]; left_out: string[] };
    assert.deepEqual([listed.expected, listed.left_out], [PASSED, ['vitest:(unhandled error 1)']]);
  });

  it("leaves nothing out when a real test fails that the user's code does not pass in its own process either", async () => {
    const { evaluation, leftOut } = await evaluateSeedListingTests(dir, 'f', async () => seedEvaluation(['vitest:test/a.test.ts::joins']), 'checking');
    assert.equal(evaluation.correct, false);
    assert.equal(leftOut, undefined);
    assert.equal(fs.existsSync(path.join(dir, 'peagen_tests.json')), false);
  });
});
