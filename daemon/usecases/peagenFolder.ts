/**
 * A project's `.peagen/` folder is Peagen's working state (examples with a copy of the
 * project, runs with every candidate): it stays out of the user's git without an edit of their
 * own .gitignore, by a `.peagen/.gitignore` of its own. Prompt templates (`.peagen/prompts/`)
 * are the user's writing, so they stay visible to git.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PEAGEN_DIR = '.peagen';

export const PEAGEN_GITIGNORE = [
  "# Peagen's working files (examples, runs, copies of your project): kept out of version control.",
  '# Your prompt templates (prompts/) stay tracked; delete this file to track everything here.',
  '*',
  '!prompts/',
  '!prompts/**',
  '',
].join('\n');

/**
 * Makes `<projectDir>/.peagen/` with its .gitignore, unless it has one (the user's own stays as
 * they wrote it). Best effort: a folder that cannot be written is reported by whoever writes in it next.
 */
export function ensurePeagenFolder(projectDir: string): void {
  const dir = path.join(path.resolve(projectDir), PEAGEN_DIR);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '.gitignore'), PEAGEN_GITIGNORE, { flag: 'wx' });
  } catch {
    // It exists already (EEXIST), or the folder is not writable: nothing to add here.
  }
}
