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
 *   writableMount              read-write, at its sandboxPath (an environment install)
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
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openCgroups, type CgroupManager, type SandboxCgroup } from '../cgroup';
import {
  type Availability,
  type ExecutionRequest,
  type ExecutionResult,
  type Executor,
  type PreparedSandbox,
  type PrepareOptions,
  resolveLimits,
  WORKSPACE_PATH,
} from '../Executor';
import { trackExecutor, untrackExecutor } from '../liveSandboxes';
import { checkSandboxOwner, sandboxOwner } from '../owner';
import { reclaimSandboxDirs, SandboxDir } from '../sandboxDir';
import { preparedShape } from '../warm/preparedShape';
import { removeOnExit } from './exitCleanup';
import { PreparedBwrapSandbox } from './PreparedBwrapSandbox';
import { bwrapArgs, checkMount, commandEnv, ETC_NETWORK_FILES, ETC_PREFIX, etcArgs, nodeBinding, prepareEtc, safeReaddir, SANDBOX_UID, systemArgs, writeIdentity } from './rootFs';
import { limitSandbox, releaseSandbox, spawnSandbox, superviseSandbox } from './sandboxProcess';
import type { BwrapEnforcement, Setup } from './setup';

export type { BwrapEnforcement };
export { SANDBOX_HOME } from './rootFs';

export interface BwrapExecutorOptions {
  /** The bwrap binary; default: found on PATH or in /usr/bin. */
  bwrap?: string;
  /** Use cgroups when the host allows (default). False forces the rlimit fallback. */
  cgroups?: boolean;
}

export class BwrapExecutor implements Executor {
  readonly name = 'bwrap' as const;
  readonly isolates = true;
  private setup: Promise<Setup | { failed: string }> | undefined;
  /** Runs in progress: close() waits for them before it removes the /etc copy they mount. */
  private readonly running = new Set<Promise<unknown>>();
  /** Prepared sandboxes not yet used or discarded. */
  private readonly prepared = new Set<PreparedBwrapSandbox>();
  /** Preparations still starting their sandbox (bwrap mounting this setup's /etc copy). */
  private readonly preparing = new Set<Promise<unknown>>();

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
    const preparation = this.startPrepared(options);
    this.preparing.add(preparation);
    try {
      return await preparation;
    } finally {
      this.preparing.delete(preparation);
    }
  }

  private async startPrepared(options: PrepareOptions): Promise<PreparedSandbox> {
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
    // A run or preparation that starts from here on sets up afresh: this setup's /etc copy is
    // about to go, and bwrap mounting a copy being deleted fails ("Can't create file at
    // /etc/ld.so.cache").
    const setup = this.setup;
    this.setup = undefined;
    // Preparations already starting finish first, and their callers get a turn to start the
    // task they prepared for (a run in progress, which close waits for, not one it discards).
    await Promise.allSettled([...this.preparing]);
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.allSettled([...this.running]);
    await Promise.allSettled([...this.prepared].map((sandbox) => sandbox.discard()));
    // Unless a run since close() began set up afresh: that one is live.
    if (this.setup === undefined) untrackExecutor(this);
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
    const writable = request.writableMount && { hostPath: request.writableMount.hostPath, sandboxPath: checkMount(request.writableMount.hostPath, request.writableMount.sandboxPath) };
    const owner = sandboxOwner();
    const dir = SandboxDir.create(request.workspace, { files: request.files, owner });
    removeOnExit.add(dir.root);
    let cgroup: SandboxCgroup | undefined;
    try {
      const env = commandEnv(setup, request);
      const args = bwrapArgs(setup, limits, { dir, env, mounts, ...(writable && { writable }), cwd: request.cwd ?? WORKSPACE_PATH, command: request.command });
      const limited = limitSandbox(setup, limits, owner);
      cgroup = limited.cgroup;
      const child = spawnSandbox(dir, [...limited.wrapperArgs, '--', setup.bwrap, ...args], setup.clearenv ? {} : env, false);
      return await superviseSandbox(setup, child, request, limits, cgroup, false);
    } finally {
      await releaseSandbox(dir, cgroup);
    }
  }
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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
