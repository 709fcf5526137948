#!/usr/bin/env node
// Jest, Vitest and tape, test runners real JavaScript projects use besides mocha and node
// --test, for the tests of Peagen's structured reports (test/integration/runnerReports.test.ts):
// installed once from the npm registry into a cache outside the repo, at pinned versions, so a
// project fixture gets them as `npm install` would have put them in its node_modules.
//
// Usage: node scripts/provision/testRunners.mjs
//   stdout: one line, the absolute path of that node_modules; stderr: progress.
// Environment: PEAGEN_NODE_CACHE, as for node.mjs (default ${XDG_CACHE_HOME:-~/.cache}/peagen-test).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCacheDir } from './node.mjs';

export const TEST_RUNNERS = ['jest@29.7.0', 'vitest@3.2.4', 'tape@5.9.0'];

/** The node_modules holding TEST_RUNNERS, installed when it is not there yet. */
export function ensureTestRunners(log = (msg) => process.stderr.write(`[provision] ${msg}\n`)) {
  const dir = join(nodeCacheDir(), `test-runners-${TEST_RUNNERS.join('-').replace(/[@.]/g, '_')}`);
  const modules = join(dir, 'node_modules');
  const done = join(dir, 'installed');
  if (existsSync(done)) return modules;
  log(`npm install ${TEST_RUNNERS.join(' ')} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  const res = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', ...TEST_RUNNERS], {
    stdio: ['ignore', 2, 2],
  });
  if (res.status !== 0 || !['jest', 'vitest', 'tape'].every((bin) => existsSync(join(modules, '.bin', bin)))) {
    throw new Error(`npm install ${TEST_RUNNERS.join(' ')} failed (exit ${res.status ?? res.error?.message})`);
  }
  writeFileSync(done, `${TEST_RUNNERS.join('\n')}\n`);
  return modules;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(ensureTestRunners() + '\n');
  } catch (error) {
    process.stderr.write(`[provision] ERROR: ${error.message}\n`);
    process.exit(1);
  }
}
