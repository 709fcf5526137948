/**
 * Fills a prepared sandbox's read-only mount directory with the tree the task mounts there,
 * the moment the task arrives: the directory was bound read-only into the sandbox when it was
 * made, so what lands in it appears inside at once.
 *
 * Files are hard links where the file system allows it (no data is copied; the sandbox's
 * read-only bind forbids writing, chmod and utimes through them, so the original stays as it
 * is), copies otherwise. Symlinks are kept as they are, as a bind mount shows them; directory
 * modes are kept; sockets and fifos are left out.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface MirrorOptions {
  /** Copy every file (never link), e.g. when the copies' modes must change. */
  copy?: boolean;
  /** Make everything readable (and directories searchable) by anyone: copies only. */
  worldReadable?: boolean;
}

/** `target` exists and is empty; `source` is a directory. */
export function mirrorTree(source: string, target: string, options: MirrorOptions = {}): void {
  const readable = options.worldReadable === true;
  const copy = options.copy === true || readable;
  const fill = (from: string, to: string): void => {
    for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
      const src = path.join(from, entry.name);
      const dst = path.join(to, entry.name);
      if (entry.isDirectory()) {
        fs.mkdirSync(dst);
        fill(src, dst);
        fs.chmodSync(dst, modeOf(src, readable));
      } else if (entry.isFile()) {
        if (copy || !tryLink(src, dst)) {
          fs.copyFileSync(src, dst);
          fs.chmodSync(dst, modeOf(src, readable));
        }
      } else if (entry.isSymbolicLink()) {
        fs.symlinkSync(fs.readlinkSync(src), dst);
      }
    }
  };
  fill(source, target);
  fs.chmodSync(target, modeOf(source, readable));
}

function tryLink(source: string, target: string): boolean {
  try {
    fs.linkSync(source, target);
    return true;
  } catch {
    // another file system (EXDEV), protected_hardlinks (EPERM), ...
    return false;
  }
}

function modeOf(file: string, readable: boolean): number {
  const stat = fs.statSync(file);
  const mode = stat.mode & 0o7777;
  if (!readable) return mode;
  return mode | (stat.isDirectory() || mode & 0o111 ? 0o555 : 0o444);
}
