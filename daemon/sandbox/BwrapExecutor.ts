/**
 * Runs each command in a fresh bubblewrap (`bwrap`) sandbox: new user, mount, pid, ipc, uts,
 * cgroup and network namespaces, no capabilities, and a root file system built from scratch:
 *
 *   /usr, /bin, /lib*, /sbin   the host's, read-only (what python3, node and sh need)
 *   /etc                       read-only: a copy, made once per executor, of the few /etc files
 *                              python3, node and TLS clients read (loader config, certificates,
 *                              alternatives, time zone), a passwd, group and hosts of the
 *                              sandbox's own; the loader cache (and with network resolv.conf)
 *                              bound live on top
 *   /workspace                 the writable copy of the workspace
 *   /home/sandbox              HOME, empty and writable
 *   /tmp                       TMPDIR, a fresh tmpfs (counted against the memory limit)
 *   /proc, /dev                the sandbox's own
 *   mounts                     read-only, at their sandboxPath
 *
 * Nothing else of the host is visible: not /root, /home, /run, /var, /sys, nor the host's /tmp.
 * The root stays read-only. Inside, the command runs as uid 1000 ("sandbox") of its own user
 * namespace, which maps to the daemon's uid outside (with a setuid bwrap that cannot make user
 * namespaces: as the daemon's uid). Also as root it holds no capabilities and cannot create
 * nested user namespaces.
 *
 * Limits: a cgroup per run (v2, or v1 memory+pids on hybrid hosts) caps the memory (no swap)
 * and the processes of the whole sandbox, and tells why it stopped; without usable cgroups,
 * per-process rlimits (RLIMIT_DATA, RLIMIT_NPROC) do a weaker job, as available() says.
 * The deadline, a cancel or an output flood SIGKILLs bwrap, whose pid namespace then takes
 * every process of the sandbox with it; the cgroup kill catches anything left.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { isAlive } from '../../shared/processes';
import { openCgroups, type CgroupManager, type SandboxCgroup } from './cgroup';
import { trackExecutor, untrackExecutor } from './liveSandboxes';
import { checkSandboxOwner, sandboxOwner } from './owner';
import {
  type Availability,
  type ExecutionLimits,
  type ExecutionRequest,
  type ExecutionResult,
  type Executor,
  type PreparedSandbox,
  type PrepareOptions,
  resolveLimits,
  WORKSPACE_PATH,
} from './Executor';
import { reclaimSandboxDirs, SandboxDir, sandboxEnv } from './sandboxDir';
import { supervise } from './supervise';
import { goScript, STUB_PRELUDE } from './warm/goScript';
import { mirrorTree } from './warm/mirrorTree';
import { mountIndex, type PreparedShape, preparedShape } from './warm/preparedShape';
import { SingleUseSandbox } from './warm/SingleUseSandbox';

export const SANDBOX_HOME = '/home/sandbox';
export const SANDBOX_TMP = '/tmp';
const SANDBOX_UID = 1000;
const SANDBOX_HOSTNAME = 'peagen-sandbox';
/** bwrap's own processes in the sandbox's cgroup: the monitor outside and the reaper (pid 1). */
const BWRAP_PROCESSES = 2;
/** Exit status of the wrapper when it could not set the sandbox's limits up. */
const SETUP_FAILED = 125;

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** What of /etc python3, node, sh and TLS clients read; never /etc/ssl/private and the like. */
const ETC_FILES = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'localtime',
  'timezone',
  'nsswitch.conf',
  'host.conf',
  'gai.conf',
  'services',
  'protocols',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates.conf',
  'pki/tls/certs',
  'pki/tls/openssl.cnf',
  'pki/ca-trust/extracted',
  'crypto-policies',
  'mime.types',
  'os-release',
  'debian_version',
];
/** Bound from the host on top of the copy, so that they stay current. */
const ETC_LIVE_FILES = ['ld.so.cache'];
/** Only with limits.network. */
const ETC_NETWORK_FILES = ['resolv.conf'];
const ETC_PREFIX = 'peagen-bwrap-etc-';

/**
 * When the process exits: the /etc copies of executors never closed, and the sandbox
 * directories and cgroups of runs still going (their processes die with bwrap's parent).
 */
const removeOnExit = new Set<string>();
const cgroupsInUse = new Set<SandboxCgroup>();
process.once('exit', () => {
  for (const cgroup of cgroupsInUse) cgroup.destroySync(200);
  for (const dir of removeOnExit) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Sets the limits, then becomes bwrap. Arguments up to `--`: `cg=FILE` (join a cgroup by
 * writing 0, i.e. itself, before anything else starts), `data=KB`, `nproc=N` (rlimits).
 * Failures are reported on fd 3, which is closed before bwrap starts so the command cannot
 * write there.
 */
const WRAPPER = `fail() { echo "$1" >&3; exit ${SETUP_FAILED}; }
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
  case "$1" in
    cg=*) { echo 0 > "\${1#cg=}"; } 2>/dev/null || fail "cannot join the cgroup \${1#cg=}" ;;
    data=*) ulimit -d "\${1#data=}" 2>/dev/null || fail "cannot set RLIMIT_DATA" ;;
    nproc=*) ulimit -p "\${1#nproc=}" 2>/dev/null || fail "cannot set RLIMIT_NPROC" ;;
  esac
  shift
done
shift
exec 3>&-
exec "$@"`;

/** Without cgroups: what a process's stderr says when an rlimit struck. */
const MEMORY_FAILURE = /MemoryError|Cannot allocate memory|std::bad_alloc|out of memory|Fatal process out of memory|Allocation failed/;
const FORK_FAILURE = /Cannot fork|can't fork|fork: (retry: )?Resource temporarily unavailable|BlockingIOError: \[Errno 11\]|spawn EAGAIN/;

export interface BwrapExecutorOptions {
  /** The bwrap binary; default: found on PATH or in /usr/bin. */
  bwrap?: string;
  /** Use cgroups when the host allows (default). False forces the rlimit fallback. */
  cgroups?: boolean;
}

/** How each limit is enforced, once available() has run. */
export interface BwrapEnforcement {
  memory: 'cgroup' | 'rlimit';
  pids: 'cgroup' | 'rlimit' | 'none';
  detail: string;
}

interface Setup {
  bwrap: string;
  version: string;
  /** The host directory mounted as /etc (see prepareEtc). */
  etc: string;
  /** bwrap's system-directory and /etc arguments, the same for every run. */
  systemArgs: string[];
  networkArgs: string[];
  /** Added to the default PATH when node lives outside the system directories. */
  extraPath: string | undefined;
  userns: boolean;
  disableUserns: boolean;
  clearenv: boolean;
  tmpfsSize: boolean;
  cgroups: CgroupManager | undefined;
  enforcement: BwrapEnforcement;
}

export class BwrapExecutor implements Executor {
  readonly name = 'bwrap' as const;
  readonly isolates = true;
  private setup: Promise<Setup | { failed: string }> | undefined;
  /** Runs in progress: close() waits for them before it removes the /etc copy they mount. */
  private readonly running = new Set<Promise<unknown>>();
  /** Prepared sandboxes not yet used or discarded. */
  private readonly prepared = new Set<PreparedBwrapSandbox>();

  constructor(private readonly options: BwrapExecutorOptions = {}) {}

  async available(): Promise<Availability> {
    const setup = await this.setUp();
    if ('failed' in setup) return { ok: false, reason: setup.failed };
    return { ok: true, detail: `bubblewrap ${setup.version}; limits: ${setup.enforcement.detail}` };
  }

  /** How memory and pids limits are enforced here (after available()), for callers and tests. */
  async enforcement(): Promise<BwrapEnforcement | undefined> {
    const setup = await this.setUp();
    return 'failed' in setup ? undefined : setup.enforcement;
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    return this.track(
      (async () => {
        const setup = await this.setUp();
        if ('failed' in setup) throw new Error(`the bwrap executor is not available: ${setup.failed}`);
        trackExecutor(this);
        return this.execute(setup, request);
      })(),
    );
  }

  private async track<T>(run: Promise<T>): Promise<T> {
    this.running.add(run);
    try {
      return await run;
    } finally {
      this.running.delete(run);
    }
  }

  /**
   * Starts a sandbox for a task still to come (see PreparedBwrapSandbox): resolves when it
   * waits, ready, for its command. A request with other mount points, memory, pids or
   * network runs cold.
   */
  async prepare(options: PrepareOptions = {}): Promise<PreparedSandbox> {
    const shape = preparedShape(options);
    const setup = await this.setUp();
    if ('failed' in setup) throw new Error(`the bwrap executor is not available: ${setup.failed}`);
    trackExecutor(this);
    const sandbox = await PreparedBwrapSandbox.start(
      {
        runCold: (request) => this.run(request),
        track: (run) => this.track(run),
        forget: (prepared) => this.prepared.delete(prepared),
      },
      setup,
      shape,
    );
    this.prepared.add(sandbox);
    return sandbox;
  }

  /**
   * bwrap dies with the process that started it (--die-with-parent), and with it every
   * process of the sandbox; what outlives a killed owner is its directories (the recorded
   * process group is killed first, should bwrap have outlived it) and its cgroups.
   */

  async reclaim(owner: string): Promise<void> {
    checkSandboxOwner(owner);
    const setup = await this.setup;
    const cgroups = setup && !('failed' in setup) ? setup.cgroups : this.options.cgroups === false ? undefined : openCgroupsQuietly();
    await reclaimSandboxDirs(owner);
    await cgroups?.reclaim(owner);
    for (const entry of safeReaddir(os.tmpdir())) {
      if (entry.startsWith(`${ETC_PREFIX}${owner}-`)) fs.rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true });
    }
  }

  /**
   * Waits for the runs in progress, discards the prepared sandboxes still unused (they mount
   * it), then removes the /etc copy. Idempotent; a later run prepares everything again.
   */
  async close(): Promise<void> {
    await Promise.allSettled([...this.running]);
    await Promise.allSettled([...this.prepared].map((sandbox) => sandbox.discard()));
    const setup = this.setup;
    this.setup = undefined;
    untrackExecutor(this);
    const prepared = await setup;
    // The copy of this setup, not of one a run started after this close() prepared.
    if (prepared && !('failed' in prepared)) {
      fs.rmSync(prepared.etc, { recursive: true, force: true });
      removeOnExit.delete(prepared.etc);
    }
  }

  private setUp(): Promise<Setup | { failed: string }> {
    this.setup ??= this.probe();
    return this.setup;
  }

  private async probe(): Promise<Setup | { failed: string }> {
    const install = 'install bubblewrap (`apt-get install bubblewrap`, or `node scripts/provision/bwrap.mjs` as root)';
    const bwrap = this.options.bwrap ?? findOnPath('bwrap');
    if (!bwrap) return { failed: `bwrap was not found on PATH: ${install}` };
    let version: string;
    let help: string;
    try {
      version = (await capture(bwrap, ['--version'])).trim().replace(/^bubblewrap\s*/, '');
      help = await capture(bwrap, ['--help']);
    } catch (error) {
      return { failed: `${bwrap} does not run (${message(error)}): ${install}` };
    }
    const node = nodeBinding();
    let etc: string;
    try {
      etc = prepareEtc();
    } catch (error) {
      return { failed: `cannot prepare the sandbox's /etc: ${message(error)}` };
    }
    removeOnExit.add(etc);
    const base = {
      bwrap,
      version,
      etc,
      systemArgs: [...systemArgs(etc), ...node.args],
      networkArgs: etcArgs(ETC_NETWORK_FILES),
      extraPath: node.extraPath,
      disableUserns: help.includes('--disable-userns'),
      clearenv: help.includes('--clearenv'),
      tmpfsSize: help.includes('--size'),
    };
    const rlimits: BwrapEnforcement = {
      memory: 'rlimit',
      pids: process.getuid?.() === 0 ? 'none' : 'rlimit',
      detail: '',
    };
    let cgroupProblem: string | undefined;
    const candidates: Array<Pick<Setup, 'cgroups' | 'enforcement'>> = [];
    if (this.options.cgroups !== false) {
      const cgroups = openCgroups();
      if (cgroups.ok) {
        candidates.push({
          cgroups: cgroups.manager,
          enforcement: { memory: 'cgroup', pids: 'cgroup', detail: `memory and processes of the whole sandbox by ${cgroups.manager.detail}` },
        });
      } else {
        cgroupProblem = cgroups.reason;
      }
    } else {
      cgroupProblem = 'cgroups disabled by configuration';
    }
    const fallbackDetail = (problem: string | undefined): string =>
      `per-process rlimits only (RLIMIT_DATA for memory${rlimits.pids === 'none' ? '; no process limit when running as root' : ', RLIMIT_NPROC for processes'}) because cgroups are not usable: ${problem ?? 'unknown'}; run the daemon as root, or in a delegated cgroup v2 subtree, for whole-sandbox limits`;
    candidates.push({ cgroups: undefined, enforcement: { ...rlimits, detail: fallbackDetail(cgroupProblem) } });

    // A trivial sandbox must really run; user namespaces with a custom uid first, then
    // without (setuid bwrap), cgroups first, then rlimits.
    const failures: string[] = [];
    const workspace = SandboxDir.makeOwnedTemp('bwrap-probe');
    try {
      for (const limits of candidates) {
        for (const userns of [true, false]) {
          const setup: Setup = { ...base, ...limits, userns };
          try {
            if (userns) writeIdentity(etc, SANDBOX_UID, SANDBOX_UID);
            else writeIdentity(etc, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
            const result = await this.execute(setup, { command: ['sh', '-c', 'exit 0'], workspace, limits: { timeoutMs: 20_000 } });
            if (result.exitCode === 0) return setup;
            failures.push(`${result.stderr.trim() || `exit ${result.exitCode ?? result.signal}`}`);
          } catch (error) {
            failures.push(message(error));
            if (limits.cgroups) {
              cgroupProblem = message(error);
              const fallback = candidates[candidates.length - 1];
              if (fallback) fallback.enforcement.detail = fallbackDetail(cgroupProblem);
              break;
            }
          }
        }
      }
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
    fs.rmSync(etc, { recursive: true, force: true });
    removeOnExit.delete(etc);
    return {
      failed: `bwrap ${version} cannot start a sandbox here (${[...new Set(failures)].join('; ')}). Unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04 an AppArmor profile for bwrap) — or use the docker executor`,
    };
  }

  private async execute(setup: Setup, request: ExecutionRequest): Promise<ExecutionResult> {
    const limits = resolveLimits(request.limits);
    if (!request.command[0]) throw new Error('the command is empty');
    const mounts = (request.mounts ?? []).map((mount) => ({ hostPath: mount.hostPath, sandboxPath: checkMount(mount.hostPath, mount.sandboxPath) }));
    const owner = sandboxOwner();
    const dir = SandboxDir.create(request.workspace, { files: request.files, owner });
    removeOnExit.add(dir.root);
    let cgroup: SandboxCgroup | undefined;
    try {
      const env = commandEnv(setup, request);
      const args = bwrapArgs(setup, limits, { dir, env, mounts, cwd: request.cwd ?? WORKSPACE_PATH, command: request.command });
      const limited = limitSandbox(setup, limits, owner);
      cgroup = limited.cgroup;
      const child = spawnSandbox(dir, [...limited.wrapperArgs, '--', setup.bwrap, ...args], setup.clearenv ? {} : env, false);
      return await superviseSandbox(setup, child, request, limits, cgroup, false);
    } finally {
      await releaseSandbox(dir, cgroup);
    }
  }
}

/**
 * A bwrap sandbox made before its task: namespaces, mounts and cgroup are set up, and a
 * shell stub waits inside (as the process a cold run's command would be) for one line on
 * fd 4, the go signal (goScript.ts). When the task arrives, its workspace is copied into the
 * bound workspace directory, each read-only mount directory (bound empty) is filled
 * (mirrorTree.ts), and the go line makes the stub exec the command: the task costs a few
 * file operations, a socket write and two execs.
 */
class PreparedBwrapSandbox extends SingleUseSandbox {
  readonly executor = 'bwrap' as const;
  private exited = false;
  private released: Promise<void> | undefined;

  private constructor(
    private readonly hooks: PreparedHooks,
    private readonly setup: Setup,
    protected readonly shape: PreparedShape,
    private readonly dir: SandboxDir,
    private readonly mountDirs: readonly string[],
    private readonly cgroup: SandboxCgroup | undefined,
    private readonly child: ChildProcess,
  ) {
    super();
    child.once('exit', () => (this.exited = true));
  }

  /** Resolves once the stub waits inside the finished sandbox; throws when it cannot be made. */
  static async start(hooks: PreparedHooks, setup: Setup, shape: PreparedShape): Promise<PreparedBwrapSandbox> {
    const owner = sandboxOwner();
    const dir = SandboxDir.create(undefined, { owner });
    removeOnExit.add(dir.root);
    let cgroup: SandboxCgroup | undefined;
    try {
      const mounts = shape.mountPoints.map((sandboxPath, index) => {
        const hostPath = path.join(dir.root, 'ro', String(index));
        fs.mkdirSync(hostPath, { recursive: true });
        return { hostPath, sandboxPath: checkMount(hostPath, sandboxPath) };
      });
      const args = bwrapArgs(setup, shape.limits, { dir, env: {}, mounts, cwd: WORKSPACE_PATH, command: ['/bin/sh', '-c', BWRAP_STUB] });
      const limited = limitSandbox(setup, shape.limits, owner);
      cgroup = limited.cgroup;
      const child = spawnSandbox(dir, [...limited.wrapperArgs, '--', setup.bwrap, ...args], {}, true);
      await waitUntilReady(child);
      return new PreparedBwrapSandbox(
        hooks,
        setup,
        shape,
        dir,
        mounts.map((mount) => mount.hostPath),
        cgroup,
        child,
      );
    } catch (error) {
      await releaseSandbox(dir, cgroup);
      throw error;
    }
  }

  protected ended(): boolean {
    // A reclaim kills the sandbox and removes its directory at once; Node hears of the exit only
    // when it reaps the child, which can come after the task arrives. No directory: it ended.
    return this.exited || !fs.existsSync(this.dir.root);
  }

  protected runCold(request: ExecutionRequest): Promise<ExecutionResult> {
    return this.hooks.runCold(request);
  }

  /** Tracked as a run in progress, release included: close() waits for both. */
  protected runWarm(request: ExecutionRequest): Promise<ExecutionResult> {
    return this.hooks.track(this.handOver(request));
  }

  private async handOver(request: ExecutionRequest): Promise<ExecutionResult> {
    try {
      const limits = resolveLimits(request.limits);
      // The hand-over: what a cold run puts in place before bwrap starts.
      this.dir.fill(request.workspace, { files: request.files });
      for (const mount of request.mounts ?? []) mirrorTree(mount.hostPath, this.mountDirs[mountIndex(this.shape, mount.sandboxPath)] as string);
      const go = goScript({ command: request.command, env: commandEnv(this.setup, request), cwd: request.cwd ?? WORKSPACE_PATH });
      (this.child.stdio[GO_FD] as Writable).end(go);
      return await superviseSandbox(this.setup, this.child, request, limits, this.cgroup, true);
    } finally {
      await this.release();
    }
  }

  protected release(): Promise<void> {
    this.released ??= (async () => {
      killGroup(this.child);
      this.cgroup?.kill();
      if (!this.cgroup && !this.exited) await new Promise((resolve) => this.child.once('exit', resolve));
      await releaseSandbox(this.dir, this.cgroup);
      this.hooks.forget(this);
    })();
    return this.released;
  }
}

/** What a prepared sandbox needs of its executor. */
interface PreparedHooks {
  runCold(request: ExecutionRequest): Promise<ExecutionResult>;
  /** Counts the run as in progress (close() waits for it). */
  track<T>(run: Promise<T>): Promise<T>;
  forget(sandbox: PreparedBwrapSandbox): void;
}

/** The fd of the stub's go line (and of its readiness byte). */
const GO_FD = 4;
/** Says it is ready, waits for the go line, closes the channel so the command cannot reach it, runs the line. */
const BWRAP_STUB = `${STUB_PRELUDE}; printf r >&${GO_FD}; IFS= read -r go <&${GO_FD} || exit ${SETUP_FAILED}; exec ${GO_FD}<&-; eval "$go"`;
/** How long a prepared sandbox may take to be ready. */
const READY_TIMEOUT_MS = 30_000;

async function waitUntilReady(child: ChildProcess): Promise<void> {
  const channel = child.stdio[GO_FD] as Readable;
  let stderr = '';
  let setupError = '';
  const onStderr = (chunk: Buffer): void => void (stderr += chunk.toString());
  const onSetup = (chunk: Buffer): void => void (setupError += chunk.toString());
  child.stderr?.on('data', onStderr);
  (child.stdio[3] as Readable | null)?.on('data', onSetup);
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      channel.once('data', () => resolve());
      child.once('exit', (code, signal) => {
        // Give the pipes a moment: what bwrap said is the error.
        setTimeout(() => reject(new Error(`the prepared sandbox did not start (${code ?? signal}): ${(setupError || stderr).trim()}`)), 20);
      });
      timer = setTimeout(() => reject(new Error(`the prepared sandbox was not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
  } catch (error) {
    killGroup(child);
    throw error;
  } finally {
    clearTimeout(timer);
    child.stderr?.off('data', onStderr);
    child.stderr?.pause();
    channel.pause();
  }
}

/** The command's environment: the request's, with node's bin directory when it is outside the system dirs. */
function commandEnv(setup: Setup, request: ExecutionRequest): Record<string, string> {
  const env = sandboxEnv(request.env, SANDBOX_HOME, SANDBOX_TMP);
  if (setup.extraPath && !request.env?.PATH) env.PATH = `${env.PATH}:${setup.extraPath}`;
  return env;
}

/** The run's cgroup (joined by the wrapper), or the rlimits that stand in for it. */
function limitSandbox(setup: Setup, limits: ExecutionLimits, owner: string): { cgroup: SandboxCgroup | undefined; wrapperArgs: string[] } {
  if (setup.cgroups) {
    const cgroup = setup.cgroups.create({ memoryBytes: limits.memoryMb * 1024 * 1024, pids: limits.pids + BWRAP_PROCESSES }, owner);
    cgroupsInUse.add(cgroup);
    return { cgroup, wrapperArgs: cgroup.joinFiles.map((file) => `cg=${file}`) };
  }
  const wrapperArgs = [`data=${limits.memoryMb * 1024}`];
  if (setup.enforcement.pids === 'rlimit') wrapperArgs.push(`nproc=${limits.pids + BWRAP_PROCESSES}`);
  return { cgroup: undefined, wrapperArgs };
}

/** Starts the wrapper (which becomes bwrap) in a process group of its own, recorded for reclaim. */
function spawnSandbox(dir: SandboxDir, wrapperArgs: string[], env: Record<string, string>, goChannel: boolean): ChildProcess {
  const child = spawn('/bin/sh', ['-c', WRAPPER, 'peagen-sandbox', ...wrapperArgs], {
    cwd: '/',
    env: { PATH: '/usr/bin:/bin', ...env },
    detached: true,
    stdio: goChannel ? ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  dir.recordProcessGroup(child.pid);
  return child;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function releaseSandbox(dir: SandboxDir, cgroup: SandboxCgroup | undefined): Promise<void> {
  if (cgroup) {
    await cgroup.destroy();
    cgroupsInUse.delete(cgroup);
  }
  dir.dispose();
  removeOnExit.delete(dir.root);
}

/**
 * Watches a started sandbox to its end. `warm`: the command was started by the prepared
 * stub (through env, which reports a missing program as 127 itself).
 */
async function superviseSandbox(
  setup: Setup,
  child: ChildProcess,
  request: ExecutionRequest,
  limits: ExecutionLimits,
  cgroup: SandboxCgroup | undefined,
  warm: boolean,
): Promise<ExecutionResult> {
  let setupError = '';
  (child.stdio[3] as Readable | null)?.on('data', (chunk: Buffer) => (setupError += chunk.toString()));
  const run = await supervise(child, {
    limits,
    stdin: request.stdin,
    signal: request.signal,
    // bwrap's exit ends its pid namespace; whatever escaped into the cgroup dies too.
    killAll: () => {
      killGroup(child);
      cgroup?.kill();
    },
    ...(cgroup && {
      check: () => {
        const stats = cgroup.stats();
        return stats.oomKills > 0 ? 'memory' : stats.pidsLimitHits > 0 ? 'pids' : undefined;
      },
    }),
    watch: (stop) => {
      if (cgroup || setup.enforcement.pids !== 'rlimit') return;
      // Without cgroups a failed fork is the only sign of the process limit.
      let tail = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        tail = (tail + chunk.toString('latin1')).slice(-4096);
        if (FORK_FAILURE.test(tail)) stop('pids');
      });
    },
  });
  const code = run.exitCode;
  let stoppedBy = run.stoppedBy;
  const { stdout, stderr, signal } = run;
  if (code === SETUP_FAILED && setupError) throw new Error(`the sandbox's limits could not be set: ${setupError.trim()}`);

  const stderrText = stderr.text();
  const stats = cgroup?.stats();
  if (stats) {
    if (stats.oomKills > 0) stoppedBy ??= 'memory';
    else if (stats.pidsLimitHits > 0) stoppedBy ??= 'pids';
  } else if (code !== 0 && MEMORY_FAILURE.test(stderrText)) {
    stoppedBy ??= 'memory';
  }
  return {
    executor: 'bwrap',
    exitCode: warm ? code : commandExitCode(code, stderrText),
    signal,
    stdout: stdout.text(),
    stderr: stderrText,
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    wallMs: run.wallMs,
    ...(stats?.peakMemoryBytes !== undefined && { peakMemoryKb: Math.round(stats.peakMemoryBytes / 1024) }),
    ...(stoppedBy && { stoppedBy }),
  };
}

function bwrapArgs(
  setup: Setup,
  limits: ExecutionLimits,
  run: {
    dir: SandboxDir;
    env: Record<string, string>;
    mounts: readonly { hostPath: string; sandboxPath: string }[];
    cwd: string;
    command: readonly string[];
  },
): string[] {
  const args = ['--unshare-all'];
  if (limits.network) args.push('--share-net');
  if (setup.userns) {
    args.push('--unshare-user', '--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID));
    // No nested user namespaces: they would hand the command fresh capabilities to attack the kernel with.
    if (setup.disableUserns) args.push('--disable-userns');
  }
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', SANDBOX_HOSTNAME);
  args.push(...setup.systemArgs);
  if (limits.network) args.push(...setup.networkArgs);
  args.push('--proc', '/proc', '--dev', '/dev');
  if (setup.tmpfsSize) args.push('--size', String(limits.memoryMb * 1024 * 1024));
  args.push('--tmpfs', SANDBOX_TMP);
  args.push('--bind', run.dir.workspace, WORKSPACE_PATH, '--bind', run.dir.home, SANDBOX_HOME);
  for (const mount of run.mounts) args.push('--ro-bind', mount.hostPath, mount.sandboxPath);
  args.push('--remount-ro', '/', '--chdir', run.cwd);
  if (setup.clearenv) {
    args.push('--clearenv');
    for (const [key, value] of Object.entries(run.env)) args.push('--setenv', key, value);
  }
  args.push('--', ...run.command);
  return args;
}

/** bwrap reports a command it could not start as its own exit 1; say 127/126 like a shell. */
function commandExitCode(code: number | null, stderr: string): number | null {
  if (code !== 1) return code;
  const match = /bwrap: execvp [^\n]*: ([^\n]*)\n?$/.exec(stderr);
  if (!match) return code;
  return match[1] === 'No such file or directory' ? 127 : 126;
}

/** The mount's sandbox path, normalized; throws for paths the sandbox itself uses. */
function checkMount(hostPath: string, sandboxPath: string): string {
  const clean = path.posix.normalize(sandboxPath).replace(/\/+$/, '');
  if (!path.posix.isAbsolute(sandboxPath) || clean === '') throw new Error(`mount path "${sandboxPath}" must be an absolute path other than /`);
  for (const reserved of [WORKSPACE_PATH, SANDBOX_HOME, SANDBOX_TMP, '/proc', '/dev', '/etc', ...SYSTEM_DIRS]) {
    if (clean === reserved || clean.startsWith(`${reserved}/`)) throw new Error(`mount path "${sandboxPath}" is reserved (${reserved})`);
  }
  if (!fs.existsSync(hostPath)) throw new Error(`mount source "${hostPath}" does not exist`);
  return clean;
}

/**
 * The sandbox's /etc, copied once per executor into a private host directory (one bind mount
 * per run instead of one per file): the files of ETC_FILES and /etc/python3*, symlinks kept
 * as they are, plus empty mount points for the files bound live on top.
 */
function prepareEtc(): string {
  sweepStaleEtc();
  // Named with the owner tag, which starts with the responsible pid (see sweepStaleEtc).
  const etc = fs.mkdtempSync(path.join(os.tmpdir(), `${ETC_PREFIX}${sandboxOwner()}-`));
  try {
    fs.chmodSync(etc, 0o755);
    const pythonEtc = safeReaddir('/etc').filter((entry) => /^python3(\.\d+)?$/.test(entry));
    for (const entry of [...ETC_FILES, ...pythonEtc]) {
      const source = `/etc/${entry}`;
      if (!fs.existsSync(source)) continue;
      try {
        fs.cpSync(source, path.join(etc, entry), { recursive: true, verbatimSymlinks: true, errorOnExist: false });
      } catch {
        // unreadable: the sandbox does without it
      }
    }
    for (const entry of [...ETC_LIVE_FILES, ...ETC_NETWORK_FILES]) {
      const target = path.join(etc, entry);
      if (!fs.existsSync(target)) fs.writeFileSync(target, '');
    }
    return etc;
  } catch (error) {
    fs.rmSync(etc, { recursive: true, force: true });
    throw error;
  }
}

/** Copies of /etc left behind by daemons that died. */
function sweepStaleEtc(): void {
  for (const entry of safeReaddir(os.tmpdir())) {
    const match = new RegExp(`^${ETC_PREFIX}(\\d+)-`).exec(entry);
    if (!match || Number(match[1]) === process.pid || isAlive(Number(match[1]))) continue;
    fs.rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true });
  }
}

/** The sandbox's passwd, group and hosts: one user, nothing of the host's accounts. */
function writeIdentity(etc: string, uid: number, gid: number): void {
  const user = uid === 0 ? 'root' : 'sandbox';
  const group = gid === 0 ? 'root' : 'sandbox';
  fs.writeFileSync(
    path.join(etc, 'passwd'),
    `${uid === 0 ? '' : 'root:x:0:0:root:/root:/bin/sh\n'}${user}:x:${uid}:${gid}:${user}:${SANDBOX_HOME}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
  );
  fs.writeFileSync(path.join(etc, 'group'), `${gid === 0 ? '' : 'root:x:0:\n'}${group}:x:${gid}:\nnogroup:x:65534:\n`);
  fs.writeFileSync(path.join(etc, 'hosts'), `127.0.0.1\tlocalhost\n127.0.1.1\t${SANDBOX_HOSTNAME}\n::1\tlocalhost ip6-localhost ip6-loopback\n`);
}

/** Read-only binds of the host's system directories (or the same symlinks, merged /usr), and /etc. */
function systemArgs(etc: string): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    try {
      const stat = fs.lstatSync(dir);
      if (stat.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(dir), dir);
      else if (stat.isDirectory()) args.push('--ro-bind', dir, dir);
    } catch {}
  }
  return [...args, '--ro-bind', etc, '/etc', ...etcArgs(ETC_LIVE_FILES)];
}

function etcArgs(entries: string[]): string[] {
  return entries.filter((entry) => fs.existsSync(`/etc/${entry}`)).flatMap((entry) => ['--ro-bind', `/etc/${entry}`, `/etc/${entry}`]);
}


/**
 * node is on the sandbox's PATH when it lives in the system directories. If the daemon's node
 * is elsewhere (nvm, a tarball), its installation is bound read-only at the same path and its
 * bin directory goes to the end of PATH.
 */
function nodeBinding(): { args: string[]; extraPath: string | undefined } {
  let real: string;
  try {
    real = fs.realpathSync(process.execPath);
  } catch {
    return { args: [], extraPath: undefined };
  }
  const system = SYSTEM_DIRS.map((dir) => safeRealpath(dir)).filter((dir): dir is string => dir !== undefined);
  if (system.some((dir) => real.startsWith(`${dir}/`))) return { args: [], extraPath: undefined };
  const bin = path.dirname(real);
  const prefix = path.basename(bin) === 'bin' ? path.dirname(bin) : bin;
  return { args: ['--ro-bind', prefix, prefix], extraPath: bin };
}

function findOnPath(program: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':').filter(Boolean), '/usr/bin', '/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, program);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

function capture(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 10_000 }, (error, stdout, stderr) => {
      // `bwrap --help` exits 0 on recent versions, 1 on some older ones; the text is what counts.
      if (error && !stdout && !stderr) reject(error);
      else resolve(`${stdout}${stderr}`);
    });
  });
}

function openCgroupsQuietly(): CgroupManager | undefined {
  const cgroups = openCgroups();
  return cgroups.ok ? cgroups.manager : undefined;
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function safeRealpath(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
