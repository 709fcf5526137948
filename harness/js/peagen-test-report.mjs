// A node --test reporter (Peagen names it in NODE_OPTIONS while it runs a project's tests,
// beside the reporter the user sees): one JSON line per test outcome, in the format of
// harness/python/peagen_harness/test_report.py. Suites are not tests: only their tests count.
// A test is named by its file relative to the working directory (the project's copy, in a
// new folder each run), its depth and its name.
import { relative } from 'node:path';

export default async function* peagenTestReport(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const data = event.data;
    if (data.details?.type === 'suite') continue;
    let outcome = event.type === 'test:pass' ? 'passed' : 'failed';
    if (data.skip !== undefined || data.todo !== undefined) outcome = 'skipped';
    const id = `${data.file ? relative(process.cwd(), data.file) : ''}::${data.nesting}::${data.name}`;
    yield `${JSON.stringify({ runner: 'node', id, outcome })}\n`;
  }
}
