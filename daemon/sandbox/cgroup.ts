/**
 * Per-sandbox control groups: one fresh cgroup per run holding every process of the sandbox,
 * with a memory limit (no swap) and a process/thread limit for the whole tree, counters that
 * say whether a limit struck, the peak memory, and a kill of everything inside.
 *
 * cgroup v2 (the unified hierarchy, needs `memory` and `pids` in its controllers) is used when
 * it can be; otherwise the v1 `memory` and `pids` hierarchies (hybrid hosts). The run cgroups
 * are created below the cgroup this process lives in, so whatever limits the host put on the
 * daemon still hold for its sandboxes. Needs write access there (root, or a delegated subtree).
 *
 * A sandbox joins its cgroup race-free: its first process, still single-threaded, writes `0`
 * (itself) into each of the `joinFiles` before it starts anything else (see BwrapExecutor's
 * wrapper). On v1 these are the `tasks` files: moving one thread skips the global threadgroup
 * lock, whose RCU grace period otherwise costs ~10 ms per run on a busy host.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from '../../shared/processes';
import { checkSandboxOwner, sandboxOwner } from './owner';

export interface CgroupLimits {
  memoryBytes: number;
  pids: number;
}

export interface CgroupStats {
  /** Processes the kernel's OOM killer ended in this cgroup. */
  oomKills: number;
  /** Times a fork or clone failed because of the pids limit. */
  pidsLimitHits: number;
  /** Peak memory charged to the cgroup, when the kernel reports it. */
  peakMemoryBytes: number | undefined;
}

export interface SandboxCgroup {
  /** Files the sandbox's first (single-threaded) process writes `0` into to join, in order. */
  readonly joinFiles: readonly string[];
  stats(): CgroupStats;
  /** SIGKILLs every process in the cgroup. */
  kill(): void;
  /** Kills what is left, waits until the cgroup is empty and removes it. False if it could not. */
  destroy(): Promise<boolean>;
  /** The same, blocking for at most `waitMs` (for process exit handlers). */
  destroySync(waitMs: number): boolean;
}

export interface CgroupManager {
  readonly version: 1 | 2;
  /** Human-readable: which hierarchy, where. */
  readonly detail: string;
  /** A run cgroup named with `owner`'s tag (default: this process's; see owner.ts). */
  create(limits: CgroupLimits, owner?: string): SandboxCgroup;
  /** Kills every process in `owner`'s run cgroups and removes them; true if none is left. */
  reclaim(owner: string): Promise<boolean>;
}

export type CgroupSupport = { ok: true; manager: CgroupManager } | { ok: false; reason: string };

const PREFIX = 'peagen-';
const DAEMON_LEAF = 'peagen-daemon';
let sequence = 0;

/** Finds a usable cgroup hierarchy; never throws. */
export function openCgroups(): CgroupSupport {
  let mounts: MountInfo[];
  let memberships: Membership[];
  try {
    mounts = readMounts();
    memberships = readMemberships();
  } catch (error) {
    return { ok: false, reason: `cannot read the cgroup layout: ${message(error)}` };
  }
  const reasons: string[] = [];
  const v2 = openV2(mounts, memberships);
  if (v2.ok) return v2;
  reasons.push(v2.reason);
  const v1 = openV1(mounts, memberships);
  if (v1.ok) return v1;
  reasons.push(v1.reason);
  return { ok: false, reason: reasons.join('; ') };
}

// ---------------------------------------------------------------------------------------------
// Layout

interface MountInfo {
  /** The cgroup path (inside the hierarchy) this mount shows at its mount point. */
  root: string;
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

interface Membership {
  /** v1 controllers of the hierarchy; empty for the v2 entry `0::path`. */
  controllers: string[];
  path: string;
}

function unescapeMount(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function readMounts(): MountInfo[] {
  const result: MountInfo[] = [];
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const fields = left.split(' ');
    const [fsType, , superOptions] = right.split(' ');
    if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
    const root = fields[3];
    const mountPoint = fields[4];
    if (!root || !mountPoint) continue;
    result.push({ root: unescapeMount(root), mountPoint: unescapeMount(mountPoint), fsType, superOptions: (superOptions ?? '').split(',') });
  }
  return result;
}

function readMemberships(): Membership[] {
  const result: Membership[] = [];
  for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    result.push({ controllers: match[2] ? match[2].split(',') : [], path: match[3] ?? '/' });
  }
  return result;
}

/** The host directory of this process's own cgroup in a hierarchy mounted at `mount`. */
function ownDirectory(mount: MountInfo, cgroupPath: string): string | undefined {
  const root = mount.root === '/' ? '' : mount.root;
  if (cgroupPath !== mount.root && !cgroupPath.startsWith(`${root}/`)) return undefined;
  return path.join(mount.mountPoint, cgroupPath.slice(root.length)).replace(/(.)\/+$/, '$1');
}

// ---------------------------------------------------------------------------------------------
// cgroup v2

function openV2(mounts: MountInfo[], memberships: Membership[]): CgroupSupport {
  const membership = memberships.find((entry) => entry.controllers.length === 0);
  const mount = mounts.find((entry) => entry.fsType === 'cgroup2');
  if (!membership || !mount) return { ok: false, reason: 'cgroup v2: no unified hierarchy' };
  const base = ownDirectory(mount, membership.path);
  if (!base) return { ok: false, reason: `cgroup v2: this process's cgroup ${membership.path} is outside the mounted hierarchy` };
  try {
    const available = words(path.join(base, 'cgroup.controllers'));
    const missing = ['memory', 'pids'].filter((controller) => !available.includes(controller));
    if (missing.length > 0) return { ok: false, reason: `cgroup v2: controller(s) ${missing.join(', ')} not available at ${base}` };
    enableV2Controllers(base);
  } catch (error) {
    return { ok: false, reason: `cgroup v2: ${message(error)}` };
  }
  sweepStale([base]);
  return {
    ok: true,
    manager: {
      version: 2,
      detail: `cgroup v2 at ${base}`,
      create: (limits, owner) => createV2(base, limits, owner),
      // A child's own v2 base is the leaf this process moved into (see enableV2Controllers).
      reclaim: (owner) => reclaimOwned([base, path.join(base, DAEMON_LEAF)], owner),
    },
  };
}

/**
 * Makes `memory` and `pids` available to children of `base`. A non-root cgroup that holds
 * processes cannot delegate controllers ("no internal processes"), so this process first moves
 * into a leaf of its own, `peagen-daemon`; if other processes still sit in `base`, it gives up
 * (and moves back).
 */
function enableV2Controllers(base: string): void {
  const control = path.join(base, 'cgroup.subtree_control');
  const enabled = (): boolean => ['memory', 'pids'].every((controller) => words(control).includes(controller));
  if (enabled()) return;
  try {
    fs.writeFileSync(control, '+memory +pids');
    if (enabled()) return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EBUSY') throw new Error(`cannot enable memory and pids in ${control}: ${message(error)}`);
  }
  const leaf = path.join(base, DAEMON_LEAF);
  fs.mkdirSync(leaf, { recursive: true });
  fs.writeFileSync(path.join(leaf, 'cgroup.procs'), String(process.pid));
  try {
    fs.writeFileSync(control, '+memory +pids');
  } catch (error) {
    try {
      fs.writeFileSync(path.join(base, 'cgroup.procs'), String(process.pid));
      fs.rmdirSync(leaf);
    } catch {}
    throw new Error(`cannot enable memory and pids in ${control} (other processes share this cgroup?): ${message(error)}`);
  }
}

function createV2(base: string, limits: CgroupLimits, owner: string | undefined): SandboxCgroup {
  const dir = path.join(base, runName(owner));
  fs.mkdirSync(dir);
  try {
    fs.writeFileSync(path.join(dir, 'memory.max'), String(limits.memoryBytes));
    writeOptional(path.join(dir, 'memory.swap.max'), '0');
    // An OOM kill takes the whole sandbox, not one process of it.
    writeOptional(path.join(dir, 'memory.oom.group'), '1');
    fs.writeFileSync(path.join(dir, 'pids.max'), String(limits.pids));
  } catch (error) {
    removeDir(dir);
    throw error;
  }
  return new RunCgroup([dir], [path.join(dir, 'cgroup.procs')], {
    stats: () => statsV2(dir),
    killFile: path.join(dir, 'cgroup.kill'),
  });
}

// ---------------------------------------------------------------------------------------------
// cgroup v1 (hybrid and legacy hosts)

function openV1(mounts: MountInfo[], memberships: Membership[]): CgroupSupport {
  const bases: Record<'memory' | 'pids', string | undefined> = { memory: undefined, pids: undefined };
  for (const controller of ['memory', 'pids'] as const) {
    const mount = mounts.find((entry) => entry.fsType === 'cgroup' && entry.superOptions.includes(controller));
    const membership = memberships.find((entry) => entry.controllers.includes(controller));
    if (!mount || !membership) return { ok: false, reason: `cgroup v1: no ${controller} hierarchy` };
    bases[controller] = ownDirectory(mount, membership.path);
    if (!bases[controller]) return { ok: false, reason: `cgroup v1: this process's ${controller} cgroup is outside the mounted hierarchy` };
  }
  const memory = bases.memory as string;
  const pids = bases.pids as string;
  for (const dir of [memory, pids]) {
    try {
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (error) {
      return { ok: false, reason: `cgroup v1: cannot create cgroups in ${dir}: ${message(error)}` };
    }
  }
  sweepStale([memory, pids]);
  return {
    ok: true,
    manager: {
      version: 1,
      detail: `cgroup v1 (memory at ${memory}, pids at ${pids})`,
      create: (limits, owner) => createV1(memory, pids, limits, owner),
      reclaim: (owner) => reclaimOwned([memory, pids], owner),
    },
  };
}

function createV1(memoryBase: string, pidsBase: string, limits: CgroupLimits, owner: string | undefined): SandboxCgroup {
  const name = runName(owner);
  const memory = path.join(memoryBase, name);
  const pids = path.join(pidsBase, name);
  fs.mkdirSync(memory);
  try {
    fs.mkdirSync(pids);
    fs.writeFileSync(path.join(memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
    // Swap counts against the same limit (the file exists only with swap accounting).
    writeOptional(path.join(memory, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes));
    fs.writeFileSync(path.join(pids, 'pids.max'), String(limits.pids));
  } catch (error) {
    removeDir(memory);
    removeDir(pids);
    throw error;
  }
  return new RunCgroup([memory, pids], [path.join(memory, 'tasks'), path.join(pids, 'tasks')], {
    stats: () => statsV1(memory, pids),
    killFile: undefined,
  });
}

// ---------------------------------------------------------------------------------------------

class RunCgroup implements SandboxCgroup {
  private readonly procsFiles: readonly string[];

  constructor(
    private readonly dirs: readonly string[],
    readonly joinFiles: readonly string[],
    private readonly how: { stats: () => CgroupStats; killFile: string | undefined },
  ) {
    this.procsFiles = dirs.map((dir) => path.join(dir, 'cgroup.procs'));
  }

  stats(): CgroupStats {
    try {
      return this.how.stats();
    } catch {
      return { oomKills: 0, pidsLimitHits: 0, peakMemoryBytes: undefined };
    }
  }

  kill(): void {
    if (this.how.killFile && fs.existsSync(this.how.killFile)) {
      try {
        fs.writeFileSync(this.how.killFile, '1');
        return;
      } catch {
        // fall back to killing one by one
      }
    }
    for (const pid of this.members()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  }

  async destroy(): Promise<boolean> {
    const deadline = Date.now() + 3_000;
    for (;;) {
      this.kill();
      if (this.members().length === 0) break;
      if (Date.now() > deadline) return false;
      await sleep(1);
    }
    let removed = true;
    for (const dir of this.dirs) {
      for (;;) {
        const error = removeDir(dir);
        if (!error) break;
        if (error.code !== 'EBUSY' || Date.now() > deadline) {
          removed = false;
          break;
        }
        await sleep(1);
      }
    }
    return removed;
  }

  destroySync(waitMs: number): boolean {
    const deadline = Date.now() + waitMs;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (;;) {
      this.kill();
      const busy = this.members().length > 0 || this.dirs.some((dir) => removeDir(dir) !== undefined);
      if (!busy) return true;
      if (Date.now() > deadline) return false;
      Atomics.wait(pause, 0, 0, 2);
    }
  }

  private members(): number[] {
    const pids = new Set<number>();
    for (const file of this.procsFiles) {
      try {
        for (const entry of fs.readFileSync(file, 'utf8').split('\n')) if (entry) pids.add(Number(entry));
      } catch {}
    }
    return [...pids];
  }
}

/** `peagen-<owner>-<n>-<hex>`: the owner tag starts with the responsible pid (see sweepStale). */
function runName(owner = sandboxOwner()): string {
  sequence += 1;
  return `${PREFIX}${checkSandboxOwner(owner)}-${sequence}-${randomBytes(3).toString('hex')}`;
}

/** Destroys the run cgroups of `owner` below `bases` (v1: the same name in each hierarchy). */
async function reclaimOwned(bases: string[], owner: string): Promise<boolean> {
  const prefix = `${PREFIX}${checkSandboxOwner(owner)}-`;
  const byName = new Map<string, string[]>();
  for (const base of bases) {
    let entries: string[];
    try {
      entries = fs.readdirSync(base);
    } catch {
      continue;
    }
    for (const entry of entries) if (entry.startsWith(prefix)) byName.set(entry, [...(byName.get(entry) ?? []), path.join(base, entry)]);
  }
  let clean = true;
  for (const dirs of byName.values()) {
    const killFile = path.join(dirs[0] ?? '', 'cgroup.kill');
    const cgroup = new RunCgroup(dirs, [], { stats: () => ({ oomKills: 0, pidsLimitHits: 0, peakMemoryBytes: undefined }), killFile: fs.existsSync(killFile) ? killFile : undefined });
    if (!(await cgroup.destroy())) clean = false;
  }
  return clean;
}

/** Removes run cgroups left by daemons that died (their processes died with them). */
function sweepStale(bases: string[]): void {
  for (const base of bases) {
    let entries: string[];
    try {
      entries = fs.readdirSync(base);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const match = new RegExp(`^${PREFIX}(\\d+)-`).exec(entry);
      if (!match || Number(match[1]) === process.pid || isAlive(Number(match[1]))) continue;
      const dir = path.join(base, entry);
      try {
        if (fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').trim() === '') fs.rmdirSync(dir);
      } catch {}
    }
  }
}


function removeDir(dir: string): NodeJS.ErrnoException | undefined {
  try {
    fs.rmdirSync(dir);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? undefined : (error as NodeJS.ErrnoException);
  }
}

function writeOptional(file: string, value: string): void {
  try {
    fs.writeFileSync(file, value);
  } catch {}
}

function words(file: string): string[] {
  return fs.readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean);
}

/** The value of `key` in a flat keyed file (`key value` per line); 0 if absent or gone. */
function counter(file: string, key: string): number {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return 0;
  }
  for (const line of text.split('\n')) {
    const [name, value] = line.trim().split(/\s+/);
    if (name === key && value !== undefined) return Number(value) || 0;
  }
  return 0;
}

function number(file: string): number | undefined {
  try {
    const value = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Counters of a cgroup v2 directory (ours, or a container's). */
export function statsV2(dir: string): CgroupStats {
  return {
    oomKills: counter(path.join(dir, 'memory.events'), 'oom_kill'),
    pidsLimitHits: counter(path.join(dir, 'pids.events'), 'max'),
    peakMemoryBytes: number(path.join(dir, 'memory.peak')),
  };
}

/** Counters of cgroup v1 memory and pids directories (either may be unknown). */
export function statsV1(memory: string | undefined, pids: string | undefined): CgroupStats {
  return {
    oomKills: memory ? counter(path.join(memory, 'memory.oom_control'), 'oom_kill') : 0,
    pidsLimitHits: pids ? counter(path.join(pids, 'pids.events'), 'max') : 0,
    peakMemoryBytes: memory ? number(path.join(memory, 'memory.max_usage_in_bytes')) : undefined,
  };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
