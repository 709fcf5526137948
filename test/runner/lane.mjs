#!/usr/bin/env node
// One lane of `npm test`: mocha over the compiled test files it is given, in this process, with
// the spec reporter on stdout. test/run.mjs starts lanes side by side and reads what each wrote
// to RESULT: its counts, each file's seconds and each failure's first line.
//
//   node test/runner/lane.mjs RESULT FILE...
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(import.meta.url);
const Mocha = require('mocha');

const [resultFile, ...files] = process.argv.slice(2);
const mocha = new Mocha({ timeout: 20_000, reporter: 'spec' });
// Absolute paths: mocha resolves them again when it unloads the files.
for (const file of files) mocha.addFile(resolve(file));

const fileSeconds = {};
const failures = [];
const runner = await new Promise((done) => {
  const run = mocha.run(() => done(run));
  // test/run.mjs after Ctrl-C: the current test ends, then the after hooks stop what the suites
  // started (daemons, sandboxes, containers); the runner kills what is left 10 s later.
  process.once('SIGTERM', () => {
    console.log('\nSIGTERM: aborting after the current test; the after hooks run');
    run.abort();
  });
  // A file's time runs from its first hook or test to the next file's (mocha runs files in turn).
  let current;
  let since = Date.now();
  const mark = (file) => {
    if (!file || file === current) return;
    const now = Date.now();
    if (current) fileSeconds[current] = (fileSeconds[current] ?? 0) + (now - since) / 1000;
    current = file;
    since = now;
  };
  run.on('suite', (suite) => mark(suite.file));
  run.on('hook', (hook) => mark(hook.file ?? hook.parent?.file));
  run.on('test', (test) => mark(test.file));
  run.on('end', () => mark('(end)'));
  run.on('fail', (test, err) => failures.push(`${test.fullTitle()}: ${String(err?.message ?? err).split('\n')[0].slice(0, 300)}`));
});
const { passes, failures: failed, tests } = runner.stats;
writeFileSync(resultFile, JSON.stringify({ passed: passes, failed, tests, files: fileSeconds, failures }));
mocha.dispose();
// Anything a test left running (a timer, a socket) must not keep the lane alive.
process.exit(failed > 0 ? 1 : 0);
