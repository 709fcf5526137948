/**
 * How a sandbox sees what a project's tests need from the user's machine (the example's
 * `project` section, written by `peagen init --tests`): the project's dependency folders
 * (node_modules, a virtualenv) read-only at /peagen-project/<name>, which the harness links
 * into each copy of the project it runs the tests in, and the interpreters the tests run with
 * (a pyenv Python) read-only at their own paths, first on the tests' PATH. Nothing is
 * copied: a project's node_modules can hold gigabytes.
 *
 * The config names only dependency folders of a fixed list in an ancestor of the example
 * directory, and toolchains that are Python installations (an interpreter beside its own
 * standard library, named by its real path, never a home or a folder above one): an example
 * that arrives from a queue cannot use this to show a sandbox an arbitrary folder of the worker's.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ExampleConfig } from '../../shared/evaluation';
import type { ReadOnlyMount } from '../sandbox/Executor';

export const PROJECT_DEPENDENCIES_PATH = '/peagen-project';
/** `:`-separated sandbox paths of the dependency folders, each linked into the project's copy by its name. */
export const PROJECT_DEPENDENCIES_ENV = 'PEAGEN_PROJECT_DEPENDENCIES';
/** `:`-separated bin folders put first on the tests' PATH. */
export const PROJECT_PATH_ENV = 'PEAGEN_PROJECT_PATH';

/** A Python installation's prefix: its interpreter and its own standard library (not a user's ~/.local, whose lib holds only site-packages). */
function isPythonInstallation(prefix: string): boolean {
  if (!isFile(path.join(prefix, 'bin', 'python3')) && !isFile(path.join(prefix, 'bin', 'python'))) return false;
  let libs: string[];
  try {
    libs = fs.readdirSync(path.join(prefix, 'lib')).filter((name) => /^python3\.\d+$/.test(name));
  } catch {
    return false;
  }
  return libs.some((name) => isFile(path.join(prefix, 'lib', name, 'os.py')));
}

export interface ProjectAccess {
  mounts: ReadOnlyMount[];
  env: Record<string, string>;
}

export function projectAccess(exampleDir: string, config: Pick<ExampleConfig, 'project'>): ProjectAccess {
  const project = config.project;
  if (!project) return { mounts: [], env: {} };
  const mounts: ReadOnlyMount[] = [];
  const dependencies: string[] = [];
  const root = path.resolve(exampleDir, project.root);
  for (const name of project.dependencies) {
    const hostPath = path.join(root, name);
    // Absent on this machine (a worker elsewhere): the tests then say which module is missing.
    if (!isDirectory(hostPath)) continue;
    const sandboxPath = `${PROJECT_DEPENDENCIES_PATH}/${name}`;
    mounts.push({ hostPath: fs.realpathSync(hostPath), sandboxPath });
    dependencies.push(sandboxPath);
  }
  const bins: string[] = [];
  const home = os.homedir();
  for (const toolchain of project.toolchains) {
    const clean = path.posix.normalize(toolchain);
    let real: string;
    try {
      real = fs.realpathSync(toolchain);
    } catch {
      continue;
    }
    // Only a real installation, never a home (or a folder above one) that happens to hold a bin/python3.
    if (clean !== toolchain || real !== toolchain || real === '/' || home === real || home.startsWith(`${real}/`) || !isPythonInstallation(real)) continue;
    mounts.push({ hostPath: toolchain, sandboxPath: toolchain });
    bins.push(`${toolchain}/bin`);
  }
  const env: Record<string, string> = {};
  if (dependencies.length > 0) env[PROJECT_DEPENDENCIES_ENV] = dependencies.join(':');
  if (bins.length > 0) env[PROJECT_PATH_ENV] = bins.join(':');
  return { mounts, env };
}

export function isDirectory(target: string): boolean {
  try {
    return fs.statSync(target).isDirectory();
  } catch {
    return false;
  }
}

function isFile(target: string): boolean {
  try {
    return fs.statSync(target).isFile();
  } catch {
    return false;
  }
}
