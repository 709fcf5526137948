/**
 * Installs an example's environment once per host and reuses it: pip into a venv for a
 * requirements.txt, npm into a node_modules for a package.json. The install runs in a sandbox
 * of the evaluation's executor (sandboxedInstall.ts), under the state directory
 * (`<PEAGEN_HOME>/environments/`). An environment is keyed by everything that decides what it
 * holds: the example's file (and npm lock file), the interpreter's exact version, and the
 * installer settings (index, registry): an edit, another interpreter or another index is
 * another environment, and two examples share one only when they would install the same.
 *
 * Atomic: an install goes into a temporary directory that is renamed into place only when it
 * succeeded, so a crash or a failure leaves no half environment (its leftovers are swept by
 * the next install). One install at a time per environment (installLock.ts): concurrent
 * evaluations of a new example install it once, the others wait and reuse it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stateDir } from '../../../shared/discovery';
import { isAlive } from '../../../shared/processes';
import type { Executor } from '../../sandbox/Executor';
import { withoutCeilings } from '../../sandbox/limitCeilings';
import { sandboxEnv } from '../../sandbox/sandboxDir';
import { EnvironmentError } from './environmentError';
import { type EnvironmentKind, type EnvironmentSpec, sha256Of } from './environmentSpec';
import { withInstallLock } from './installLock';
import { installInSandbox } from './sandboxedInstall';

export const ENVIRONMENTS_DIR = 'environments';

/** The default cache: `environments/` in the state directory (PEAGEN_HOME, default ~/.peagen). */
export function defaultEnvironmentCache(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), ENVIRONMENTS_DIR);
}

export interface EnvironmentOptions {
  /** Where environments are cached; default {@link defaultEnvironmentCache}. */
  cacheDir?: string;
  /**
   * Installer settings (PIP_INDEX_URL, npm_config_registry, proxies, ...): the operator's, never
   * an example's. Added to those of this process's environment that name an index, a registry
   * or a proxy; the install sandbox sees nothing else of the host's environment.
   */
  installerEnv?: Record<string, string>;
  signal?: AbortSignal;
}

export interface InstalledEnvironment {
  spec: EnvironmentSpec;
  /** The cached environment's directory. */
  dir: string;
  /** Where its packages are, relative to {@link dir}: site-packages, or node_modules. */
  packagesPath: string;
  /** True when this call installed it; false when it was already there. */
  installed: boolean;
}

const inFlight = new Map<string, Promise<boolean>>();
const runtimes = new Map<EnvironmentKind, Promise<Runtime>>();

/** The cached environment for `spec`, installed first when it is not there yet. */
export async function ensureEnvironment(executor: Executor, spec: EnvironmentSpec, options: EnvironmentOptions = {}): Promise<InstalledEnvironment> {
  const runtime = await runtimeOf(spec.kind);
  const cacheDir = options.cacheDir ?? defaultEnvironmentCache();
  const settings = installerSettings(options);
  const dir = path.join(cacheDir, environmentDirName(spec, runtime, settings));
  let installed = false;
  if (!fs.existsSync(dir)) {
    // Evaluations of this process share one install; other processes wait on the lock.
    let install = inFlight.get(dir);
    if (!install) {
      install = installOnce(executor, spec, runtime, settings, cacheDir, dir, options.signal).finally(() => inFlight.delete(dir));
      inFlight.set(dir, install);
    }
    installed = await install;
  }
  return { spec, dir, packagesPath: packagesPathOf(spec.kind, dir), installed };
}

/** Whether `spec` is already installed in the cache (nothing is installed to find out). */
export async function isEnvironmentCached(spec: EnvironmentSpec, cacheDir = defaultEnvironmentCache(), options: Pick<EnvironmentOptions, 'installerEnv'> = {}): Promise<boolean> {
  const runtime = await runtimeOf(spec.kind);
  return fs.existsSync(path.join(cacheDir, environmentDirName(spec, runtime, installerSettings(options))));
}

/**
 * `python3.11-<key prefix>`, `node-abi115-<key prefix>`. The key covers the example's file
 * (every package it installs is named there: local files are refused, packageRequests.ts),
 * the interpreter's exact version and the installer settings.
 */
export function environmentDirName(spec: EnvironmentSpec, runtime: Pick<Runtime, 'tag' | 'version'>, settings: Record<string, string>): string {
  const sortedSettings = JSON.stringify(Object.entries(settings).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return `${runtime.tag}-${sha256Of([spec.kind, spec.sha256, runtime.version, sortedSettings]).slice(0, 16)}`;
}

/** Of this process's environment, what tells an installer where to get packages from (and through which proxy). */
const OPERATOR_SETTINGS = /^(https?_proxy|no_proxy|all_proxy|pip_(index_url|extra_index_url|trusted_host|default_timeout|retries|cert)|npm_config_(registry|@[\w.-]+:registry|strict_ssl|fetch_retries|fetch_timeout|proxy|https_proxy|noproxy|cafile))$/i;

function installerSettings(options: Pick<EnvironmentOptions, 'installerEnv'>): Record<string, string> {
  const inherited = Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && OPERATOR_SETTINGS.test(entry[0]));
  return { ...Object.fromEntries(inherited), ...options.installerEnv };
}

async function installOnce(executor: Executor, spec: EnvironmentSpec, runtime: Runtime, settings: Record<string, string>, cacheDir: string, dir: string, signal: AbortSignal | undefined): Promise<boolean> {
  fs.mkdirSync(cacheDir, { recursive: true });
  return withInstallLock(
    `${dir}.lock`,
    async () => {
      if (fs.existsSync(dir)) return false; // installed by the process we waited for
      sweepAbandonedInstalls(cacheDir);
      const temp = path.join(cacheDir, `.installing-${path.basename(dir)}-${process.pid}-${randomBytes(4).toString('hex')}`);
      try {
        fs.mkdirSync(temp, { mode: 0o755 });
        // The worker's ceilings are for task code; the install runs none and needs the registry.
        await installInSandbox(withoutCeilings(executor), spec, { target: temp, installer: runtime.installer, settings }, signal);
        fs.renameSync(temp, dir);
      } catch (error) {
        fs.rmSync(temp, { recursive: true, force: true });
        throw error;
      }
      return true;
    },
    signal,
  );
}

/** Removes what installs killed midway left (their pid is in the name). */
function sweepAbandonedInstalls(cacheDir: string): void {
  for (const name of fs.readdirSync(cacheDir)) {
    const pid = /^\.installing-.+-(\d+)-[0-9a-f]{8}$/.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !isAlive(Number(pid))) {
      fs.rmSync(path.join(cacheDir, name), { recursive: true, force: true });
    }
  }
}

function packagesPathOf(kind: EnvironmentKind, dir: string): string {
  if (kind === 'node') return 'node_modules';
  const lib = path.join(dir, 'lib');
  const version = fs.readdirSync(lib).find((name) => /^python\d+\.\d+$/.test(name));
  if (!version) throw new EnvironmentError(`the cached environment ${dir} has no lib/pythonX.Y: remove the directory and run again`);
  return path.join('lib', version, 'site-packages');
}

// ------------------------------------------------------------------ runtimes

export interface Runtime {
  /** What compiled packages depend on: python3.11, node-abi115. */
  tag: string;
  /** The interpreter's exact version (3.11.7, v20.11.1): part of the environment's key. */
  version: string;
  /** The host's pip (its package directory) or npm (its package root) for that interpreter; mounted read-only into the install sandbox. */
  installer: string | undefined;
}

/** The sandbox's interpreter: environments must be built for the Python/Node that imports them. */
function runtimeOf(kind: EnvironmentKind): Promise<Runtime> {
  let runtime = runtimes.get(kind);
  if (!runtime) {
    runtime = findRuntime(kind);
    runtime.catch(() => runtimes.delete(kind));
    runtimes.set(kind, runtime);
  }
  return runtime;
}

/** `python3.11 3.11.7 /usr/lib/python3/dist-packages/pip` (`-` for no pip). */
const PYTHON_PROBE = `
import os, platform, sys
try:
    import pip
    installer = os.path.dirname(os.path.abspath(pip.__file__))
    if not os.path.exists(os.path.join(installer, "__pip-runner__.py")):  # pip < 22.3
        installer = "-"
except Exception:
    installer = "-"
print("python%d.%d %s %s" % (sys.version_info[0], sys.version_info[1], platform.python_version(), installer))
`;

async function findRuntime(kind: EnvironmentKind): Promise<Runtime> {
  const searchPath = sandboxEnv(undefined, '', '').PATH ?? '';
  const find = (name: string): string | undefined =>
    searchPath
      .split(':')
      .map((dir) => path.join(dir, name))
      .find((file) => fs.existsSync(file));
  const program = find(kind === 'python' ? 'python3' : 'node');
  if (!program) throw new EnvironmentError(`cannot install a ${kind} environment: no ${kind === 'python' ? 'python3' : 'node'} on the sandbox's PATH (${searchPath})`);
  const query = kind === 'python' ? ['-c', PYTHON_PROBE] : ['-p', '"node-abi" + process.versions.modules + " " + process.version'];
  const answer = await new Promise<string>((resolve, reject) => {
    let out = '';
    const child = spawn(program, query, { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', (error) => reject(new EnvironmentError(`cannot run ${program}: ${error.message}`)));
    child.on('close', (code) => (code === 0 && /^[\w.-]+ [\w.+-]+( \S.*)?$/.test(out.trim()) ? resolve(out.trim()) : reject(new EnvironmentError(`cannot ask ${program} for its version (exit status ${code})`))));
  });
  const [tag = '', version = '', ...rest] = answer.split(' ');
  if (kind === 'python') {
    const pip = rest.join(' ');
    return { tag, version, installer: pip !== '-' && pip !== '' ? pip : undefined };
  }
  // npm's package root, from its bin/npm-cli.js (what the `npm` on the sandbox's PATH links to).
  const npm = find('npm');
  const npmCli = npm && fs.realpathSync(npm);
  return { tag, version, installer: npmCli?.endsWith(path.join('bin', 'npm-cli.js')) ? path.dirname(path.dirname(npmCli)) : undefined };
}
