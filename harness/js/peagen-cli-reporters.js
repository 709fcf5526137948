'use strict';
/*
 * Jest's and Vitest's test outcomes, through reporters of their own kind: preloaded
 * (NODE_OPTIONS=--require) into every Node process of a project's test run, this file stays
 * inert unless the process's main script is jest's or vitest's command line, and then appends
 * Peagen's reporter to its arguments (beside the default one, which the user sees, unless the
 * command names reporters itself). Both runners collect every file's results in that process,
 * whatever workers they run the tests in. Where Peagen runs the tests (PEAGEN_COVERAGE_OFF), it
 * also switches their coverage off the same way. The reporters write the format of
 * harness/python/peagen_harness/test_report.py; nothing printed is read.
 */
const fs = require('fs');
const path = require('path');

const RUNNERS = [
  { main: /[\\/]jest(?:-cli)?[\\/]bin[\\/]jest\.js$/, option: '--reporters', reporter: path.join(__dirname, 'peagen-jest-report.js'), noCoverage: '--coverage=false' },
  { main: /[\\/]vitest[\\/]vitest\.mjs$/, option: '--reporter', reporter: path.join(__dirname, 'peagen-vitest-report.mjs'), noCoverage: '--coverage.enabled=false' },
];

function mainScript() {
  try {
    return process.argv[1] ? fs.realpathSync(process.argv[1]) : '';
  } catch {
    return '';
  }
}

const reports = Boolean(process.env.PEAGEN_TEST_REPORT_DIR);
const coverageOff = process.env.PEAGEN_COVERAGE_OFF === '1';
if (reports || coverageOff) {
  const main = mainScript();
  const runner = RUNNERS.find((candidate) => candidate.main.test(main));
  if (runner) {
    // `--bail`: off when Peagen learns which tests fail only behind the process boundary
    // (test_report.EVERY_TEST_ENV), so that every test has an outcome of its own.
    if (process.env.PEAGEN_RUN_EVERY_TEST === '1') {
      for (let i = (process.argv.includes('--') ? process.argv.indexOf('--') : process.argv.length) - 1; i >= 2; i -= 1) {
        if (/^--bail(=.*)?$/.test(process.argv[i]) || (process.argv[i] === '-b' && runner.reporter.includes('jest'))) {
          const valued = process.argv[i] === '--bail' && /^\d+$/.test(process.argv[i + 1] || '');
          process.argv.splice(i, valued ? 2 : 1);
        }
      }
    }
    const args = process.argv.slice(2);
    const named = args.some((arg) => arg === runner.option || arg.startsWith(`${runner.option}=`));
    // After a `--`, arguments are no longer the runner's options: ours go before it.
    const end = args.includes('--') ? 2 + args.indexOf('--') : process.argv.length;
    const added = reports ? [...(named ? [] : [`${runner.option}=default`]), `${runner.option}=${runner.reporter}`] : [];
    // Coverage means nothing where Peagen runs the tests (a traced copy, a stand-in whose
    // functions run elsewhere), and a coverage threshold would fail those runs: off, unless
    // the command itself says what to do about coverage.
    if (coverageOff && !args.some((arg) => /^--(no-)?coverage\b/.test(arg))) added.push(runner.noCoverage);
    process.argv.splice(end, 0, ...added);
  }
}
