/**
 * The project's tests an init'ed example's evaluation goes by, listed from the seed's evaluation
 * in the example's LISTED_TESTS_FILE, which the harness's tests gate reads
 * (peagen_harness/project_tests.py): `peagen init`'s check of the seed and the editor's "Evolve
 * this function" (initFunction.ts) both evaluate the seed through this.
 *
 * "expected": the tests the user's own code passes behind the process boundary. Every candidate
 * must pass each of them: one that does not run, or is skipped, fails (a candidate that makes a
 * test skip itself, or kills the tests' process halfway, gains nothing).
 *
 * "left_out": init's own run of the tests passed on the same code (captureCalls refuses tests
 * that fail), so a test that fails when the seed is evaluated fails only in the sandbox, with
 * the function in a process of its own: its arguments cannot cross to it (a numpy array, a
 * Buffer, a Fraction) or it reads state its own process set (humanize's activated language).
 * Such tests count neither way, and the seed is evaluated again.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Evaluation } from '../../shared/evaluation';
import { LISTED_TESTS_FILE } from '../evaluation/scaffold/scaffoldExample';

/**
 * Tests are left out only while at least this share of them still judges every candidate:
 * below it, what is left says too little (the failure and its hint are shown instead).
 */
const KEPT_TESTS_SHARE = 0.5;

export interface LeftOutTests {
  /** How many were left out, of how many the tests' runner reported. */
  tests: number;
  of: number;
  /** The example's LISTED_TESTS_FILE (absolute). */
  file: string;
}

/** One evaluation of the example's seed (`label`: what the user is told it does). */
export type EvaluateSeed = (label: string) => Promise<Evaluation>;

/**
 * The seed's evaluation, its tests listed: when it is correct, the tests it passed are listed
 * as expected; when tests fail on it only behind the process boundary and leaving them out
 * makes it correct, they are listed as left out (otherwise the file is removed again and the
 * second evaluation says what is still wrong). An example that has the file already (an
 * evaluation of it is not a check of the seed) keeps it.
 */
export async function evaluateSeedListingTests(dir: string, functionName: string, evaluate: EvaluateSeed, label: string): Promise<{ evaluation: Evaluation; leftOut?: LeftOutTests }> {
  const file = path.join(dir, LISTED_TESTS_FILE);
  const first = await evaluate(label);
  if (first.correct) {
    if (first.originalPassedTests?.length) {
      const why = `The ${first.originalPassedTests.length} tests your code passes with ${functionName}() in the sandbox (peagen init ran them): every candidate must pass each of them, and one that does not run or is skipped fails. Delete this file to count whichever tests run.`;
      writeListed(file, { why, expected: first.originalPassedTests, left_out: [] });
    }
    return { evaluation: first };
  }
  const leavable = testsToLeaveOut(first);
  if (!leavable) return { evaluation: first };
  const why = `${leavable.tests.length} of the project's ${leavable.of} tests pass on the original in their own process (peagen init ran them) but fail in the sandbox with ${functionName}() in a process of its own: their arguments cannot cross to it, or they read state their own process set. The evaluation counts them neither way ("left_out"), so no candidate is checked by them: run the project's tests on what you apply. Every candidate must pass each "expected" one. Delete this file to count whichever tests run.`;
  writeListed(file, { why, expected: leavable.expected, left_out: leavable.tests });
  const evaluation = await evaluate(`${label} again without the ${leavable.tests.length} of ${leavable.of} tests that fail only in the sandbox`);
  if (evaluation.correct) return { evaluation, leftOut: { tests: leavable.tests.length, of: leavable.of, file } };
  fs.rmSync(file, { force: true });
  return { evaluation };
}

function writeListed(file: string, listed: { why: string; expected: string[]; left_out: string[] }): void {
  fs.writeFileSync(file, `${JSON.stringify(listed, null, 2)}\n`);
}

/** What init and the editor say when tests were left out. */
export function leftOutTestsText(leftOut: LeftOutTests, functionName: string, shownFile: string): string {
  return `left out ${leftOut.tests} of ${leftOut.of} tests: they fail on your code as it is only in the sandbox, with ${functionName}() in a process of its own (their arguments cannot cross to it, or they read state their own process set); no candidate is checked by them, so run your tests on what you apply. They are listed in ${shownFile} (delete it to count them again)`;
}

/**
 * The tests the seed's evaluation failed only behind the process boundary, when they can be
 * left out: the evaluation ran the original's tests in their own process too (the harness's
 * tests_gate) and they all passed there, and the ones that did not pass behind the boundary
 * (failed, or never run: a class whose setUpClass failed) are few enough.
 * Undefined otherwise (a test that fails in the sandbox in its own process too is the
 * sandbox's, not the boundary's: nothing is left out then).
 */
/**
 * The ids the runners' reporters give a failure no test carries (harness/js's reporters; the
 * same pattern as project_tests.py's _OUTSIDE_TESTS): never among the tests the original passes,
 * and left out when the original has them in the sandbox (ufo's read-only node_modules).
 */
const OUTSIDE_TESTS = /::\(the file failed outside its tests\)$|^\w+:\((?:unhandled error|an error after the run) \d+\)$/;

function testsToLeaveOut(evaluation: Evaluation): { tests: string[]; of: number; expected: string[] } | undefined {
  const failing = new Set(evaluation.failedTests ?? []);
  const passing = evaluation.originalPassedTests ?? [];
  if (!/^the project's tests failed/.test(evaluation.failure?.message ?? '') || failing.size === 0 || passing.length === 0) return undefined;
  const expected = passing.filter((test) => !failing.has(test));
  if (expected.length < KEPT_TESTS_SHARE * passing.length || [...failing].some((test) => !passing.includes(test) && !OUTSIDE_TESTS.test(test))) return undefined;
  return { tests: [...failing], of: passing.length, expected };
}
