/**
 * The changes that turn the seed into the best program, and the programs between the two: the
 * seed with only some of those changes made. Minimal-diff reduction (reduceBest.ts) tries the
 * best without its changes one at a time, so that what a reviewer is offered is the smallest
 * diff that keeps the gain.
 *
 * A program's code is opaque text here (one file, or a bundle of several with a header line per
 * file): a candidate is built from the two texts' own pieces, byte for byte. Lines that are the
 * same in the seed and the best are copied as they are, always; each change contributes either
 * the seed's lines (dropped) or the best's (kept). So no candidate ever edits or drops a line
 * the best did not change (a bundle's file headers stay where they are), and keeping every
 * change gives the best, keeping none the seed.
 *
 * Pure in the two texts: the live run and replay derive the same candidates.
 */
import { diffLines } from 'diff';

/** One run of changed lines: the seed's lines there and the best's lines in their place. */
export interface LineChange {
  /** Text of the seed's lines this change replaces (empty for an insertion). */
  before: string;
  /** Text of the best's lines in their place (empty for a deletion). */
  after: string;
  /** Lines it changes: the larger of the lines removed and the lines added. */
  lines: number;
}

/** The two texts cut into what they share and what changes, in order. */
export interface LineDiff {
  /** Alternating pieces: a shared text (possibly empty) before each change, and one after the last. */
  shared: string[];
  changes: LineChange[];
}

export function lineDiff(seed: string, best: string): LineDiff {
  const shared: string[] = [''];
  const changes: LineChange[] = [];
  let open: { before: string; after: string; removed: number; added: number } | undefined;
  const close = (): void => {
    if (!open) return;
    changes.push({ before: open.before, after: open.after, lines: Math.max(open.removed, open.added) });
    shared.push('');
    open = undefined;
  };
  for (const part of diffLines(seed, best)) {
    if (!part.added && !part.removed) {
      close();
      shared[shared.length - 1] += part.value;
      continue;
    }
    open ??= { before: '', after: '', removed: 0, added: 0 };
    if (part.removed) {
      open.before += part.value;
      open.removed += part.count ?? 0;
    } else {
      open.after += part.value;
      open.added += part.count ?? 0;
    }
  }
  close();
  return { shared, changes };
}

/** The seed with the changes in `keep` (indices into `diff.changes`) made, and no other. */
export function withChanges(diff: LineDiff, keep: ReadonlySet<number>): string {
  let text = diff.shared[0]!;
  diff.changes.forEach((change, index) => {
    text += (keep.has(index) ? change.after : change.before) + diff.shared[index + 1]!;
  });
  return text;
}

/** Lines changed by the changes in `keep`: what "3 changed lines" counts. */
export function changedLines(diff: LineDiff, keep: Iterable<number>): number {
  let lines = 0;
  for (const index of keep) lines += diff.changes[index]?.lines ?? 0;
  return lines;
}

/**
 * The order changes are tried for dropping: the largest first (the biggest cut of the diff per
 * evaluation), earlier ones first among equals so the order is a function of the texts alone.
 */
export function dropOrder(diff: LineDiff): number[] {
  return diff.changes.map((change, index) => ({ index, lines: change.lines })).sort((a, b) => b.lines - a.lines || a.index - b.index).map((entry) => entry.index);
}
