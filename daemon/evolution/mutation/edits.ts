/**
 * Edits between programs, applied with no LLM call: new candidates from what the run already
 * has.
 *
 *  - Split: a model's answer often bundles a good change with an unrelated one; a breaking edit
 *    sinks the improvement beside it, a slower one is carried along with it for the rest of the
 *    run. A child whose edits touch separate places (hunks of the diff from its parent) is split
 *    into one program per edit: the child without that edit. (Not the parent with one edit
 *    alone: one idea often takes several edits, and a part of it alone can work, be faster, and
 *    leave the program where the rest of the idea no longer applies.) Lines an edit only
 *    deleted stay deleted when it is taken out of a child (deletionsIn says why).
 *  - Revert: an edit that did not improve the program it was made on (a rename, a comment, a
 *    restructuring measured as a tie) stays in every descendant, where it can be in the way of
 *    the next idea (and of a small diff for the user). The best program is tried without it.
 *  - Transplant: an edit that improved a program off the best's lineage (another parent, an
 *    older best) is often as good on the best: it is tried there. Improvements are rare under a
 *    model that mostly proposes neutral or breaking edits, so an improving edit found once is
 *    worth a sandbox run on the program that matters, where asking the model again would cost a
 *    call and most likely give something else.
 *
 * Every function is pure in the programs, so replay derives the same candidates.
 */
import { applyPatch, structuredPatch, type StructuredPatch } from 'diff';
import { textForm } from './childCheck';
import { detectSyntax } from './scan';

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

/**
 * What each edit (hunk) from `parent` to `child` does, as text independent of where it is: its
 * removed and added lines, trimmed. The same change made on another program (a rename, the
 * same algorithmic step on a neutral variant) has the same signature.
 */
export function editSignatures(parent: string, child: string): string[] {
  return patchOf(parent, child).hunks.map((hunk) =>
    hunk.lines
      .filter((line) => line.startsWith('-') || line.startsWith('+'))
      .map((line) => `${line[0]}${line.slice(1).trim()}`)
      .join('\n'),
  );
}

/** How many separate edits (hunks) turn `parent` into `child`. */
export function editCount(parent: string, child: string): number {
  return patchOf(parent, child).hunks.length;
}

/**
 * `child` without its `index`-th edit (from `parent`), or undefined when that leaves nothing
 * new: the parent, the child, or the child but for comments or layout (an edit that only
 * rewrote a comment: taking it out gives no new program, only a stale comment that the next
 * edit's SEARCH text may no longer match). With `keepDeletions`, the lines that edit only
 * deleted stay deleted: only its other changes are taken out (see deletionsIn).
 */
export function withoutOneEdit(parent: string, child: string, index: number, keepDeletions = false): string | undefined {
  const edit = patchOf(parent, child).hunks[index];
  if (!edit) return undefined;
  // The changes one by one (no context): those of the edit are left out, but for its deletions when kept.
  const changes = changesOf(parent, child);
  const kept = changes.hunks.filter((change) => !within(edit, change) || (keepDeletions && deletesOnly(change)));
  const result = changed(applyPatch(parent, { ...changes, hunks: kept }), [parent, child]);
  return result !== undefined && differsInCode(result, child) ? result : undefined;
}

/**
 * Whether the `index`-th edit from `parent` to `child` deletes lines with nothing in their
 * place: 'all' of it (an edit that only deletes), 'some' of it (beside other changes close
 * by, which one SEARCH/REPLACE block or two neighbouring ones made), or 'none'. An idea that
 * replaces a helper usually deletes the old one, now unused: the child without that deletion
 * is the same idea with dead code left in, which measures as a tie and stays in the way of the
 * next edit's SEARCH text. So an improving child is not split without its deletions, and an
 * edit that also deleted lines is split off with those lines kept deleted.
 */
export function deletionsIn(parent: string, child: string, index: number): 'all' | 'some' | 'none' {
  const edit = patchOf(parent, child).hunks[index];
  if (!edit) return 'none';
  const changes = changesOf(parent, child).hunks.filter((change) => within(edit, change));
  const deleting = changes.filter(deletesOnly).length;
  return deleting === 0 ? 'none' : deleting === changes.length ? 'all' : 'some';
}

/** Each run of changed lines alone, with no context. */
function changesOf(from: string, to: string): StructuredPatch {
  return structuredPatch('from', 'to', from, to, '', '', { context: 0 });
}

type Hunk = StructuredPatch['hunks'][number];

/** Whether a change (a hunk without context) lies in an edit (a hunk with context) of the same two programs. */
function within(edit: Hunk, change: Hunk): boolean {
  return change.oldStart >= edit.oldStart && change.oldStart <= edit.oldStart + edit.oldLines;
}

function deletesOnly(change: Hunk): boolean {
  return change.newLines === 0 && change.oldLines > 0;
}

/**
 * `program` with the edit that turned `before` into `after` undone (`program` descends from
 * `after`), or undefined when the edit's lines are no longer there as they were. The lines
 * around the edit are matched first; later edits often change a neighbouring line (a comment
 * above a renamed variable), so the edit's own lines alone, found nearest their old place,
 * are enough when those do not match.
 */
export function withoutEdit(program: string, before: string, after: string): string | undefined {
  let undone = applyPatch(program, patchOf(after, before));
  if (undone === false) undone = applyPatch(program, structuredPatch('from', 'to', after, before, '', '', { context: 0 }));
  const result = changed(undone, [program]);
  return result !== undefined && differsInCode(result, program) ? result : undefined;
}

/**
 * `program` with the edit that turned `before` into `after` made on it too, or undefined when
 * the edit's lines are not in `program` as they were in `before` (matched with their context
 * first, then alone nearest their old place) or it gives nothing new in code.
 */
export function withEdit(program: string, before: string, after: string): string | undefined {
  let done = applyPatch(program, patchOf(before, after));
  if (done === false) done = applyPatch(program, structuredPatch('from', 'to', before, after, '', '', { context: 0 }));
  const result = changed(done, [program, after]);
  return result !== undefined && differsInCode(result, program) ? result : undefined;
}

/** Whether two versions of a program differ in code, not only in comments, blank lines or trailing space. */
function differsInCode(a: string, b: string): boolean {
  const syntax = detectSyntax(b);
  return textForm(a, syntax) !== textForm(b, syntax);
}

function changed(result: string | false, same: readonly string[]): string | undefined {
  return result === false || same.includes(result) ? undefined : result;
}
