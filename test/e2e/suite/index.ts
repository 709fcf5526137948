/**
 * Test runner loaded by VS Code's extension host (`extensionTestsPath`): runs every compiled
 * `*.e2e.js` file next to this one with mocha and settles when they are done. The same module
 * serves code-server + Chromium (test/e2e/runE2E.mjs) and @vscode/test-electron.
 *
 * It logs one machine-readable line, `E2E-SUMMARY passed=N failed=M pending=P`, and, when
 * PEAGEN_E2E_RESULTS names a file, writes the same numbers there as JSON (the driver reads
 * whichever arrives).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Summary {
  passed: number;
  failed: number;
  pending: number;
  failures: { title: string; error: string }[];
}

function writeResults(summary: Summary): void {
  const file = process.env.PEAGEN_E2E_RESULTS;
  if (!file) return;
  try {
    fs.writeFileSync(file, JSON.stringify(summary, null, 2));
  } catch (error) {
    console.error(`[e2e] could not write ${file}: ${(error as Error).message}`);
  }
}

export function run(): Promise<void> {
  // mocha 11 is CommonJS; mocha 12 is ESM-only and would need `.default` here.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require('mocha') as typeof import('mocha') | { default: typeof import('mocha') };
  const Mocha = 'default' in loaded ? loaded.default : loaded;
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });

  // PEAGEN_E2E_FILES=remoteDaemon,proposals runs only the files whose names hold one of the words (while developing).
  const only = (process.env.PEAGEN_E2E_FILES ?? '').split(',').filter(Boolean);
  const files = fs
    .readdirSync(__dirname)
    .filter((name) => name.endsWith('.e2e.js') && (only.length === 0 || only.some((word) => name.includes(word))))
    .sort()
    .map((name) => path.join(__dirname, name));
  for (const file of files) mocha.addFile(file);

  const summary: Summary = { passed: 0, failed: 0, pending: 0, failures: [] };
  return new Promise<void>((resolve, reject) => {
    if (files.length === 0) {
      summary.failed = 1;
      summary.failures.push({ title: 'load', error: `no *.e2e.js files in ${__dirname}` });
      console.log(`E2E-SUMMARY passed=0 failed=1 pending=0`);
      writeResults(summary);
      reject(new Error(`no *.e2e.js files in ${__dirname}`));
      return;
    }
    try {
      const runner = mocha.run(() => {
        console.log(`E2E-SUMMARY passed=${summary.passed} failed=${summary.failed} pending=${summary.pending}`);
        writeResults(summary);
        if (summary.failed > 0) reject(new Error(`${summary.failed} end-to-end test(s) failed`));
        else resolve();
      });
      runner.on('pass', () => summary.passed++);
      runner.on('pending', () => summary.pending++);
      runner.on('fail', (test, error: Error) => {
        summary.failed++;
        summary.failures.push({ title: test.fullTitle(), error: error?.stack ?? String(error) });
        // The spec reporter prints failures only at the end; say it now too, in case the run hangs.
        console.log(`E2E-FAIL ${test.fullTitle()}: ${error?.message ?? String(error)}`);
      });
    } catch (error) {
      summary.failed++;
      summary.failures.push({ title: 'mocha', error: (error as Error).stack ?? String(error) });
      console.log(`E2E-SUMMARY passed=${summary.passed} failed=${summary.failed} pending=${summary.pending}`);
      writeResults(summary);
      reject(error);
    }
  });
}
