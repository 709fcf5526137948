// A Vitest reporter (peagen-cli-reporters.js names it): one JSON line per test outcome, in the
// format of harness/python/peagen_harness/test_report.py, written when the run finishes. A
// test is named by its file relative to the working directory and its suites' and own names;
// a file that fails to load counts as one failed test of its own, and so does one that fails
// outside its tests (an afterAll hook) while they all pass. Works with Vitest 1 to 3
// (onFinished with the run's task tree) and 3 to 4 (onTestRunEnd with its test modules; Vitest
// 4 no longer calls onFinished, and 3 calls both: the first one writes).
import { appendFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const outcomeOf = (task) => {
  if (task.mode === 'skip' || task.mode === 'todo' || task.result?.state === 'skip' || task.result?.state === 'todo') return 'skipped';
  return task.result?.state === 'pass' ? 'passed' : 'failed';
};

const STATES = { passed: 'passed', failed: 'failed', skipped: 'skipped', pending: 'skipped' };

const write = (lines) => {
  const folder = process.env.PEAGEN_TEST_REPORT_DIR;
  if (folder && lines.length > 0) appendFileSync(join(folder, `vitest-${process.pid}-${Date.now()}.jsonl`), `${lines.join('\n')}\n`);
};

export default class PeagenVitestReport {
  onTestRunEnd(testModules = []) {
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
      if (tests.length > 0 && !testFailed && module.state() === 'failed') {
        lines.push(JSON.stringify({ runner: 'vitest', id: `${where}::(the file failed outside its tests)`, outcome: 'failed' }));
      }
    }
    write(lines);
  }

  onFinished(files = []) {
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
      if (lines.length > before && !testFailed && file.result?.state === 'fail') {
        lines.push(JSON.stringify({ runner: 'vitest', id: `${where}::(the file failed outside its tests)`, outcome: 'failed' }));
      }
    }
    write(lines);
  }
}
