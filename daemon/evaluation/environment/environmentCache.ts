/**
 * Installs an example's environment once per host and reuses it: pip into a venv for a
 * requirements.txt, npm into a node_modules for a package.json. It happens outside the
 * sandbox (installers need the network and the user's pip/npm settings; the sandbox has
 * neither), under the state directory (`<PEAGEN_HOME>/environments/`), keyed by the
 * runtime and the file's sha256.
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
import { sandboxEnv } from '../../sandbox/sandboxDir';
import { EnvironmentError } from './environmentError';
import { type EnvironmentKind, type EnvironmentSpec, NODE_MANIFEST_FILE, nodeDependencies } from './environmentSpec';
import { describeInstallFailure } from './installFailure';
import { withInstallLock } from './installLock';

export const ENVIRONMENTS_DIR = 'environments';

/** The default cache: `environments/` in the state directory (PEAGEN_HOME, default ~/.peagen). */
export function defaultEnvironmentCache(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), ENVIRONMENTS_DIR);
}

export interface EnvironmentOptions {
  /** Where environments are cached; default {@link defaultEnvironmentCache}. */
  cacheDir?: string;
  /** Variables added to the installer's environment (pip and npm read their settings there). */
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
export async function ensureEnvironment(spec: EnvironmentSpec, options: EnvironmentOptions = {}): Promise<InstalledEnvironment> {
  const runtime = await runtimeOf(spec.kind);
  const cacheDir = options.cacheDir ?? defaultEnvironmentCache();
  const dir = path.join(cacheDir, environmentDirName(spec, runtime));
  let installed = false;
  if (!fs.existsSync(dir)) {
    // Evaluations of this process share one install; other processes wait on the lock.
    let install = inFlight.get(dir);
    if (!install) {
      install = installOnce(spec, runtime, cacheDir, dir, options).finally(() => inFlight.delete(dir));
      inFlight.set(dir, install);
    }
    installed = await install;
  }
  return { spec, dir, packagesPath: packagesPathOf(spec.kind, dir), installed };
}

/** Whether `spec` is already installed in the cache (nothing is installed to find out). */
export async function isEnvironmentCached(spec: EnvironmentSpec, cacheDir = defaultEnvironmentCache()): Promise<boolean> {
  const runtime = await runtimeOf(spec.kind);
  return fs.existsSync(path.join(cacheDir, environmentDirName(spec, runtime)));
}

/** `python3.11-<sha256 prefix>`, `node-abi115-<sha256 prefix>`: one per runtime and file content. */
function environmentDirName(spec: EnvironmentSpec, runtime: Runtime): string {
  return `${runtime.tag}-${spec.sha256.slice(0, 16)}`;
}

async function installOnce(spec: EnvironmentSpec, runtime: Runtime, cacheDir: string, dir: string, options: EnvironmentOptions): Promise<boolean> {
  fs.mkdirSync(cacheDir, { recursive: true });
  return withInstallLock(
    `${dir}.lock`,
    async () => {
      if (fs.existsSync(dir)) return false; // installed by the process we waited for
      sweepAbandonedInstalls(cacheDir);
      const temp = path.join(cacheDir, `.installing-${path.basename(dir)}-${process.pid}-${randomBytes(4).toString('hex')}`);
      try {
        fs.mkdirSync(temp, { mode: 0o755 });
        await (spec.kind === 'python' ? installPython : installNode)(spec, runtime, temp, options);
        fs.renameSync(temp, dir);
      } catch (error) {
        fs.rmSync(temp, { recursive: true, force: true });
        throw error;
      }
      return true;
    },
    options.signal,
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

async function installPython(spec: EnvironmentSpec, runtime: Runtime, temp: string, options: EnvironmentOptions): Promise<void> {
  const env = installerEnv(options);
  // With the interpreter's own pip, the venv needs none (copying pip into it is most of the
  // time a venv takes): that pip installs into the venv (--python).
  const venvPython = path.join(temp, 'bin', 'python');
  await runInstaller(spec, [runtime.program, '-m', 'venv', ...(runtime.hasPip ? ['--without-pip'] : []), temp], { cwd: spec.exampleDir, env }, 'creating a venv');
  const pip = runtime.hasPip ? [runtime.program, '-m', 'pip', '--python', venvPython] : [venvPython, '-m', 'pip'];
  // pip reads relative paths in requirements.txt (local wheels) from its cwd. Wheels only: a
  // wheel installs without running any of the package's code, while building a source
  // distribution runs its setup code here, outside every sandbox, with the daemon's rights
  // (and the requirements may come from a client of a shared daemon). A file that asks for a
  // source build is refused before pip runs.
  refuseSourceBuilds(spec);
  await runInstaller(
    spec,
    [...pip, 'install', '--disable-pip-version-check', '--no-input', '--no-warn-script-location', '--only-binary=:all:', '-r', path.join(spec.exampleDir, spec.file)],
    { cwd: spec.exampleDir, env },
    'pip install',
  );
}

/**
 * Why a requirements.txt line would make pip build a package from its source (run its code),
 * or null. --only-binary covers packages from an index; a local directory, an archive, a VCS
 * or URL reference and an editable install are built whatever it says, and a nested file
 * (-r, -c) is not read here, so those are refused.
 */
export function sourceBuildOf(line: string): string | null {
  const text = line.replace(/(^|\s)#.*$/, '').trim();
  if (text === '') return null;
  if (/^(-e|--editable|--no-binary)\b/.test(text)) return 'asks pip to build a package from its source';
  if (/^(-r|--requirement|-c|--constraint)\b/.test(text)) return 'names another requirements file, which is not checked';
  if (text.startsWith('-')) return null;
  // A requirement: a name (PEP 508), or a path / URL, possibly as "name @ URL".
  const reference = (/@\s*(\S+)/.exec(text)?.[1] ?? text.split(/[\s;]/)[0]!).replace(/#.*$/, '');
  const isLocation = /[/\\]|:\/\/|^\.|^file:|\.(zip|tgz|tar|tar\.gz|tar\.bz2|tar\.xz)$/.test(reference);
  if (isLocation && !reference.endsWith('.whl')) return 'names a source (a directory, an archive or a repository) that pip would build';
  return null;
}

/** A requirements.txt that would make pip run a package's code to install it: refused with its line. */
function refuseSourceBuilds(spec: EnvironmentSpec): void {
  const file = path.join(spec.exampleDir, spec.file);
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const why = sourceBuildOf(line);
    if (why) {
      throw new EnvironmentError(
        `${file}:${index + 1}: "${line.trim()}" ${why}: building runs the package's own code outside the sandbox. Peagen installs wheels only: name a released version, or a .whl file (built once with "pip wheel")`,
      );
    }
  }
}

async function installNode(spec: EnvironmentSpec, runtime: Runtime, temp: string, options: EnvironmentOptions): Promise<void> {
  // npm installs beside a package.json: a copy whose `file:` dependencies are made absolute
  // (they are relative to the example) and packed into the environment, not linked to it
  // (--install-links): a link to the example would point nowhere inside a sandbox.
  const manifestPath = path.join(spec.exampleDir, NODE_MANIFEST_FILE);
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
  const dependencies = Object.fromEntries(
    Object.entries(nodeDependencies(JSON.stringify(manifest), spec.exampleDir)).map(([name, version]) => [
      name,
      version.startsWith('file:') ? `file:${path.resolve(spec.exampleDir, version.slice('file:'.length))}` : version,
    ]),
  );
  // Only what the evaluator and the candidate import: no scripts, no devDependencies.
  fs.writeFileSync(path.join(temp, NODE_MANIFEST_FILE), `${JSON.stringify({ name: 'peagen-environment', private: true, dependencies }, null, 2)}\n`);
  await runInstaller(
    spec,
    // --ignore-scripts: no package's install script runs here, outside every sandbox (as for pip's wheels only).
    [runtime.npm, 'install', '--no-audit', '--no-fund', '--install-links', '--omit=dev', '--no-update-notifier', '--ignore-scripts'],
    { cwd: temp, env: installerEnv(options) },
    'npm install',
  );
}

const SHELL_PYTHON_VARIABLES = new Set(['PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV']);

function installerEnv(options: EnvironmentOptions): NodeJS.ProcessEnv {
  // The user's own settings (proxies, indexes, registries, certificates) apply, but not a
  // venv or Python path of the shell this runs from: the venv must see only its own packages.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SHELL_PYTHON_VARIABLES.has(name)));
  return { ...inherited, PIP_DISABLE_PIP_VERSION_CHECK: '1', npm_config_update_notifier: 'false', ...options.installerEnv };
}

function runInstaller(spec: EnvironmentSpec, argv: string[], options: { cwd: string; env: NodeJS.ProcessEnv }, what: string): Promise<void> {
  const [program = '', ...args] = argv;
  return new Promise((resolve, reject) => {
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-64 * 1024);
    };
    const child = spawn(program, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => reject(new EnvironmentError(`cannot install ${describeSpec(spec)}: ${what} could not start (${error.message})`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      const failure = describeInstallFailure(spec.kind, output);
      const subject = failure.packageName !== undefined ? `the package "${failure.packageName}"` : 'a package';
      reject(
        new EnvironmentError(
          `cannot install ${describeSpec(spec)}: ${what} failed on ${subject} (${signal ? `killed by ${signal}` : `exit status ${code}`}): ${failure.reason}. Fix ${spec.file} and run again; nothing was cached.`,
          failure.packageName,
        ),
      );
    });
  });
}

function describeSpec(spec: EnvironmentSpec): string {
  return path.join(spec.exampleDir, spec.file);
}

function packagesPathOf(kind: EnvironmentKind, dir: string): string {
  if (kind === 'node') return 'node_modules';
  const lib = path.join(dir, 'lib');
  const version = fs.readdirSync(lib).find((name) => /^python\d+\.\d+$/.test(name));
  if (!version) throw new EnvironmentError(`the cached environment ${dir} has no lib/pythonX.Y: remove the directory and run again`);
  return path.join('lib', version, 'site-packages');
}

// ------------------------------------------------------------------ runtimes

interface Runtime {
  /** The interpreter the sandboxes run (the first on the sandbox PATH). */
  program: string;
  /** npm beside it (node only). */
  npm: string;
  /** What compiled packages depend on: python3.11, node-abi115. */
  tag: string;
  /** Python: whether the interpreter has pip (recent enough to install into another, --python). */
  hasPip: boolean;
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

/** `python3.11 pip` (pip 22.3+, which has --python) or `python3.11 -`. */
const PYTHON_PROBE = `
import sys
try:
    import pip
    pip_ok = tuple(int(part) for part in pip.__version__.split(".")[:2]) >= (22, 3)
except Exception:
    pip_ok = False
print("python%d.%d %s" % (sys.version_info[0], sys.version_info[1], "pip" if pip_ok else "-"))
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
  const npm = kind === 'node' ? (find('npm') ?? 'npm') : '';
  const query =
    kind === 'python'
      ? ['-c', PYTHON_PROBE]
      : ['-p', '"node-abi" + process.versions.modules'];
  const answer = await new Promise<string>((resolve, reject) => {
    let out = '';
    const child = spawn(program, query, { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', (error) => reject(new EnvironmentError(`cannot run ${program}: ${error.message}`)));
    child.on('close', (code) => (code === 0 && /^[\w.-]+( (pip|-))?$/.test(out.trim()) ? resolve(out.trim()) : reject(new EnvironmentError(`cannot ask ${program} for its version (exit status ${code})`))));
  });
  const [tag = '', pip] = answer.split(' ');
  return { program, npm, tag, hasPip: pip === 'pip' };
}
