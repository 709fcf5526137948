#!/usr/bin/env node
// Jest, Vitest and tape, test runners real JavaScript projects use besides mocha and node
// --test, for the tests of Peagen's structured reports (test/integration/runnerReports.test.ts):
// installed once from the npm registry into a cache outside the repo, at pinned versions, so a
// project fixture gets them as `npm install` would have put them in its node_modules.
//
// Usage: node scripts/provision/testRunners.mjs [--next]
//   stdout: one line, the absolute path of that node_modules (--next: Vitest 4's); stderr: progress.
// Environment: PEAGEN_NODE_CACHE, as for node.mjs (default ${XDG_CACHE_HOME:-~/.cache}/peagen-test).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeCacheDir } from './node.mjs';

export const TEST_RUNNERS = ['jest@29.7.0', 'vitest@3.2.4', 'tape@5.9.0'];
/** Vitest's current major, whose reporters are told of the run otherwise: a node_modules of its own. */
export const TEST_RUNNERS_NEXT = ['vitest@4.0.17'];

/** The node_modules holding `packages` (TEST_RUNNERS by default), installed when it is not there yet. */
export function ensureTestRunners(packages = TEST_RUNNERS, log = (msg) => process.stderr.write(`[provision] ${msg}\n`)) {
  const dir = join(nodeCacheDir(), `test-runners-${packages.join('-').replace(/[@.]/g, '_')}`);
  const modules = join(dir, 'node_modules');
  const done = join(dir, 'installed');
  if (existsSync(done)) return modules;
  log(`npm install ${packages.join(' ')} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  const res = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', ...packages], {
    stdio: ['ignore', 2, 2],
  });
  const bins = packages.map((spec) => spec.slice(0, spec.lastIndexOf('@')));
  if (res.status !== 0 || !bins.every((bin) => existsSync(join(modules, '.bin', bin)))) {
    throw new Error(`npm install ${packages.join(' ')} failed (exit ${res.status ?? res.error?.message})`);
  }
  writeFileSync(done, `${packages.join('\n')}\n`);
  return modules;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(ensureTestRunners(process.argv[2] === '--next' ? TEST_RUNNERS_NEXT : TEST_RUNNERS) + '\n');
  } catch (error) {
    process.stderr.write(`[provision] ERROR: ${error.message}\n`);
    process.exit(1);
  }
}
