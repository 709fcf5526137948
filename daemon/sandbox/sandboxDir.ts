/**
 * The host side of one sandbox: a private temporary directory holding the writable copy of
 * the workspace, an empty HOME and a TMPDIR. Removed, whatever happened, by `dispose()` — or,
 * when the process that made it was killed first, by its owner's `reclaim` (see owner.ts):
 * its name carries the owner tag, `peagen-sbx-<owner>-XXXXXX`, and it records the process
 * group of the run it holds, so the owner can kill what is left before removing it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { relativePathProblem } from '../../shared/relativePath';
import { checkSandboxOwner, sandboxOwner } from './owner';
import { killRecordedGroup, processStartTime } from './processGroup';

export const SANDBOX_DIR_PREFIX = 'peagen-sbx-';
/** Beside workspace/home/tmp, out of every sandbox's view: `<pgid> <leader start time>`. */
const GROUP_FILE = 'run-group';

export interface SandboxDirOptions {
  files?: Record<string, string> | undefined;
  worldWritable?: boolean;
  /** Default: this process's tag ({@link sandboxOwner}). */
  owner?: string;
}

export class SandboxDir {
  readonly root: string;
  readonly workspace: string;
  readonly home: string;
  readonly tmp: string;

  private constructor(root: string) {
    this.root = root;
    this.workspace = path.join(root, 'workspace');
    this.home = path.join(root, 'home');
    this.tmp = path.join(root, 'tmp');
  }

  /**
   * Copies `workspace` (never linked: the candidate must not reach the original); without
   * one the workspace starts empty. The directory's name is fresh (mkdtemp): never one that
   * another run, live or being removed, uses.
   */
  static create(workspace: string | undefined, options: SandboxDirOptions = {}): SandboxDir {
    const dir = new SandboxDir(fs.mkdtempSync(ownerPrefix(options.owner ?? sandboxOwner())));
    try {
      fs.mkdirSync(dir.home);
      fs.mkdirSync(dir.tmp);
      dir.fill(workspace, options);
    } catch (error) {
      dir.dispose();
      throw error;
    }
    return dir;
  }

  /**
   * Copies `workspace` into the workspace directory (created here if missing; never linked:
   * the candidate must not reach the original) and writes `files` into it.
   */
  fill(workspace: string | undefined, options: Pick<SandboxDirOptions, 'files' | 'worldWritable'> = {}): void {
    // Every name is checked before anything is copied or written: a refused request leaves nothing half made.
    const files = Object.entries(options.files ?? {});
    for (const [relative] of files) {
      const problem = relativePathProblem(relative);
      if (problem) throw new Error(`cannot write the file into the sandbox's workspace: ${problem}`);
    }
    if (workspace === undefined) fs.mkdirSync(this.workspace, { recursive: true });
    else fs.cpSync(workspace, this.workspace, { recursive: true, dereference: true, errorOnExist: false });
    for (const [relative, content] of files) {
      const target = path.join(this.workspace, ...relative.split('/'));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, content);
    }
    // Sandboxes that run as an unprivileged user (docker --user 65534) need to write here.
    if (options.worldWritable) {
      for (const file of [this.root, ...listTree(this.workspace), this.home, this.tmp]) fs.chmodSync(file, fs.statSync(file).isDirectory() ? 0o777 : 0o666);
    }
  }

  /** A temporary directory of `owner`'s that is no sandbox (e.g. an executor's probe). */
  static makeOwnedTemp(purpose: string, owner = sandboxOwner()): string {
    return fs.mkdtempSync(`${ownerPrefix(owner)}${purpose}-`);
  }

  /** The sandbox directories (and owned temporaries) of `owner` that still exist. */
  static owned(owner: string): SandboxDir[] {
    const prefix = path.basename(ownerPrefix(checkSandboxOwner(owner)));
    let entries: string[];
    try {
      entries = fs.readdirSync(os.tmpdir());
    } catch {
      return [];
    }
    return entries.filter((entry) => entry.startsWith(prefix)).map((entry) => new SandboxDir(path.join(os.tmpdir(), entry)));
  }

  /** Notes the run's process group, so that a reclaim can kill it if this process cannot. */
  recordProcessGroup(pgid: number | undefined): void {
    if (pgid === undefined) return;
    try {
      fs.writeFileSync(path.join(this.root, GROUP_FILE), `${pgid} ${processStartTime(pgid) ?? ''}`);
    } catch {
      // the run goes on; only a reclaim after a kill would miss its processes
    }
  }

  /** Kills the recorded process group, if any is left (for reclaim). */
  async killRecordedProcesses(): Promise<void> {
    let text: string;
    try {
      text = fs.readFileSync(path.join(this.root, GROUP_FILE), 'utf8');
    } catch {
      return;
    }
    const [pgid, start] = text.trim().split(' ').map((field) => (field ? Number(field) : undefined));
    if (pgid === undefined || !Number.isInteger(pgid) || pgid <= 1) return;
    await killRecordedGroup(pgid, start !== undefined && Number.isFinite(start) ? start : undefined);
  }

  dispose(): void {
    fs.rmSync(this.root, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** `<tmpdir>/peagen-sbx-<owner>-`: every directory of one owner, and only its, starts so. */
function ownerPrefix(owner: string): string {
  return path.join(os.tmpdir(), `${SANDBOX_DIR_PREFIX}${checkSandboxOwner(owner)}-`);
}

/** Kills what the owner's runs left and removes its directories (sync removal; see docker's own). */
export async function reclaimSandboxDirs(owner: string, remove: (dir: SandboxDir) => Promise<void> | void = (dir) => dir.dispose()): Promise<void> {
  for (const dir of SandboxDir.owned(owner)) {
    await dir.killRecordedProcesses();
    await remove(dir);
  }
}

function listTree(dir: string): string[] {
  return [dir, ...fs.readdirSync(dir, { recursive: true }).map((entry) => path.join(dir, String(entry)))];
}

/**
 * The whole environment a sandboxed command gets: a fixed PATH, the sandbox's own HOME and
 * TMPDIR, a neutral locale, and what the request allows explicitly. Nothing from the host.
 */
export function sandboxEnv(request: Record<string, string> | undefined, home: string, tmp: string): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    TMPDIR: tmp,
    LANG: 'C.UTF-8',
    PYTHONDONTWRITEBYTECODE: '1',
    ...request,
  };
}
