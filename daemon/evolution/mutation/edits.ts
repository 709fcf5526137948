/**
 * Edits between programs, applied with no LLM call: new candidates from what the run already
 * has.
 *
 *  - Split: a model's answer often bundles a good change with an unrelated one; a breaking edit
 *    sinks the improvement beside it, a slower one is carried along with it for the rest of the
 *    run. A child whose edits touch separate places (hunks of the diff from its parent) is split
 *    into one program per edit: the parent with only that edit.
 *  - Revert: an edit that did not improve the program it was made on (a rename, a comment, a
 *    restructuring measured as a tie) stays in every descendant, where it can be in the way of
 *    the next idea (and of a small diff for the user). The best program is tried without it.
 *
 * Every function is pure in the programs, so replay derives the same candidates.
 */
import { applyPatch, structuredPatch, type StructuredPatch } from 'diff';

/**
 * Lines of context around each edit: changes closer than twice this are one edit (the lines
 * one SEARCH/REPLACE block changes belong together), farther ones are separate; a reverted
 * edit must find these lines around it unchanged.
 */
const CONTEXT = 2;

/** Children with more separate edits than this are rewrites, not bundles: not split. */
export const MAX_SPLIT_EDITS = 4;

function patchOf(from: string, to: string): StructuredPatch {
  return structuredPatch('from', 'to', from, to, '', '', { context: CONTEXT });
}

/** How many separate edits (hunks) turn `parent` into `child`. */
export function editCount(parent: string, child: string): number {
  return patchOf(parent, child).hunks.length;
}

/** `parent` with only the `index`-th edit of `child` applied, or undefined when it cannot be applied alone. */
export function withOneEdit(parent: string, child: string, index: number): string | undefined {
  const patch = patchOf(parent, child);
  const hunk = patch.hunks[index];
  if (!hunk) return undefined;
  return changed(applyPatch(parent, { ...patch, hunks: [hunk] }), [parent, child]);
}

/**
 * `program` with the edit that turned `before` into `after` undone (`program` descends from
 * `after`), or undefined when the edit's lines are no longer there as they were.
 */
export function withoutEdit(program: string, before: string, after: string): string | undefined {
  return changed(applyPatch(program, patchOf(after, before)), [program]);
}

function changed(result: string | false, same: readonly string[]): string | undefined {
  return result === false || same.includes(result) ? undefined : result;
}
