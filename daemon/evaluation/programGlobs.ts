/**
 * An example's "program" as a fixed list of files: each entry is a path or a glob (`*` and `?`
 * within one folder, `**` across folders) relative to the example directory. Entries keep the
 * order they are written in, a glob's matches are sorted, and a file named twice counts once,
 * so the same example always gives the same file order (and so the same program id).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { programPathProblem } from '../../shared/programFiles';

/** Folders a glob never walks into: tools' caches, not code. */
const SKIPPED_FOLDERS = new Set(['node_modules', '__pycache__', '.git', '.peagen', 'test_candidates']);

export function resolveProgramFiles(dir: string, entries: readonly string[], configFile: string): string[] {
  const files: string[] = [];
  for (const entry of entries) {
    const problem = programPathProblem(entry);
    if (problem) throw new Error(`${configFile}: "program" ${problem}`);
    const matches = /[*?]/.test(entry) ? matchGlob(dir, entry) : [entry];
    if (matches.length === 0) throw new Error(`${configFile}: the "program" glob "${entry}" matches no file in ${dir}`);
    for (const match of matches) {
      if (!isFile(path.join(dir, match))) throw new Error(`${configFile}: the program file ${match} does not exist in ${dir}`);
      if (!files.includes(match)) files.push(match);
    }
  }
  return files;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function matchGlob(dir: string, pattern: string): string[] {
  const regex = globRegex(pattern);
  const found: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !entry.name.startsWith('.')) walk(child);
      } else if (entry.isFile() && regex.test(child)) found.push(child);
    }
  };
  walk('');
  return found.sort();
}

function globRegex(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*' && pattern[i + 1] === '*') {
      // `**/` matches no folder or any number of them.
      if (pattern[i + 2] === '/') {
        source += '(?:[^/]+/)*';
        i += 2;
      } else {
        source += '.*';
        i += 1;
      }
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
