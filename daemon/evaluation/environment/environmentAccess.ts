/**
 * How a sandbox sees an example's environments: each cached environment read-only at
 * `/peagen-env/<kind>`, its packages on the evaluator's PYTHONPATH / NODE_PATH after the
 * harness library (an installed package cannot shadow peagen_harness), and named in
 * PEAGEN_ENV_PYTHONPATH / PEAGEN_ENV_NODE_MODULES for the harness, which hands them to the
 * candidate's process. The candidate still imports only what its evaluator's allow-list
 * names: the environment decides what exists, the harness what the candidate may use.
 */
import type { EnvironmentUse } from '../../../shared/evaluation';
import type { ReadOnlyMount } from '../../sandbox/Executor';
import type { InstalledEnvironment } from './environmentCache';
import { environmentSandboxPath } from './environmentSpec';

/** What the harness reads to give the candidate's process the environment's packages. */
export const PYTHON_PACKAGES_ENV = 'PEAGEN_ENV_PYTHONPATH';
export const NODE_PACKAGES_ENV = 'PEAGEN_ENV_NODE_MODULES';

export interface EnvironmentAccess {
  mounts: ReadOnlyMount[];
  /** The request's environment: `base` with the packages' paths added. */
  env: Record<string, string>;
  uses: EnvironmentUse[];
}

export function environmentAccess(environments: readonly InstalledEnvironment[], base: Record<string, string>): EnvironmentAccess {
  const env = { ...base };
  const mounts: ReadOnlyMount[] = [];
  for (const environment of environments) {
    // Where it was installed: a venv's or npm's absolute paths hold in every sandbox.
    const sandboxDir = environmentSandboxPath(environment.spec.kind);
    mounts.push({ hostPath: environment.dir, sandboxPath: sandboxDir });
    const packages = `${sandboxDir}/${environment.packagesPath}`;
    const [listVar, harnessVar] = environment.spec.kind === 'python' ? ['PYTHONPATH', PYTHON_PACKAGES_ENV] : ['NODE_PATH', NODE_PACKAGES_ENV];
    env[listVar] = env[listVar] ? `${env[listVar]}:${packages}` : packages;
    env[harnessVar] = packages;
  }
  const uses = environments.map(({ spec, dir, installed }) => ({ kind: spec.kind, file: spec.file, sha256: spec.sha256, dir, installed }));
  return { mounts, env, uses };
}

/** One line for people: "requirements.txt (sha256 1a2b3c4d5e6f…) cached at DIR, installed now". */
export function describeEnvironmentUse(use: EnvironmentUse): string {
  return `${use.file} (sha256 ${use.sha256.slice(0, 12)}…) cached at ${use.dir}, ${use.installed ? 'installed now' : 'reused'}`;
}
