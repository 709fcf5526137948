// A node --test reporter (Peagen names it in NODE_OPTIONS while it runs a project's tests,
// beside the reporter the user sees): one JSON line per test outcome, in the format of
// harness/python/peagen_harness/test_report.py. Suites are not tests: only their tests count,
// but a suite that fails by itself (its `before` or `after` hook, not a test of it) is recorded as
// a failed test of its own, so that a failing hook fails the run (project_tests.count).
// A test is named by its file relative to the working directory (the project's copy, in a
// new folder each run), where it is written in it (line and column; its depth where Node gives
// no place) and its name: two tests of one name in two suites are two tests (a test left out
// of the evaluation by its id leaves the other in).
import { relative, resolve } from 'node:path';

// Node's own words when a test's promise or timer fails after the test ended (a forgotten
// `await`): no test fails for it, only the run's exit status; the test it names fails here.
const LATE_FAILURE = /^Error: Test "(.*)" at (.+):(\d+):(\d+) generated asynchronous activity after the test ended/s;

export default async function* peagenTestReport(source) {
  for await (const event of source) {
    if (event.type === 'test:diagnostic') {
      const late = LATE_FAILURE.exec(String(event.data?.message ?? ''));
      const where = late ? relative(process.cwd(), resolve(late[2])) : '';
      if (late) yield `${JSON.stringify({ runner: 'node', id: `${where}::${late[3]}:${late[4]}::${late[1]}`, outcome: 'failed' })}\n`;
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const data = event.data;
    if (data.details?.type === 'suite' && (event.type === 'test:pass' || data.details?.error?.failureType === 'subtestsFailed')) continue;
    let outcome = event.type === 'test:pass' ? 'passed' : 'failed';
    if (data.skip !== undefined || data.todo !== undefined) outcome = 'skipped';
    const place = data.line === undefined ? data.nesting : `${data.line}:${data.column}`;
    const id = `${data.file ? relative(process.cwd(), data.file) : ''}::${place}::${data.name}`;
    yield `${JSON.stringify({ runner: 'node', id, outcome })}\n`;
  }
}
