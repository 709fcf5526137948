/**
 * The host side of one sandbox: a private temporary directory holding the writable copy of
 * the workspace, an empty HOME and a TMPDIR. Removed, whatever happened, by `dispose()`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

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

  /** Copies `workspace` (never linked: the candidate must not reach the original). */
  static create(workspace: string, options: { files?: Record<string, string>; worldWritable?: boolean } = {}): SandboxDir {
    const dir = new SandboxDir(fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-sbx-')));
    try {
      fs.cpSync(workspace, dir.workspace, { recursive: true, dereference: true, errorOnExist: false });
      for (const [relative, content] of Object.entries(options.files ?? {})) {
        const target = path.resolve(dir.workspace, relative);
        if (!target.startsWith(`${dir.workspace}${path.sep}`)) throw new Error(`file "${relative}" would land outside the workspace`);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, content);
      }
    } catch (error) {
      dir.dispose();
      throw error;
    }
    fs.mkdirSync(dir.home);
    fs.mkdirSync(dir.tmp);
    // Sandboxes that run as an unprivileged user (docker --user 65534) need to write here.
    if (options.worldWritable) {
      for (const file of [dir.root, ...listTree(dir.workspace), dir.home, dir.tmp]) fs.chmodSync(file, fs.statSync(file).isDirectory() ? 0o777 : 0o666);
    }
    return dir;
  }

  dispose(): void {
    fs.rmSync(this.root, { recursive: true, force: true, maxRetries: 3 });
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
