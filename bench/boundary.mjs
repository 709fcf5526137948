#!/usr/bin/env node
// `npm run bench:boundary`: what the process boundary of `objective: tests` costs (the
// candidate in a process of its own behind a stand-in, docs/trust.md), beside the in-process
// mode it replaced, measured side by side in one run:
//
// 1. Per call: N calls of a small function of the init fixtures (Python moving_average, JS
//    runningMax) from a judge process, through the stand-in vs imported directly. Prints the
//    median microseconds per call over the rounds and the extra cost of the boundary.
// 2. Per evaluation: `python3 -m peagen_harness.project_tests` on the fixture projects
//    (unittest; node --test), with the boundary vs with --in-process, the two interleaved round
//    by round. Prints the median seconds of each, the boundary's extra time and its share of an
//    evaluation (target: below 10%).
//
// BENCH_ROUNDS (default 5), BENCH_CALLS (default 2000) set the sizes.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const HARNESS_PY = join(REPO, 'harness', 'python');
const FIXTURES = join(REPO, 'test', 'fixtures', 'initProjects');
const env = { ...process.env, PYTHONPATH: HARNESS_PY };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs) => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;

function run(command, args, options = {}) {
  const out = spawnSync(command, args, { encoding: 'utf8', env, ...options });
  if (out.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${out.status}): ${out.stderr.slice(-2000)}`);
  return out.stdout;
}

// ---------------------------------------------------------------- 1. per call
const work = mkdtempSync(join(tmpdir(), 'peagen-bench-boundary-'));
cpSync(join(FIXTURES, 'python'), join(work, 'python'), { recursive: true });
cpSync(join(FIXTURES, 'js'), join(work, 'js'), { recursive: true });
run('python3', ['-c', `from peagen_harness.boundary import write_standin; write_standin(${JSON.stringify(join(work, 'python', 'standin_stats.py'))}, ${JSON.stringify(join(work, 'python', 'stats.py'))})`]);
writeFileSync(
  join(work, 'js', 'standin_running.js'),
  `module.exports = require(${JSON.stringify(join(REPO, 'harness', 'js', 'peagen-standin.js'))}).standin(${JSON.stringify({ candidate: join(work, 'js', 'running.js'), allow: [], callTimeoutMs: 60000, loadTimeoutMs: 30000 })});\n`,
);
const pythonCalls = (module) =>
  Number(run('python3', ['-c', `import time, ${module} as m\nm.moving_average([1, 2, 3, 4], 2)\nt = time.perf_counter()\nfor _ in range(${CALLS}): m.moving_average([1, 2, 3, 4, 5, 6, 7, 8], 3)\nprint((time.perf_counter() - t) / ${CALLS} * 1e6)`], { cwd: join(work, 'python') }));
const jsCalls = (module) =>
  Number(run(process.execPath, ['-e', `const m = require('./${module}'); m.runningMax([1, 2]); const t = process.hrtime.bigint(); for (let i = 0; i < ${CALLS}; i += 1) m.runningMax([3, 1, 4, 1, 5, 9, 2, 6]); console.log(Number(process.hrtime.bigint() - t) / ${CALLS} / 1000);`], { cwd: join(work, 'js') }));

const perCall = { python: { inside: [], boundary: [] }, js: { inside: [], boundary: [] } };
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 ? ['boundary', 'inside'] : ['inside', 'boundary'];
  for (const mode of order) {
    perCall.python[mode].push(pythonCalls(mode === 'inside' ? 'stats' : 'standin_stats'));
    perCall.js[mode].push(jsCalls(mode === 'inside' ? 'running' : 'standin_running'));
  }
}

// ---------------------------------------------------------------- 2. per evaluation
const projects = {
  python: { dir: join(work, 'eval-python'), program: 'stats.py', tests: 'python3 -m unittest', fixture: 'python' },
  js: { dir: join(work, 'eval-js'), program: 'running.js', tests: 'node --test', fixture: 'js' },
};
for (const project of Object.values(projects)) cpSync(join(FIXTURES, project.fixture), join(project.dir, 'project'), { recursive: true });
const evaluation = (project, inProcess) => {
  const started = process.hrtime.bigint();
  const out = run('python3', ['-m', 'peagen_harness.project_tests', '--tests', project.tests, '--project', 'project', '--program', project.program, ...(inProcess ? ['--in-process'] : []), join('project', project.program)], { cwd: project.dir });
  const verdict = JSON.parse(out.trimEnd().split('\n').pop());
  if (verdict.metrics.tests_passed !== verdict.metrics.tests_total) throw new Error(`the fixture's tests failed: ${verdict.error}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
};
const perEval = { python: { inside: [], boundary: [] }, js: { inside: [], boundary: [] } };
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 ? ['boundary', 'inside'] : ['inside', 'boundary'];
  for (const [name, project] of Object.entries(projects)) for (const mode of order) perEval[name][mode].push(evaluation(project, mode === 'inside'));
}
rmSync(work, { recursive: true, force: true });

console.log(`\nper call (${CALLS} calls, median of ${ROUNDS} rounds, µs per call, min–max)`);
console.log('| language | in the tests\' process | behind the boundary | extra per call |');
console.log('| --- | ---: | ---: | ---: |');
for (const [name, m] of Object.entries(perCall)) {
  console.log(`| ${name} | ${median(m.inside).toFixed(1)} (${spread(m.inside)}) | ${median(m.boundary).toFixed(1)} (${spread(m.boundary)}) | ${(median(m.boundary) - median(m.inside)).toFixed(1)} µs |`);
}
console.log(`\nper evaluation of the init fixture project (objective tests, original and candidate runs; median of ${ROUNDS} interleaved rounds, s, min–max)`);
console.log('| project | --in-process | boundary | extra | share of the evaluation (target < 10%) |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [name, m] of Object.entries(perEval)) {
  const extra = median(m.boundary) - median(m.inside);
  console.log(`| ${name} (${projects[name].tests}) | ${median(m.inside).toFixed(3)} (${spread(m.inside)}) | ${median(m.boundary).toFixed(3)} (${spread(m.boundary)}) | ${extra.toFixed(3)} s | ${((100 * extra) / median(m.boundary)).toFixed(1)}% |`);
}
