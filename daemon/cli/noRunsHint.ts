/**
 * What `peagen evolve list` suggests in a folder without runs: only commands that work for
 * this user here (an example made by `peagen init` in this folder, the examples installed
 * with Peagen), never a path that exists only in a clone of Peagen.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXAMPLES_DIR } from '../usecases/initExample';
import { bundledExamplesDir } from '../sandbox/hostPaths';

export function noRunsHint(projectDir: string, examplesDir = bundledExamplesDir()): string {
  const made = initExamples(projectDir);
  if (made.length > 0) {
    return `no runs here yet; evolve the example \`peagen init\` made: \`peagen evolve run ${shellWord(shown(path.join(projectDir, EXAMPLES_DIR, made[0]!)))}\``;
  }
  const sample = examplesDir ? path.join(examplesDir, 'bad_sort') : '';
  const tryBundled = sample && fs.existsSync(path.join(sample, 'peagen.example.json')) ? `, or try the example installed with Peagen: \`peagen evolve run ${shellWord(shown(sample))}\`` : '';
  return `no runs here yet; make an example of a function of yours with \`peagen init FILE --function NAME\` (it prints the command that evolves it)${tryBundled}`;
}

/** The examples `peagen init` made in this project, by name. */
function initExamples(projectDir: string): string[] {
  const dir = path.join(projectDir, EXAMPLES_DIR);
  try {
    return fs
      .readdirSync(dir)
      .filter((name) => fs.existsSync(path.join(dir, name, 'peagen.example.json')))
      .sort();
  } catch {
    return [];
  }
}

/** Relative to the current directory when inside it, else absolute. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/** A path as one word for a POSIX shell. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
