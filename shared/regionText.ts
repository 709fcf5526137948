/**
 * Line regions of a file's text and the edit that replaces one: what the editor's Accept of a
 * proposal and `peagen evolve apply` both write a program back with (shared/programWriteBack.ts).
 *
 * A file's lines are those of shared/lines.ts (its one rule for LF, CRLF and a final line
 * break), so a proposal replaces the lines the daemon's patches and the selection's region
 * count, and the edit gives the text the daemon's fromDocument would: the file's line ending
 * (LF for a mixed file) and whether it ends with a line break stay.
 */
import { type LineDocument, type LineRegion, lineStarts, splitJoined, toDocument } from './lines';

export type { LineRegion };

/** Replace `text.slice(start, end)` with `newText` (character offsets). */
export interface TextEdit {
  start: number;
  end: number;
  newText: string;
}

/** A file's lines (toDocument) with the offset of each line's first character. */
export interface SplitText extends LineDocument {
  starts: number[];
}

export function splitText(text: string): SplitText {
  const doc = toDocument(text);
  return { ...doc, starts: lineStarts(doc) };
}

/** The replacement's lines (a join of lines: "X\n" ends with an empty line); an empty replacement means "remove the region's lines". */
export function replacementLines(replacement: string): string[] {
  return replacement === '' ? [] : splitJoined(replacement);
}

/** Throws, saying what is wrong, unless `region` names lines of a text with `lineCount` lines. */
export function checkRegion(region: LineRegion, lineCount: number): void {
  const { startLine, endLine } = region;
  if (!Number.isInteger(startLine) || !Number.isInteger(endLine) || startLine < 0 || endLine < startLine || endLine > lineCount) {
    throw new Error(`the region lines ${startLine}..${endLine} are not within the file's ${lineCount} lines (0-based, end exclusive)`);
  }
}

/**
 * The edit that replaces the lines of `region` in `text` with `replacement` (whose line breaks
 * are converted to the file's). An empty region inserts the replacement before `startLine`.
 */
export function regionEdit(text: string, region: LineRegion, replacement: string): TextEdit {
  const split = splitText(text);
  const { lines, starts, eol } = split;
  checkRegion(region, lines.length);
  const { startLine, endLine } = region;
  const newLines = replacementLines(replacement);
  const contentEnd = (line: number): number => starts[line]! + lines[line]!.length;

  if (endLine < lines.length) {
    // Lines followed by more lines: replace them together with their line breaks.
    const newText = newLines.map((line) => line + eol).join('');
    return { start: starts[startLine]!, end: starts[endLine]!, newText };
  }
  // The region reaches the end of the file: the file's final line break (or its absence) stays.
  if (newLines.length === 0) {
    if (startLine === endLine) return { start: text.length, end: text.length, newText: '' };
    // Removing the last lines also removes the line break that ended the line before them.
    const start = startLine === 0 ? 0 : contentEnd(startLine - 1);
    return { start, end: contentEnd(endLine - 1), newText: '' };
  }
  if (startLine < endLine) return { start: starts[startLine]!, end: contentEnd(endLine - 1), newText: newLines.join(eol) };
  // Appending after the last line.
  const joined = newLines.join(eol);
  if (lines.length === 0) return { start: 0, end: 0, newText: joined + (split.finalNewline ? eol : '') };
  if (split.finalNewline) return { start: text.length, end: text.length, newText: joined + eol };
  return { start: text.length, end: text.length, newText: eol + joined };
}

export function applyEdit(text: string, edit: TextEdit): string {
  return text.slice(0, edit.start) + edit.newText + text.slice(edit.end);
}

/** `text` with the lines of `region` replaced. */
export function replaceRegion(text: string, region: LineRegion, replacement: string): string {
  return applyEdit(text, regionEdit(text, region, replacement));
}

/** The lines the replacement occupies once applied at `region` (empty when it removed them). */
export function replacedRegion(region: LineRegion, replacement: string): LineRegion {
  return { startLine: region.startLine, endLine: region.startLine + replacementLines(replacement).length };
}
