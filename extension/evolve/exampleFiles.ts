/**
 * An example directory of the workspace as it travels to the daemon (PrepareSelection): every
 * file by relative path, base64, without Peagen's state, dependencies and caches. The daemon
 * may run on another machine, so it gets content, never this machine's path. vscode-free.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ExampleFiles, MAX_EXAMPLE_BYTES, MAX_EXAMPLE_FILES, SKIPPED_EXAMPLE_ENTRIES } from '../../shared/selection';

export function readExampleFiles(exampleDir: string): ExampleFiles {
  const files: ExampleFiles = {};
  let total = 0;
  let count = 0;
  const seen = new Set<string>();
  const walk = (dir: string, prefix: string): void => {
    // A link back up the tree is walked once.
    const real = fs.realpathSync(dir);
    if (seen.has(real)) return;
    seen.add(real);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED_EXAMPLE_ENTRIES.has(entry.name)) continue;
      const full = path.join(dir, entry.name);
      const name = prefix ? `${prefix}/${entry.name}` : entry.name;
      // A link is followed to what it names, as a copy of the directory would.
      const stat = entry.isSymbolicLink() ? fs.statSync(full, { throwIfNoEntry: false }) : undefined;
      if (entry.isDirectory() || stat?.isDirectory()) walk(full, name);
      else if (entry.isFile() || stat?.isFile()) {
        const content = fs.readFileSync(full);
        total += content.length;
        if (total > MAX_EXAMPLE_BYTES) {
          throw new Error(`the example ${exampleDir} weighs more than ${MAX_EXAMPLE_BYTES / 1024 / 1024} MB (at ${name}): keep data sets out of the example directory, or let the evaluator generate them`);
        }
        // The daemon refuses more (shared/selection.ts): say so here, naming the directory.
        if (++count > MAX_EXAMPLE_FILES) {
          throw new Error(`the example ${exampleDir} has more than ${MAX_EXAMPLE_FILES} files (at ${name}): keep data sets and generated files out of the example directory`);
        }
        files[name] = content.toString('base64');
      }
    }
  };
  walk(exampleDir, '');
  return files;
}
