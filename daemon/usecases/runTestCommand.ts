/**
 * Runs a project's test command (a shell command line) once on this machine, as `peagen init
 * --tests` does to capture the function's calls: in its own process group, so whatever the
 * tests start is killed with them, and bounded in time and output.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { harnessLibraryDir } from '../evaluation/harnessLibrary';

export interface TestCommandRun {
  /** Exit status; null when killed (timeout). */
  status: number | null;
  timedOut: boolean;
  /** The combined stdout and stderr, its last 20,000 characters. */
  output: string;
}

const KEPT_OUTPUT = 20_000;

/**
 * A traced file has lines the tests never run, so a runner that fails under full coverage
 * (tap 18+, a jest or vitest coverageThreshold) would fail the capture: tap is told by its
 * environment, jest and vitest by harness/js/peagen-cli-reporters.js, preloaded, which adds
 * the option that switches coverage off to their command line. The evaluation's runs switch
 * the same off (peagen_harness/project_tests.py report_env).
 */
function coverageChecksOff(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const preload = `--require=${path.join(harnessLibraryDir(), 'js', 'peagen-cli-reporters.js')}`;
  return { TAP_DISABLE_COVERAGE: '1', TAP_ALLOW_INCOMPLETE_COVERAGE: '1', PEAGEN_COVERAGE_OFF: '1', NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} ${preload}`.trim() };
}

export function runTestCommand(command: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<TestCommandRun> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: { ...env, ...coverageChecksOff(env) }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-KEPT_OUTPUT);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ status: null, timedOut: false, output: `cannot start /bin/sh: ${error.message}` });
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      killGroup();
      resolve({ status, timedOut, output });
    });
  });
}
