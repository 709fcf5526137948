#!/usr/bin/env node
// `npm test`: every suite, one summary. First the static gates (types, lint, the import rules
// of docs/architecture.md), each one test; then the unit and integration suites in this process
// with mocha; then the VS Code end-to-end suite in a real VS Code (test/e2e/runE2E.mjs), which
// provisions what it needs. `node test/run.mjs static`, `... unit` or `... e2e` runs one group.
//
// The last line is `N passed, N failed` over all suites; the exit code is 1 if anything failed.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { ensureNode } from '../scripts/provision/node.mjs';

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
const require = createRequire(import.meta.url);
const Mocha = require('mocha');

const groups = process.argv.slice(2);
const wants = (group) => groups.length === 0 || groups.includes(group);
const totals = { passed: 0, failed: 0 };
// Where the time went, printed at the end: seconds per group and per test file.
const groupSeconds = [];
const fileSeconds = new Map();
async function timed(group, work) {
  const started = Date.now();
  try {
    return await work();
  } finally {
    groupSeconds.push([group, (Date.now() - started) / 1000]);
  }
}
// What failed, repeated at the end: a CI log is often read from its tail only.
const failures = [];
/** Something failed that is not a counted test (a gate, a provisioning step, an empty suite). */
function fail(what) {
  failures.push(what);
  totals.failed += 1;
}

/** Compiled test files (`*.test.js`) below `dir` (under out/, written by the build). */
function testFiles(dir) {
  return readdirSync(join(REPO, dir), { recursive: true })
    .filter((file) => file.endsWith('.test.js'))
    .sort()
    .map((file) => join(REPO, dir, file));
}

async function runMocha(name, dir) {
  const mocha = new Mocha({ timeout: 20_000, reporter: 'spec' });
  for (const file of testFiles(dir)) mocha.addFile(file);
  console.log(`\n=== ${name} ===`);
  const runner = await new Promise((done) => {
    const run = mocha.run(() => done(run));
    // A file's time runs from its first hook or test to the next file's (mocha runs files in turn).
    let current;
    let since = Date.now();
    const mark = (file) => {
      if (!file || file === current) return;
      const now = Date.now();
      if (current) fileSeconds.set(current, (fileSeconds.get(current) ?? 0) + (now - since) / 1000);
      current = file;
      since = now;
    };
    run.on('suite', (suite) => mark(suite.file));
    run.on('hook', (hook) => mark(hook.file ?? hook.parent?.file));
    run.on('test', (test) => mark(test.file));
    run.on('end', () => mark('(end)'));
    run.on('fail', (test, err) => failures.push(`${name}: ${test.fullTitle()}: ${String(err?.message ?? err).split('\n')[0].slice(0, 300)}`));
  });
  totals.passed += runner.stats.passes;
  totals.failed += runner.stats.failures;
  if (runner.stats.tests === 0) {
    console.log(`no ${name} tests were found: did the build run?`);
    fail(`${name}: no tests were found`);
  }
  mocha.dispose();
}

async function runE2E() {
  console.log('\n=== VS Code end-to-end (code-server + Chromium) ===');
  const child = spawn(process.execPath, [join(REPO, 'test', 'e2e', 'runE2E.mjs'), '--skip-build'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let last = '';
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    const lines = chunk.toString().trim().split('\n');
    last = lines[lines.length - 1] || last;
  });
  const code = await new Promise((done) => child.once('exit', done));
  const summary = /^(\d+) passed, (\d+) failed/.exec(last);
  if (summary) {
    totals.passed += Number(summary[1]);
    totals.failed += Number(summary[2]);
  }
  if (summary && Number(summary[2]) > 0) failures.push(`e2e: ${summary[2]} failed (see "E2E-SUMMARY" and the ✘ lines above)`);
  if (code !== 0 && (!summary || Number(summary[2]) === 0)) {
    fail(`e2e: exit ${code} without a failed test`);
  }
}

/** A static gate: one test that passes when the command exits 0 (its output shows why not). */
function runGate(name, script, args) {
  console.log(`\n--- ${name}`);
  const started = Date.now();
  const { status } = spawnSync(process.execPath, [join(REPO, 'node_modules', script), ...args], { cwd: REPO, stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (status === 0) {
    totals.passed += 1;
    console.log(`  ✔ ${name} (${seconds} s)`);
  } else {
    fail(`static: ${name} (exit ${status})`);
    console.log(`  ✘ ${name} failed (exit ${status}, ${seconds} s)`);
  }
}

if (wants('static')) await timed('static gates', () => {
  console.log('\n=== static gates ===');
  runGate('types: tsc --noEmit', 'typescript/bin/tsc', ['--noEmit', '-p', '.']);
  runGate('lint: eslint .', 'eslint/bin/eslint.js', ['.']);
  runGate('imports: no cycles, extension and daemon meet only in shared/, layers point one way (dependency-cruiser)', 'dependency-cruiser/bin/dependency-cruise.mjs', ['daemon', 'shared', 'extension', '--config', '.dependency-cruiser.cjs']);
});

// The alert rules are checked by promtool (unit) and fire in a real Prometheus (integration):
// Debian's package, installed before either group runs.
if (wants('unit') || wants('integration')) await timed('provisioning Prometheus', () => {
  if (spawnSync(process.execPath, [join(REPO, 'scripts', 'provision', 'prometheus.mjs')], { stdio: 'inherit' }).status !== 0) {
    fail('provisioning Prometheus');
  }
});
if (wants('unit')) await timed('unit', () => runMocha('unit', 'out/test/unit'));
if (wants('integration')) await timed('provisioning bubblewrap', () => {
  // The sandbox suites need bubblewrap; the docker suites start their own engine
  // (test/fixtures/dockerEngine.ts), installing docker.io when it is missing.
  const provision = spawnSync(process.execPath, [join(REPO, 'scripts', 'provision', 'bwrap.mjs')], { stdio: 'inherit' });
  if (provision.status !== 0) {
    fail('provisioning bubblewrap');
  }
});
if (wants('integration')) await timed('integration', () => runMocha('integration (real daemon processes)', 'out/test/integration'));
if (wants('e2e')) await timed('e2e', runE2E);

const minutes = (seconds) => `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
console.log('\nwhere the time went:');
for (const [group, seconds] of groupSeconds) console.log(`  ${minutes(seconds).padStart(7)}  ${group}`);
const slowest = [...fileSeconds].sort((a, b) => b[1] - a[1]).slice(0, 10);
if (slowest.length > 0) {
  console.log('the ten slowest test files:');
  for (const [file, seconds] of slowest) console.log(`  ${minutes(seconds).padStart(7)}  ${file.slice(REPO.length + 1)}`);
}
// Every file's time, for comparing two runs: test-artifacts/test-times.json.
mkdirSync(join(REPO, 'test-artifacts'), { recursive: true });
writeFileSync(join(REPO, 'test-artifacts', 'test-times.json'), `${JSON.stringify({
  groups: Object.fromEntries(groupSeconds),
  files: Object.fromEntries([...fileSeconds].map(([file, seconds]) => [file.slice(REPO.length + 1), seconds])),
}, null, 1)}\n`);

if (failures.length > 0) console.log(`\nfailed:\n${failures.map((line) => `  ✘ ${line}`).join('\n')}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed > 0 ? 1 : 0);
