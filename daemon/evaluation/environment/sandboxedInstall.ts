/**
 * Runs pip or npm for an environment inside a sandbox of the evaluation's executor: the
 * environment's (empty, new) directory is the only host directory it can write, bound at the
 * path where evaluations will see it (environmentSandboxPath), and the network is on, since the
 * installer needs the index or the registry. Nothing of the example is mounted: the installer
 * gets the checked requests (packageRequests.ts) and nothing else, and no package's code runs
 * to install it (pip takes wheels only, npm runs no install scripts).
 *
 * The host's pip or npm is mounted read-only for the run (a sandbox image has the interpreters
 * only). What the network reaches is the executor's: bwrap shares the host's network namespace
 * (`--share-net`), docker uses its network mode (the default bridge). The `process` executor
 * isolates nothing, an install included, and says so once per executor; there, the request
 * rules alone keep package code from running.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExecutionRequest, ExecutionResult, Executor, LimitOverrides } from '../../sandbox/Executor';
import { EnvironmentError } from './environmentError';
import { type EnvironmentSpec, environmentSandboxPath, NODE_MANIFEST_FILE } from './environmentSpec';
import { describeInstallFailure } from './installFailure';

/** An installer downloads and unpacks: more time, memory and processes than an evaluation gets by default. */
export const INSTALL_LIMITS: LimitOverrides = { timeoutMs: 15 * 60_000, memoryMb: 2048, pids: 256, outputBytes: 1 << 20, network: true };

/** Where the host's pip or npm is mounted (read-only) in the install sandbox: a sandbox image need not have them. */
const INSTALLER_PATH = '/peagen-installer';

/**
 * argv: the venv's directory, pip's package directory, then the requirements. The venv has no
 * pip of its own (copying one in is most of the time a venv takes): the venv's interpreter runs
 * the host's pip through its __pip-runner__.py (pip 22.3+, what `pip --python` does), which
 * imports that pip and nothing else beside it, so pip sees only the venv's packages. Wheels
 * only: installing a wheel runs none of the package's code, building one would.
 */
const PYTHON_INSTALL = `
import subprocess, sys, venv
target, pip, requirements = sys.argv[1], sys.argv[2], sys.argv[3:]
venv.create(target, with_pip=False, symlinks=True)
if requirements:
    runner = [target + "/bin/python", pip + "/__pip-runner__.py"]
    sys.exit(subprocess.call(runner + ["install", "--no-input", "--no-warn-script-location", "--only-binary=:all:", "--"] + requirements))
`;

export interface InstallPlace {
  /** The new environment's host directory (empty): the only one the sandbox can write. */
  target: string;
  /** The host's pip package directory or npm package root; undefined when the host has none. */
  installer: string | undefined;
  /** The installer settings (index, registry, proxies): the sandbox's whole environment. */
  settings: Record<string, string>;
}

/** Installs `spec` into `place.target`, in a sandbox of `executor`. */
export async function installInSandbox(executor: Executor, spec: EnvironmentSpec, place: InstallPlace, signal?: AbortSignal): Promise<void> {
  const { target, installer, settings } = place;
  if (installer === undefined) {
    throw new EnvironmentError(
      spec.kind === 'python'
        ? `cannot install ${describeSpec(spec)}: the sandbox's python3 has no pip 22.3 or later on this host; install it (Debian: apt-get install python3-pip)`
        : `cannot install ${describeSpec(spec)}: no npm beside the sandbox's node on this host; install it (Debian: apt-get install npm)`,
    );
  }
  const sandboxPath = environmentSandboxPath(spec.kind);
  const installerPath = `${INSTALLER_PATH}/${spec.kind === 'python' ? 'pip' : 'npm'}`;
  const env = { ...settings, PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  const run = async (command: string[], what: string): Promise<void> => {
    const request: ExecutionRequest = {
      command,
      cwd: sandboxPath,
      env,
      mounts: [{ hostPath: installer, sandboxPath: installerPath }],
      writableMount: { hostPath: target, sandboxPath },
      limits: INSTALL_LIMITS,
      ...(signal && { signal }),
    };
    let result: ExecutionResult;
    try {
      result = await executor.run(request);
    } catch (error) {
      throw new EnvironmentError(`cannot install ${describeSpec(spec)}: the ${executor.name} sandbox for ${what} could not be made (${(error as Error).message})`);
    }
    if (result.exitCode === 0 && !result.stoppedBy) return;
    const failure = describeInstallFailure(spec.kind, `${result.stdout}\n${result.stderr}`);
    const subject = failure.packageName !== undefined ? `the package "${failure.packageName}"` : 'a package';
    const ended = result.stoppedBy ? `stopped by the sandbox: ${result.stoppedBy}` : result.signal ? `killed by ${result.signal}` : `exit status ${result.exitCode}`;
    throw new EnvironmentError(`cannot install ${describeSpec(spec)}: ${what} failed on ${subject} (${ended}): ${failure.reason}. Fix ${spec.file} and run again; nothing was cached.`, failure.packageName);
  };

  if (spec.kind === 'python') {
    // One run: the venv, then pip. The requirements are arguments, not a file: pip reads no
    // options from the example.
    await run(['python3', '-c', PYTHON_INSTALL, sandboxPath, installerPath, ...spec.requirements], 'pip install');
    return;
  }
  // Only the checked dependencies: no scripts, overrides, workspaces or devDependencies of the example's package.json.
  fs.writeFileSync(path.join(target, NODE_MANIFEST_FILE), `${JSON.stringify({ name: 'peagen-environment', private: true, dependencies: spec.dependencies }, null, 2)}\n`);
  // --ignore-scripts: no package's install script runs, not even in the sandbox.
  await run(['node', `${installerPath}/bin/npm-cli.js`, 'install', '--no-audit', '--no-fund', '--omit=dev', '--no-update-notifier', '--ignore-scripts'], 'npm install');
}

function describeSpec(spec: EnvironmentSpec): string {
  return path.join(spec.exampleDir, spec.file);
}
