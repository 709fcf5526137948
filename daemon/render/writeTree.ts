/**
 * Writing rendered files so that a failure leaves nothing half-written: everything goes to a
 * temporary directory beside the output directory first. A new output directory is that
 * directory renamed into place; into an existing one the files are moved only after every
 * one of them was written (and nothing in the way was found).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export class WriteTreeError extends Error {
  override name = 'WriteTreeError';
}

/** Writes `files` (relative path → text) under `outDir`, sorted by path; returns the absolute paths. */
export function writeTree(outDir: string, files: ReadonlyMap<string, string>): string[] {
  const out = path.resolve(outDir);
  const relatives = [...files.keys()].sort();
  for (const relative of relatives) {
    const target = path.resolve(out, relative);
    if (!target.startsWith(out + path.sep)) throw new WriteTreeError(`${relative} is outside ${out}; nothing was written`);
  }
  const existing = fs.statSync(out, { throwIfNoEntry: false });
  if (existing && !existing.isDirectory()) throw new WriteTreeError(`--out ${out} is a file, not a directory; nothing was written`);
  if (existing) checkNothingInTheWay(out, relatives);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const staging = fs.mkdtempSync(`${out}.tmp-`);
  try {
    for (const relative of relatives) {
      const file = path.join(staging, relative);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, files.get(relative)!);
    }
    if (!existing) {
      fs.renameSync(staging, out);
    } else {
      for (const relative of relatives) {
        const target = path.join(out, relative);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.renameSync(path.join(staging, relative), target);
      }
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return relatives.map((relative) => path.join(out, relative));
}

/** A directory where a file goes, or a file where a directory goes, would stop the move midway. */
function checkNothingInTheWay(out: string, relatives: readonly string[]): void {
  for (const relative of relatives) {
    const parts = relative.split('/');
    for (let depth = 1; depth <= parts.length; depth += 1) {
      const at = path.join(out, ...parts.slice(0, depth));
      const stat = fs.statSync(at, { throwIfNoEntry: false });
      if (!stat) break;
      const isLast = depth === parts.length;
      if (isLast ? stat.isDirectory() : !stat.isDirectory()) {
        throw new WriteTreeError(`${at} is ${stat.isDirectory() ? 'a directory' : 'a file'} where ${relative} needs ${isLast ? 'a file' : 'a directory'}; nothing was written`);
      }
    }
  }
}
