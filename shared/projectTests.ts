/**
 * Where a file's tests are and the command that runs them, as `peagen init --objective tests`
 * needs it (`--tests CMD`, run from the project's root): the editor's "Evolve this function"
 * lens is shown only where this finds tests. Found by looking, never by running anything:
 * the nearest folder from the file up to the workspace folder whose own files (or test/,
 * tests/) are tests of the file's language.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FunctionLanguage } from './functionScan';

export interface ProjectTests {
  /** The folder the command runs in, and that init copies for the tests. */
  projectDir: string;
  /** The shell command, e.g. `python3 -m unittest`. */
  command: string;
  /** What it was found by, for a log line (e.g. "test_stats.py"). */
  foundBy: string;
}

/** The test folders looked into beside a project's own files. */
const TEST_FOLDERS = ['tests', 'test'];
/** npm's placeholder test script: no tests. */
const NPM_NO_TESTS = /no test specified/;
/** A folder listing larger than this is not read for tests (generated or data folders). */
const MAX_ENTRIES = 2_000;

/** unittest discovery's own default pattern (test*.py: tests.py included) and pytest's *_test.py. */
const PYTHON_TEST_FILE = /^(test.*|.*_test)\.py$/;
/** node --test's own default patterns (Node 20+). */
const NODE_TEST_FILE = /^(.*[.\-_]test|test-.*|test)\.(c|m)?js$/;
const PYTEST_CONFIG = ['pytest.ini', 'conftest.py'];

function names(dir: string): string[] {
  try {
    const entries = fs.readdirSync(dir);
    return entries.length > MAX_ENTRIES ? [] : entries;
  } catch {
    return [];
  }
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The test command for `dir` alone, or undefined when it holds no tests of the language. */
export function testsIn(dir: string, language: FunctionLanguage): Omit<ProjectTests, 'projectDir'> | undefined {
  const own = names(dir);
  if (language === 'javascript') {
    if (own.includes('package.json')) {
      let script: unknown;
      try {
        script = (JSON.parse(readText(path.join(dir, 'package.json'))) as { scripts?: { test?: unknown } }).scripts?.test;
      } catch {
        script = undefined;
      }
      if (typeof script === 'string' && script.trim() !== '' && !NPM_NO_TESTS.test(script)) return { command: 'npm test', foundBy: `package.json's test script (${script})` };
    }
    const file = own.find((name) => NODE_TEST_FILE.test(name));
    if (file) return { command: 'node --test', foundBy: file };
    for (const folder of TEST_FOLDERS) {
      const inside = names(path.join(dir, folder)).find((name) => /\.(c|m)?js$/.test(name));
      if (inside) return { command: 'node --test', foundBy: `${folder}/${inside}` };
    }
    return undefined;
  }
  const pytest =
    own.find((name) => PYTEST_CONFIG.includes(name)) ??
    (own.includes('pyproject.toml') && /^\[tool\.pytest/m.test(readText(path.join(dir, 'pyproject.toml'))) ? 'pyproject.toml' : undefined) ??
    (own.includes('setup.cfg') && /^\[tool:pytest\]/m.test(readText(path.join(dir, 'setup.cfg'))) ? 'setup.cfg' : undefined);
  const file = own.find((name) => PYTHON_TEST_FILE.test(name));
  if (file) return { command: pytest ? 'python3 -m pytest' : 'python3 -m unittest', foundBy: file };
  for (const folder of TEST_FOLDERS) {
    const inside = names(path.join(dir, folder)).find((name) => PYTHON_TEST_FILE.test(name));
    // unittest's discovery does not enter a folder without __init__.py: start it there.
    if (inside) return { command: pytest ? 'python3 -m pytest' : `python3 -m unittest discover -s ${folder}`, foundBy: `${folder}/${inside}` };
  }
  return pytest ? { command: 'python3 -m pytest', foundBy: pytest } : undefined;
}

/**
 * The tests of `file`: the nearest folder from the file's own up to `workspaceDir` (both
 * absolute) that holds tests of the language. Undefined when none does, or the file is
 * outside the workspace folder.
 */
export function findProjectTests(file: string, workspaceDir: string, language: FunctionLanguage): ProjectTests | undefined {
  const root = path.resolve(workspaceDir);
  let dir = path.dirname(path.resolve(file));
  const inside = path.relative(root, dir);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return undefined;
  for (;;) {
    const found = testsIn(dir, language);
    if (found) return { projectDir: dir, ...found };
    if (dir === root) return undefined;
    dir = path.dirname(dir);
  }
}
