// A Vitest reporter (peagen-cli-reporters.js names it): one JSON line per test outcome, in the
// format of harness/python/peagen_harness/test_report.py, written when the run finishes. A
// test is named by its file relative to the working directory and its suites' and own names;
// a file that fails to load counts as one failed test of its own, and so does one that fails
// outside its tests (an afterAll hook), and each error the run caught outside any file (an
// unhandled rejection): also when some tests fail, so that a candidate cannot hide a late
// failure behind a test that fails anyway (atk7's B1). Works with Vitest 1 to 3
// (onFinished with the run's task tree) and 3 to 4 (onTestRunEnd with its test modules; Vitest
// 4 no longer calls onFinished, and 3 calls both: the first one writes).
import { appendFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const outcomeOf = (task) => {
  if (task.mode === 'skip' || task.mode === 'todo' || task.result?.state === 'skip' || task.result?.state === 'todo') return 'skipped';
  return task.result?.state === 'pass' ? 'passed' : 'failed';
};

const STATES = { passed: 'passed', failed: 'failed', skipped: 'skipped', pending: 'skipped' };

// Errors outside any test file, one failed test each (at most this many).
const MOST_UNHANDLED = 20;
const unhandledLines = (errors) =>
  (Array.isArray(errors) ? errors : []).slice(0, MOST_UNHANDLED).map((_, i) => JSON.stringify({ runner: 'vitest', id: `(unhandled error ${i + 1})`, outcome: 'failed' }));

const write = (lines) => {
  const folder = process.env.PEAGEN_TEST_REPORT_DIR;
  if (folder && lines.length > 0) appendFileSync(join(folder, `vitest-${process.pid}-${Date.now()}.jsonl`), `${lines.join('\n')}\n`);
};

export default class PeagenVitestReport {
  onTestRunEnd(testModules = [], unhandledErrors = []) {
    if (this.written) return;
    this.written = true;
    const lines = [];
    for (const module of testModules) {
      const where = relative(process.cwd(), module.moduleId || '');
      const tests = [...module.children.allTests()];
      if (tests.length === 0 && module.state() === 'failed') {
        lines.push(JSON.stringify({ runner: 'vitest', id: `${where}::(the file did not run)`, outcome: 'failed' }));
      }
      let testFailed = false;
      for (const test of tests) {
        const mode = test.options?.mode;
        const outcome = mode === 'skip' || mode === 'todo' ? 'skipped' : STATES[test.result().state] || 'failed';
        testFailed ||= outcome === 'failed';
        lines.push(JSON.stringify({ runner: 'vitest', id: `${where}::${test.fullName}`, outcome }));
      }
      // Errors of the module or of a suite in it (their hooks'), where Vitest lists them, also
      // beside a failing test; else only what the module's state says while no test failed.
      const suites = typeof module.children.allSuites === 'function' ? [...module.children.allSuites()] : [];
      const ownErrors = [module, ...suites].some((each) => typeof each.errors === 'function' && each.errors().length > 0);
      const outside = ownErrors || (!testFailed && module.state() === 'failed');
      if (tests.length > 0 && outside) {
        lines.push(JSON.stringify({ runner: 'vitest', id: `${where}::(the file failed outside its tests)`, outcome: 'failed' }));
      }
    }
    write([...lines, ...unhandledLines(unhandledErrors)]);
  }

  onFinished(files = [], errors = []) {
    if (this.written) return;
    this.written = true;
    const lines = [];
    const walk = (task, where, names) => {
      if (Array.isArray(task.tasks)) {
        for (const child of task.tasks) walk(child, where, [...names, task.name]);
        return;
      }
      lines.push(JSON.stringify({ runner: 'vitest', id: `${where}::${[...names, task.name].join(' > ')}`, outcome: outcomeOf(task) }));
    };
    for (const file of files) {
      const where = relative(process.cwd(), file.filepath || file.name || '');
      if (file.result?.state === 'fail' && (file.tasks || []).length === 0) {
        lines.push(JSON.stringify({ runner: 'vitest', id: `${where}::(the file did not run)`, outcome: 'failed' }));
      }
      const before = lines.length;
      for (const child of file.tasks || []) walk(child, where, []);
      const testFailed = lines.slice(before).some((line) => JSON.parse(line).outcome === 'failed');
      const outside = (file.result?.errors || []).length > 0 || (!testFailed && file.result?.state === 'fail');
      if (lines.length > before && outside) {
        lines.push(JSON.stringify({ runner: 'vitest', id: `${where}::(the file failed outside its tests)`, outcome: 'failed' }));
      }
    }
    write([...lines, ...unhandledLines(errors)]);
  }
}
