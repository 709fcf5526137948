/**
 * The stale guard (no vscode import: unit-tested): where a proposal made against `baseText` can
 * be applied to the file's current text, or why it cannot. A proposal is never applied at
 * shifted line numbers: either the text is the base, or the base region's lines occur exactly
 * once in the current text (the region is intact and only moved), or it is refused.
 */
import { createHash } from 'node:crypto';
import { checkRegion, splitText, type LineRegion } from './regionText';

export const STALE_MESSAGE = 'the code this proposal changes was edited since it was made; evolve it again';

/** What a proposal remembers of the text it was made against. */
export interface BaseSnapshot {
  /** sha256 of the base text. */
  hash: string;
  region: LineRegion;
  /** The base text's lines of `region`. */
  regionLines: string[];
}

export type Placement =
  | { ok: true; region: LineRegion; how: 'unchanged' | 'moved' }
  | { ok: false; reason: string };

export function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Throws when `region` is not within `baseText`. */
export function snapshotBase(baseText: string, region: LineRegion): BaseSnapshot {
  const { lines } = splitText(baseText);
  checkRegion(region, lines.length);
  return { hash: hashText(baseText), region: { ...region }, regionLines: lines.slice(region.startLine, region.endLine) };
}

/** Where the proposal applies in `currentText`, or why it does not. */
export function placeRegion(base: BaseSnapshot, currentText: string): Placement {
  if (hashText(currentText) === base.hash) return { ok: true, region: { ...base.region }, how: 'unchanged' };
  const starts = occurrences(splitText(currentText).lines, base.regionLines);
  if (starts.length === 1) {
    const startLine = starts[0]!;
    return { ok: true, region: { startLine, endLine: startLine + base.regionLines.length }, how: 'moved' };
  }
  return { ok: false, reason: STALE_MESSAGE };
}

/**
 * Where `needle` occurs as consecutive whole lines of `haystack`. An empty needle (a proposal
 * that only inserts) has no content to recognise, so it is never found.
 */
function occurrences(haystack: string[], needle: string[]): number[] {
  if (needle.length === 0) return [];
  const found: number[] = [];
  for (let start = 0; start + needle.length <= haystack.length; start++) {
    if (needle.every((line, offset) => haystack[start + offset] === line)) found.push(start);
  }
  return found;
}
