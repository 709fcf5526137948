import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withoutTextChecks } from '../../daemon/usecases/testCommandTextChecks';

describe('init: the linters and coverage gates of a test command are left out (the evaluated file is a stand-in)', () => {
  let dir: string;
  const project = (scripts: Record<string, string>, bin = true): string => {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', scripts }));
    if (bin) fs.mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
    else fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
    return dir;
  };
  const PATH = 'export PATH="$PWD/node_modules/.bin:$PATH"';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-textchecks-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('npm test = "xo && ava && tsd": ava and tsd run, with the project\'s binaries on PATH', () => {
    assert.deepEqual(withoutTextChecks('npm test', project({ test: 'xo && ava && tsd' })), { command: `${PATH} && ava && tsd`, leftOut: ['xo'] });
  });

  it('a lint script in pretest, a c8 gate around another script, formatting inside a script', () => {
    assert.deepEqual(withoutTextChecks('npm test', project({ pretest: 'npm run lint', lint: 'eslint .', test: 'npm run tests-only', 'tests-only': 'tape test/*.js' })), {
      command: `${PATH} && npm run tests-only`,
      leftOut: ['npm run lint'],
    });
    const unified = project({
      build: 'tsc --build',
      format: 'remark . -qfo && prettier . -w && xo --fix',
      'test-api': 'node --conditions development test.js',
      'test-coverage': 'c8 --check-coverage --100 --reporter lcov npm run test-api',
      test: 'npm run build && npm run format && npm run test-coverage',
    });
    assert.deepEqual(withoutTextChecks('npm test', unified), {
      command: `${PATH} && npm run build && npm run test-api`,
      leftOut: ['npm run format', 'c8 --check-coverage --100 --reporter lcov'],
    });
    assert.deepEqual(withoutTextChecks('nyc --reporter text mocha', project({})).command, `${PATH} && mocha`);
  });

  it('a package manager npx fetches (the sandbox has no network to fetch it): its scripts run without it, all the way down', () => {
    // vercel/ms and unjs/ufo, as `npx -y pnpm@… test` runs them on a machine without pnpm.
    const ms = project({ test: 'pnpm run test:nodejs && pnpm run test:edge', 'test:nodejs': 'jest --env node', 'test:edge': 'jest --env @edge-runtime/jest-environment --no-coverage' });
    assert.deepEqual(withoutTextChecks('npx -y pnpm@10.14.0 test', ms), {
      command: `${PATH} && jest --env node && jest --env @edge-runtime/jest-environment --no-coverage`,
      leftOut: ['npx -y pnpm@10.14.0'],
    });
    const ufo = project({ lint: 'eslint . && prettier -c src test', test: 'pnpm lint && vitest run --typecheck' });
    assert.deepEqual(withoutTextChecks('npx --yes pnpm@10.28.0 test', ufo), {
      command: `${PATH} && vitest run --typecheck`,
      leftOut: ['npx --yes pnpm@10.28.0', 'pnpm lint'],
    });
    // Not a script of the project: kept as written.
    assert.deepEqual(withoutTextChecks('npx -y pnpm@10 install', ms), { command: 'npx -y pnpm@10 install', leftOut: [] });
  });

  it('a pipe stays in its part of the chain (mourner/simplify-js: "jshint simplify.js test/test.js && node test/test.js | faucet")', () => {
    assert.deepEqual(withoutTextChecks('npm test', project({ test: 'jshint simplify.js test/test.js && node test/test.js | faucet' })), {
      command: `${PATH} && node test/test.js | faucet`,
      leftOut: ['jshint simplify.js test/test.js'],
    });
    // `||` is not a pipe: `a && b || c` runs c when a fails too, so the chain is kept whole.
    assert.deepEqual(withoutTextChecks('npm test', project({ test: 'xo && ava || true' })), { command: 'npm test', leftOut: [] });
  });

  it('unchanged: nothing to leave out, only linters, other operators, a command of its own', () => {
    assert.deepEqual(withoutTextChecks('npm test', project({ test: 'mocha --reporter spec' })), { command: 'npm test', leftOut: [] });
    assert.deepEqual(withoutTextChecks('npm test', project({ test: 'xo' })), { command: 'npm test', leftOut: [] });
    assert.deepEqual(withoutTextChecks('npm test', project({ test: 'xo; ava' })), { command: 'npm test', leftOut: [] });
    assert.deepEqual(withoutTextChecks('python3 -m pytest', project({})), { command: 'python3 -m pytest', leftOut: [] });
    assert.deepEqual(withoutTextChecks('npx eslint . && node --test', project({}, false)), { command: 'node --test', leftOut: ['npx eslint .'] });
  });
});
