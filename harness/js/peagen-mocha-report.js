'use strict';
/*
 * Mocha's test outcomes in the format of harness/python/peagen_harness/test_report.py, one JSON
 * line each. Peagen preloads this file (NODE_OPTIONS=--require) into every Node process of a
 * project's test run, whatever starts mocha (`npm test`, `npx mocha`, a script): it stays inert
 * until the process loads mocha's Runner, then listens to the runner's own events. Nothing
 * printed is read. A test is named by its file relative to the working directory and its full
 * title; a failing hook counts as a failed test of its own, and so does an error thrown after the
 * run ended (an assertion in a timer that outlived its test, which no test is left to carry).
 */
const fs = require('fs');
const Module = require('module');
const path = require('path');

const folder = process.env.PEAGEN_TEST_REPORT_DIR;
const MOCHA_LIB = `${path.sep}mocha${path.sep}lib${path.sep}`;
const hooked = new WeakSet();

function hook(Runner) {
  if (typeof Runner !== 'function' || typeof Runner.prototype.run !== 'function' || hooked.has(Runner)) return;
  hooked.add(Runner);
  const run = Runner.prototype.run;
  Runner.prototype.run = function (...args) {
    const file = path.join(folder, `mocha-${process.pid}-${Date.now()}.jsonl`);
    const write = (test, outcome) => {
      let title;
      try {
        title = typeof test.fullTitle === 'function' ? test.fullTitle() : String(test.title);
      } catch {
        title = String(test && test.title);
      }
      const where = test && test.file ? path.relative(process.cwd(), test.file) : '';
      fs.appendFileSync(file, `${JSON.stringify({ runner: 'mocha', id: `${where}::${title}`, outcome })}\n`);
    };
    let lateErrors = -1; // counted once the run has ended
    this.on('end', () => {
      lateErrors = 0;
    });
    // Watched, not handled: the process still ends as it would.
    process.on('uncaughtExceptionMonitor', () => {
      if (lateErrors < 0) return;
      lateErrors += 1;
      fs.appendFileSync(file, `${JSON.stringify({ runner: 'mocha', id: `(an error after the run ${lateErrors})`, outcome: 'failed' })}\n`);
    });
    this.on('pass', (test) => write(test, 'passed'));
    this.on('fail', (test) => write(test, 'failed'));
    this.on('pending', (test) => write(test, 'skipped'));
    // `--bail` is each suite's own flag, copied from its parent: off in every suite when Peagen
    // learns which tests fail only behind the process boundary (test_report.EVERY_TEST_ENV).
    if (process.env.PEAGEN_RUN_EVERY_TEST === '1') {
      const unbail = (suite) => {
        suite._bail = false;
        (suite.suites || []).forEach(unbail);
      };
      if (this.suite) unbail(this.suite);
    }
    return run.apply(this, args);
  };
}

if (folder) {
  const load = Module._load;
  Module._load = function (request, parent) {
    const exported = load.apply(this, arguments);
    // mocha/lib/mocha.js requires './runner': only that load is looked at.
    if (/(^|\/)runner(\.js)?$/.test(request) && parent && typeof parent.filename === 'string' && parent.filename.includes(MOCHA_LIB)) hook(exported);
    return exported;
  };
}
