/**
 * What a project's tests need from the user's machine, found by `peagen init --tests` where
 * the user runs them: the project's dependency folders (node_modules, a virtualenv) and the
 * Python installations the test command runs with when they live outside the system
 * directories (pyenv, a hand-built prefix). The sandbox sees them read-only
 * (daemon/evaluation/projectAccess.ts), so the copy runs the tests as the project does:
 * with the user's pytest, mocha or jest, not the system's python3 without them.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROJECT_DEPENDENCY_DIRS, type ProjectEnvironment } from '../../shared/evaluation';
import { isDirectory } from '../evaluation/projectAccess';

/** Prefixes the sandbox already shows (its system directories): nothing to mount. */
const SYSTEM_PREFIXES = ['/usr', '/bin', '/lib'];

export function projectEnvironment(projectDir: string, exampleDir: string, env: NodeJS.ProcessEnv): ProjectEnvironment {
  const root = path.relative(exampleDir, projectDir).split(path.sep).join('/');
  const dependencies = PROJECT_DEPENDENCY_DIRS.filter((name) => isDirectory(path.join(projectDir, name)));
  const toolchains = new Set<string>();
  // The python3 the user's own command finds (PATH as the user has it), and each virtualenv's.
  const interpreters = ['python3', ...dependencies.filter((name) => name !== 'node_modules').map((name) => path.join(projectDir, name, 'bin', 'python'))];
  for (const interpreter of interpreters) {
    const prefix = basePrefix(interpreter, projectDir, env);
    if (prefix && !SYSTEM_PREFIXES.some((system) => prefix === system || prefix.startsWith(`${system}/`))) toolchains.add(prefix);
  }
  return { root, dependencies: [...dependencies], toolchains: [...toolchains] };
}

/** The installation an interpreter belongs to (a virtualenv's base), or null when it does not run. */
function basePrefix(interpreter: string, cwd: string, env: NodeJS.ProcessEnv): string | null {
  const run = spawnSync(interpreter, ['-c', 'import sys; print(sys.base_prefix)'], { cwd, env, encoding: 'utf8', timeout: 20_000 });
  const prefix = run.status === 0 ? run.stdout.trim() : '';
  if (!path.isAbsolute(prefix)) return null;
  try {
    return fs.realpathSync(prefix);
  } catch {
    return null;
  }
}

/** Where tools keep caches inside node_modules (vitest's .vite, vite's .vite-temp, babel's and ava's .cache): left out of a copy's. */
const NODE_MODULES_CACHES = new Set(['.cache', '.vite', '.vite-temp', '.vitest']);

/**
 * The project's dependency folder `folder` at `link` in a copy of the project, never copied: a
 * link to it, except node_modules, which becomes a folder of links to its entries (packages,
 * .bin, pnpm's .pnpm) without its caches, so that a tool writing one (vitest's results) writes
 * it in the copy, not in the user's read-only node_modules. The same as the harness's
 * peagen_harness/project_tests.py link_dependencies, which the evaluations use.
 */
export function linkDependencies(folder: string, link: string): void {
  if (path.basename(folder) !== 'node_modules') {
    fs.symlinkSync(folder, link);
    return;
  }
  fs.mkdirSync(link);
  for (const name of fs.readdirSync(folder)) {
    if (!NODE_MODULES_CACHES.has(name)) fs.symlinkSync(path.join(folder, name), path.join(link, name));
  }
}
