#!/usr/bin/env node
// `npm test`: every suite, one summary, on a 2-core machine in well under 20 minutes.
//
//   node test/run.mjs [static] [unit] [integration] [e2e]   (no group: all four)
//   node test/run.mjs soak                                  (`npm run test:soak`)
//   node test/run.mjs bench                                 (`npm run bench:check`)
//
// 1. The static gates (types, lint, the import rules of docs/architecture.md) side by side,
//    each one test.
// 2. What the suites need, once for the whole run: Prometheus and bubblewrap (Debian's
//    packages), a private Docker engine and its sandbox image (test/runner/fixtures.mjs).
// 3. The integration files in lane processes (test/runner/lane.mjs), two at a time, the unit
//    suite as one of them (and the files of plan.mjs's BESIDE list, which mostly wait, in a lane
//    of their own beside them); then the unit files of plan.mjs's UNIT_ALONE list and the
//    files of its ALONE list one by one with nothing beside them (they assert on measured speed
//    or deadlines, or rebuild the checkout).
// 4. The VS Code end-to-end suite in a real VS Code (test/e2e/runE2E.mjs), alone.
//
// `soak` runs the robustness files of plan.mjs's SOAK list at full size (PEAGEN_SOAK=1), one at
// a time; `npm test` runs them at smoke size. `bench` checks the benchmarks' own data (the move
// tables of bench/moves: test/bench), which the product does not read.
//
// The last lines say where the time went (per group, the ten slowest files; every file's time
// in test-artifacts/test-times.json), then `N passed, N failed` over all suites; the exit code is
// 1 if anything failed. Everything a test started is ended at the end, and after Ctrl-C.
// PEAGEN_TEST_LANES (default 2) sets how many lanes run side by side; PEAGEN_TEST_ONLY=a,b keeps
// only the test files whose names contain a or b.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode } from '../scripts/provision/node.mjs';
import { startDockerEngine, stopDockerEngine } from './runner/fixtures.mjs';
import { ALONE, BESIDE, SOAK, UNIT_ALONE } from './runner/plan.mjs';
import { MARKER, killMarked } from './runner/processes.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Peagen supports the current Node LTS lines (22 and 24: package.json's engines). On an older
// Node (a fresh Debian machine has 20, past its end of life) the suites run on the registry's
// official Node 24 binary instead, first on PATH so every process they start uses it too.
if (Number(process.versions.node.split('.')[0]) < 22) {
  const node = ensureNode(24);
  console.log(`Node ${process.version} is older than Peagen supports: running the tests on ${node}`);
  const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}` };
  const child = spawnSync(node, process.argv.slice(1), { stdio: 'inherit', env });
  process.exit(child.status ?? 1);
}

const GROUPS = ['static', 'unit', 'integration', 'e2e', 'soak', 'bench'];
const groups = process.argv.slice(2);
for (const group of groups) {
  if (!GROUPS.includes(group)) {
    console.error(`unknown group ${group}: one or more of ${GROUPS.join(', ')}`);
    process.exit(2);
  }
}
const wants = (group) => (groups.length === 0 ? !['soak', 'bench'].includes(group) : groups.includes(group));
/** Lanes that run side by side (PEAGEN_TEST_LANES; 1 runs everything one file at a time). */
const LANES = Number(process.env.PEAGEN_TEST_LANES ?? 2);
if (!Number.isInteger(LANES) || LANES < 1) {
  console.error(`PEAGEN_TEST_LANES=${process.env.PEAGEN_TEST_LANES}: a whole number of lanes, 1 or more`);
  process.exit(2);
}

const RUN_ID = randomUUID();
process.env[MARKER] = RUN_ID;
const scratch = mkdtempSync(join(tmpdir(), 'peagen-test-run-'));

const totals = { passed: 0, failed: 0 };
// What failed, repeated at the end: a CI log is often read from its tail only.
const failures = [];
/** Something failed that is not a counted test (a gate, a provisioning step, an empty suite). */
function fail(what) {
  failures.push(what);
  totals.failed += 1;
}
const groupSeconds = [];
const fileSeconds = new Map();
const seconds = (since) => (Date.now() - since) / 1000;
// Rounded to the second first: 359.6 s is 6m00s, not 5m60s.
const minutes = (value) => {
  const whole = Math.round(value);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
};

async function timed(group, work) {
  if (stopping) return undefined;
  const started = Date.now();
  try {
    return await work();
  } finally {
    groupSeconds.push([group, seconds(started)]);
  }
}

// ------------------------------------------------------------------------------ child processes

/** Every child we wait for, so that Ctrl-C can end them. */
const children = new Set();
/** Set by Ctrl-C (or SIGTERM, SIGHUP). */
let stopping = false;

/**
 * Runs a command with its output into `logFile` (and on to ours as well with `tee`); resolves
 * with its exit code.
 */
function runChild(command, args, { logFile, env = {}, tee = false }) {
  return new Promise((done) => {
    // After Ctrl-C nothing new starts (the pools would otherwise take their next file).
    if (stopping) return done(130);
    const out = createWriteStream(logFile);
    const child = spawn(command, args, {
      cwd: REPO,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.add(child);
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    if (tee) child.stdout.on('data', (chunk) => process.stdout.write(chunk));
    if (tee) child.stderr.on('data', (chunk) => process.stdout.write(chunk));
    child.once('close', (code, signal) => {
      children.delete(child);
      out.end(() => done(code ?? (signal ? 128 : 1)));
    });
  });
}

const signalGroups = (signal) => {
  for (const child of children) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // gone already
    }
  }
};
/** Ends what is still running: after Ctrl-C, lanes get SIGTERM and 10 s to run their after hooks. */
async function cleanUp() {
  if (children.size > 0) {
    signalGroups('SIGTERM');
    for (let waited = 0; children.size > 0 && waited < 10_000; waited += 100) await new Promise((done) => setTimeout(done, 100));
    signalGroups('SIGKILL');
  }
  await stopDockerEngine();
  const left = killMarked(RUN_ID);
  if (left.length > 0) console.log(`\nended ${left.length} process(es) the tests left running:\n${left.map((line) => `  ${line}`).join('\n')}`);
  rmSync(scratch, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping every test process and fixture`);
    void cleanUp().finally(() => process.exit(130));
  });
}

// ------------------------------------------------------------------------------ static gates

/** A static gate: one test that passes when the command exits 0 (its output shows why not). */
async function runGate(name, script, args) {
  const started = Date.now();
  const logFile = join(scratch, `gate-${name.split(':')[0]}.log`);
  const status = await runChild(process.execPath, [join(REPO, 'node_modules', script), ...args], { logFile });
  if (stopping) return;
  const output = readFileSync(logFile, 'utf8').trimEnd();
  console.log(`\n--- ${name}${output ? `\n${output}` : ''}`);
  if (status === 0) {
    totals.passed += 1;
    console.log(`  ✔ ${name} (${seconds(started).toFixed(1)} s)`);
  } else {
    fail(`static: ${name} (exit ${status})`);
    console.log(`  ✘ ${name} failed (exit ${status}, ${seconds(started).toFixed(1)} s)`);
  }
}

// ------------------------------------------------------------------------------ mocha lanes

/** PEAGEN_TEST_ONLY=evolveRun,cli: only the files whose names contain one of these. */
const ONLY = (process.env.PEAGEN_TEST_ONLY ?? '').split(',').filter(Boolean);

/** Compiled test files (`*.test.js`) below `dir` (under out/, written by the build). */
function testFiles(dir) {
  const root = join(REPO, 'out', 'test', dir);
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true })
    .filter((file) => file.endsWith('.test.js') && (ONLY.length === 0 || ONLY.some((part) => file.includes(part))))
    .sort()
    .map((file) => join(root, file));
}

let laneCount = 0;
/** Runs `files` in one lane process; prints its output when it ends and counts its results. */
async function runLane(name, files, env = {}) {
  const id = ++laneCount;
  const logFile = join(scratch, `lane-${id}.log`);
  const resultFile = join(scratch, `lane-${id}.json`);
  const started = Date.now();
  const code = await runChild(process.execPath, [join(REPO, 'test', 'runner', 'lane.mjs'), resultFile, ...files], { logFile, env });
  // After Ctrl-C the run reports nothing more: its scratch directory is being removed.
  if (stopping) return;
  const took = seconds(started);
  console.log(`\n--- ${name} (${took.toFixed(1)} s)`);
  process.stdout.write(readFileSync(logFile, 'utf8'));
  let result;
  try {
    result = JSON.parse(readFileSync(resultFile, 'utf8'));
  } catch {
    fail(`${name}: the lane ended (exit ${code}) without its results; see its output above`);
    fileSeconds.set(files.length === 1 ? relative(REPO, files[0]) : name, took);
    return;
  }
  totals.passed += result.passed;
  totals.failed += result.failed;
  failures.push(...result.failures.map((line) => `${name}: ${line}`));
  for (const [file, time] of Object.entries(result.files)) fileSeconds.set(relative(REPO, file), time);
  if (result.tests === 0) fail(`${name}: no tests were found`);
}

/** Runs the jobs `lanes` at a time, each when a lane is free, longest first when times are known. */
async function runPool(jobs, lanes) {
  const queue = [...jobs];
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) await runLane(job.name, job.files, job.env);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, queue.length) }, worker));
}

/** Seconds each file took in the previous run on this machine, to start the longest first. */
function previousTimes() {
  try {
    return JSON.parse(readFileSync(join(REPO, 'test-artifacts', 'test-times.json'), 'utf8')).files ?? {};
  } catch {
    return {};
  }
}

const fileJob = (group, file) => ({ name: `${group}/${relative(join(REPO, 'out', 'test', group), file)}`, files: [file] });

// ------------------------------------------------------------------------------ e2e

async function runE2E() {
  console.log('\n=== VS Code end-to-end (code-server + Chromium) ===');
  const logFile = join(scratch, 'e2e.log');
  const started = Date.now();
  // The .vsix the packaging test built from these sources, when it ran (else runE2E packages one).
  const env = existsSync(VSIX) ? { PEAGEN_E2E_VSIX: VSIX } : {};
  // Its output is streamed (the e2e driver logs its progress as it goes) and kept for the summary.
  const code = await runChild(process.execPath, [join(REPO, 'test', 'e2e', 'runE2E.mjs'), '--skip-build'], { logFile, env, tee: true });
  if (stopping) return;
  fileSeconds.set('test/e2e (code-server + Chromium)', seconds(started));
  const lines = readFileSync(logFile, 'utf8').trim().split('\n');
  const summary = /^(\d+) passed, (\d+) failed/.exec(lines.findLast((line) => /^\d+ passed, \d+ failed/.test(line)) ?? '');
  if (summary) {
    totals.passed += Number(summary[1]);
    totals.failed += Number(summary[2]);
  }
  if (summary && Number(summary[2]) > 0) failures.push(`e2e: ${summary[2]} failed (see "E2E-SUMMARY" and the ✘ lines above)`);
  if (code !== 0 && (!summary || Number(summary[2]) === 0)) fail(`e2e: exit ${code} without a failed test`);
}

// ------------------------------------------------------------------------------ the run

/** A provisioning script of scripts/provision; its failure fails the run. */
function provision(what, script) {
  if (spawnSync(process.execPath, [join(REPO, 'scripts', 'provision', script)], { stdio: 'inherit' }).status !== 0) fail(`provisioning ${what}`);
}

const runStarted = Date.now();
if (wants('static')) {
  await timed('static gates (side by side)', async () => {
    console.log('\n=== static gates ===');
    await Promise.all([
      runGate('types: tsc --noEmit', 'typescript/bin/tsc', ['--noEmit', '-p', '.']),
      // No --cache: its type-aware rules would keep a file's old verdict when a type it imports changes.
      runGate('lint: eslint .', 'eslint/bin/eslint.js', ['.']),
      runGate('imports: no cycles, extension and daemon meet only in shared/, layers point one way (dependency-cruiser)', 'dependency-cruiser/bin/dependency-cruise.mjs', ['daemon', 'shared', 'extension', '--config', '.dependency-cruiser.cjs']),
    ]);
  });
}

const mochaGroups = ['unit', 'integration', 'soak'].filter(wants);
let dockerHost;
if (mochaGroups.length > 0) {
  await timed('fixtures: Prometheus, bubblewrap, a Docker engine and its image', async () => {
    console.log('\n=== fixtures, once for the run ===');
    // The alert rules are checked by promtool (unit) and fire in a real Prometheus (integration).
    provision('Prometheus', 'prometheus.mjs');
    if (wants('integration') || wants('soak')) {
      provision('bubblewrap', 'bwrap.mjs');
      try {
        dockerHost = await startDockerEngine(REPO);
      } catch (error) {
        fail(`starting the Docker engine: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  });
}
// The packaging test leaves the .vsix it built here; the end-to-end suite installs it.
const VSIX = join(scratch, 'peagen.vsix');
const laneEnv = { PEAGEN_TEST_VSIX: VSIX, ...(dockerHost && { PEAGEN_TEST_DOCKER_HOST: dockerHost }) };

if (wants('unit') || wants('integration')) {
  const previous = previousTimes();
  const byTime = (a, b) => (previous[relative(REPO, b.files[0])] ?? 0) - (previous[relative(REPO, a.files[0])] ?? 0);
  const integration = wants('integration') ? testFiles('integration') : [];
  const named = (file) => relative(join(REPO, 'out', 'test', 'integration'), file);
  const unknown = ONLY.length === 0 ? [...ALONE, ...BESIDE].filter((name) => !integration.some((file) => named(file) === name)) : [];
  const unknownUnit = ONLY.length === 0 && wants('unit') ? UNIT_ALONE.filter((name) => !testFiles('unit').some((file) => relative(join(REPO, 'out', 'test', 'unit'), file) === name)) : [];
  if (unknownUnit.length > 0) fail(`test/runner/plan.mjs names unit files that do not exist: ${unknownUnit.join(', ')}`);
  if (wants('integration') && unknown.length > 0) fail(`test/runner/plan.mjs names integration files that do not exist: ${unknown.join(', ')}`);
  const job = (file) => ({ ...fileJob('integration', file), env: laneEnv });
  const alone = integration.filter((file) => ALONE.includes(named(file))).map(job);
  const beside = integration.filter((file) => BESIDE.includes(named(file))).map(job);
  const shared = integration.filter((file) => !ALONE.includes(named(file)) && !BESIDE.includes(named(file))).map(job).sort(byTime);
  if (wants('unit')) {
    const unit = testFiles('unit');
    const unitNamed = (file) => relative(join(REPO, 'out', 'test', 'unit'), file);
    if (unit.length === 0) fail('unit: no tests were found: did the build run?');
    else {
      // The unit files share a lane each way: each is quick, and a lane's start costs more than
      // most of them. Those of plan.mjs's UNIT_ALONE (they time evaluations or deadlines) run
      // alone; the rest share the integration lanes.
      const timing = unit.filter((file) => UNIT_ALONE.includes(unitNamed(file)));
      const rest = unit.filter((file) => !UNIT_ALONE.includes(unitNamed(file)));
      if (timing.length > 0) alone.unshift({ name: 'unit (timing)', files: timing, env: laneEnv });
      if (rest.length > 0) shared.unshift({ name: 'unit', files: rest, env: laneEnv });
    }
  }
  if (wants('integration') && integration.length === 0) fail('integration: no tests were found: did the build run?');
  if (shared.length + beside.length > 0) {
    const besideText = beside.length > 0 ? `, and ${beside.length} that mostly wait${beside.length === 1 ? 's' : ''} beside them` : '';
    const lanes = (count) => `${count} lane${count === 1 ? '' : 's'}`;
    await timed(`integration and unit, ${lanes(LANES)} side by side (${lanes(shared.length)})${besideText}`, async () => {
      console.log(`\n=== integration and unit: ${lanes(shared.length)}, ${LANES} at a time${besideText} ===`);
      await Promise.all([runPool(shared, LANES), runPool(beside, 1)]);
    });
  }
  if (alone.length > 0) {
    await timed(`unit and integration's speed and deadline files, one at a time (${alone.length} lanes)`, async () => {
      console.log('\n=== unit, and integration files about speed and deadlines: one at a time ===');
      await runPool(alone, 1);
    });
  }
}

if (wants('soak')) {
  await timed('soak: robustness runs at full size, one at a time', async () => {
    console.log('\n=== soak: the robustness runs at full size (PEAGEN_SOAK=1) ===');
    const files = SOAK.map((file) => join(REPO, 'out', 'test', file));
    const missing = files.filter((file) => !existsSync(file));
    if (missing.length > 0) fail(`soak: missing ${missing.map((file) => relative(REPO, file)).join(', ')}: did the build run?`);
    const jobs = files.filter((file) => existsSync(file)).map((file) => ({ name: relative(join(REPO, 'out', 'test'), file), files: [file], env: { ...laneEnv, PEAGEN_SOAK: '1' } }));
    await runPool(jobs, 1);
  });
}

if (wants('bench')) {
  await timed('bench: the benchmarks\' data', async () => {
    console.log('\n=== bench: the move tables of bench/moves ===');
    const files = testFiles('bench');
    if (files.length === 0) fail('bench: no tests were found: did the build run?');
    else await runLane('bench', files);
  });
}

if (wants('e2e')) await timed('e2e (real VS Code)', runE2E);

// After Ctrl-C the signal handler ends the process (exit 130) once everything is stopped.
if (stopping) await new Promise(() => {});
await cleanUp();

console.log('\nwhere the time went:');
for (const [group, time] of groupSeconds) console.log(`  ${minutes(time).padStart(7)}  ${group}`);
console.log(`  ${minutes(seconds(runStarted)).padStart(7)}  in all (after the build)`);
const slowest = [...fileSeconds].sort((a, b) => b[1] - a[1]).slice(0, 10);
if (slowest.length > 0) {
  console.log('the ten slowest test files:');
  for (const [file, time] of slowest) console.log(`  ${minutes(time).padStart(7)}  ${file}`);
}
// Every file's time, for comparing two runs (and for starting the longest first next time).
mkdirSync(join(REPO, 'test-artifacts'), { recursive: true });
writeFileSync(
  join(REPO, 'test-artifacts', 'test-times.json'),
  `${JSON.stringify({ groups: Object.fromEntries(groupSeconds), files: { ...previousTimes(), ...Object.fromEntries(fileSeconds) } }, null, 1)}\n`,
);

if (failures.length > 0) console.log(`\nfailed:\n${failures.map((line) => `  ✘ ${line}`).join('\n')}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed > 0 ? 1 : 0);
