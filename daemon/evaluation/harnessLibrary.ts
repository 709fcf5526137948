/**
 * The evaluation harness library (`harness/` in the package): the trusted code that runs an
 * untrusted candidate in its own process, checks its answers and times it from outside.
 * Evaluators import it (`import peagen_harness` in Python, `require('peagen-harness')` in
 * Node); every sandboxed evaluation gets it read-only at {@link HARNESS_LIBRARY_PATH}, on
 * PYTHONPATH and NODE_PATH.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ReadOnlyMount } from '../sandbox/Executor';

export const HARNESS_LIBRARY_PATH = '/peagen-harness';

let located: string | undefined;

/** The package's `harness/` directory, found upwards from this file (dist/ or out/...). */
export function harnessLibraryDir(): string {
  if (located) return located;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'harness');
    if (fs.existsSync(path.join(candidate, 'python')) && fs.existsSync(path.join(candidate, 'js'))) return (located = candidate);
    if (path.dirname(dir) === dir) throw new Error(`the evaluation harness library (harness/) is missing beside ${__dirname}; reinstall Peagen`);
  }
}

/** The mount and environment that make the library importable inside a sandbox. */
export function harnessLibraryAccess(): { mount: ReadOnlyMount; env: Record<string, string> } {
  return {
    mount: { hostPath: harnessLibraryDir(), sandboxPath: HARNESS_LIBRARY_PATH },
    env: {
      PYTHONPATH: `${HARNESS_LIBRARY_PATH}/python`,
      NODE_PATH: `${HARNESS_LIBRARY_PATH}/js`,
      PEAGEN_HARNESS_LIB: HARNESS_LIBRARY_PATH,
    },
  };
}
