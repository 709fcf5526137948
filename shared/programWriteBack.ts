/**
 * A run's program written back into the user's own files, and the patch that says so: what
 * `peagen evolve apply` writes and prints, `peagen mutate` prints, and the editor's Accept of
 * a proposal places. A program made from a region of a user's file (Evolve Selection, or
 * `peagen init`, which both put EVOLVE-BLOCK markers around it) goes back as the inner lines of
 * its block only: the markers Peagen added, and the markers it disarmed elsewhere in its copy,
 * never reach the user's file, and every other line is the file's own. A program whose files
 * are the example's own (a hand-written example) goes back whole, the user's markers included.
 */
import { formatPatch, structuredPatch } from 'diff';
import type { LineRegion } from './lines';
import { replaceRegion } from './regionText';
import { replacementFromProgram, type SelectionRecord } from './selection';

/** Where a region-placed program goes: the file's lines it replaces and their new text (its block's inner lines, no marker). */
export function regionProgramEdit(record: Pick<SelectionRecord, 'replaceRange' | 'blockIndex'>, code: string): { region: LineRegion; replacement: string } {
  return { region: { ...record.replaceRange }, replacement: replacementFromProgram(code, record.blockIndex) };
}

/** The text `baseText` (the file the program was made from) becomes with the evolved region in place. */
export function regionProgramFileText(baseText: string, record: Pick<SelectionRecord, 'replaceRange' | 'blockIndex'>, code: string): string {
  const edit = regionProgramEdit(record, code);
  return replaceRegion(baseText, edit.region, edit.replacement);
}

/** One user file: its text before and after, `path` as the patch names it (relative, `/`-separated). */
export interface FileChange {
  path: string;
  before: string;
  after: string;
}

/**
 * A unified patch of the changed files in git's form (`diff --git a/PATH b/PATH`, three lines of
 * context), which `git apply` and `patch -p1` take; empty when nothing changed.
 */
export function unifiedPatch(changes: readonly FileChange[]): string {
  const patches = changes
    .filter((change) => change.before !== change.after)
    .map((change) => ({ ...structuredPatch(`a/${change.path}`, `b/${change.path}`, change.before, change.after, undefined, undefined, { context: 3 }), isGit: true }));
  return patches.length === 0 ? '' : formatPatch(patches);
}
