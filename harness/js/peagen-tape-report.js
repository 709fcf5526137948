'use strict';
/*
 * tape's test outcomes in the format of harness/python/peagen_harness/test_report.py, one JSON
 * line per test (not per assertion). Peagen preloads this file (NODE_OPTIONS=--require) into
 * every Node process of a project's test run: it stays inert until the process loads tape's
 * Test, then records each test as it ends: passed when all its assertions held, skipped for
 * `t.skip`/`todo`. A test that never ends (a throw, a hang) writes nothing and counts as failed.
 * tape runs every file in one process and a test does not know its file: a test is named by
 * its name and, when names repeat, by which of them it is (in the order tape runs them).
 */
const fs = require('fs');
const Module = require('module');
const path = require('path');

const folder = process.env.PEAGEN_TEST_REPORT_DIR;
const TAPE_TEST = `${path.sep}tape${path.sep}lib${path.sep}test.js`;
const hooked = new WeakSet();

function hook(Test) {
  if (typeof Test !== 'function' || typeof Test.prototype._end !== 'function' || hooked.has(Test)) return;
  hooked.add(Test);
  const file = path.join(folder, `tape-${process.pid}-${Date.now()}.jsonl`);
  const seen = new Map(); // name -> how many tests of that name have ended
  const ended = new WeakSet();
  const end = Test.prototype._end;
  Test.prototype._end = function (...args) {
    const result = end.apply(this, args);
    if (!ended.has(this)) {
      ended.add(this);
      const name = String(this.name);
      const nth = (seen.get(name) || 0) + 1;
      seen.set(name, nth);
      const outcome = this._skip || this._todo ? 'skipped' : this._ok ? 'passed' : 'failed';
      fs.appendFileSync(file, `${JSON.stringify({ runner: 'tape', id: nth === 1 ? name : `${name} #${nth}`, outcome })}\n`);
    }
    return result;
  };
}

if (folder) {
  const load = Module._load;
  Module._load = function (request, parent) {
    const exported = load.apply(this, arguments);
    // tape/index.js requires './lib/test': only that load is looked at.
    if (/(^|\/)lib\/test(\.js)?$/.test(request) && parent && typeof parent.filename === 'string' && parent.filename.includes(`${path.sep}tape${path.sep}`)) {
      try {
        if (Module._resolveFilename(request, parent).endsWith(TAPE_TEST)) hook(exported);
      } catch {
        // not tape's
      }
    }
    return exported;
  };
}
