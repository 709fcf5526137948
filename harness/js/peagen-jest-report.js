'use strict';
/*
 * A Jest reporter (peagen-cli-reporters.js names it): one JSON line per test outcome, in the
 * format of harness/python/peagen_harness/test_report.py. A test is named by its file relative
 * to the working directory and its full name; a test file that fails to run at all counts as
 * one failed test of its own, and so does one that fails outside its tests (an afterAll hook)
 * while they all pass. An error thrown after the run ended (an assertion in a timer that
 * outlived its test, which crashes Jest after its summary: atk7's B1) counts as one more failed
 * test, also when some tests failed anyway. Works with Jest 26 to 30 (onTestResult).
 */
const fs = require('fs');
const path = require('path');

const OUTCOMES = { passed: 'passed', failed: 'failed', pending: 'skipped', todo: 'skipped', skipped: 'skipped', disabled: 'skipped', focused: 'passed' };

class PeagenJestReport {
  constructor() {
    this.file = path.join(process.env.PEAGEN_TEST_REPORT_DIR || '.', `jest-${process.pid}-${Date.now()}.jsonl`);
    this.runEnded = false;
    this.lateErrors = 0;
    // Watched, not handled: the process still ends as it would. While the tests run, Jest pins
    // such an error on a test itself; after the run nothing does.
    process.on('uncaughtExceptionMonitor', () => {
      if (!this.runEnded || !process.env.PEAGEN_TEST_REPORT_DIR) return;
      this.lateErrors += 1;
      const line = JSON.stringify({ runner: 'jest', id: `(an error after the run ${this.lateErrors})`, outcome: 'failed' });
      fs.appendFileSync(this.file, `${line}\n`);
    });
  }

  onRunComplete() {
    this.runEnded = true;
  }

  onTestResult(test, result) {
    const where = path.relative(process.cwd(), result.testFilePath || (test && test.path) || '');
    const lines = [];
    const write = (id, outcome) => lines.push(JSON.stringify({ runner: 'jest', id: `${where}::${id}`, outcome }));
    const ran = (result.testResults || []).length > 0;
    if (result.testExecError && !ran) write('(the file did not run)', 'failed');
    for (const each of result.testResults || []) {
      write(each.fullName || [...(each.ancestorTitles || []), each.title].join(' '), OUTCOMES[each.status] || 'failed');
    }
    const testFailed = (result.testResults || []).some((each) => (OUTCOMES[each.status] || 'failed') === 'failed');
    if (ran && !testFailed && (result.testExecError || result.failureMessage || result.numFailingTests > 0)) write('(the file failed outside its tests)', 'failed');
    if (process.env.PEAGEN_TEST_REPORT_DIR && lines.length > 0) fs.appendFileSync(this.file, `${lines.join('\n')}\n`);
  }
}

module.exports = PeagenJestReport;
