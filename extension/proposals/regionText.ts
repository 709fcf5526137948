/**
 * Line regions of a file's text and the edit that replaces one (no vscode import: unit-tested).
 *
 * A file's lines are its text split at line breaks; a final line break ends the last line rather
 * than starting an empty one, so "a\nb\n" and "a\nb" both have the lines ["a", "b"]. Replacing a
 * region keeps the file's line break style (LF or CRLF) and whether it ends with a line break.
 */

/** Lines `startLine` (0-based) up to `endLine` (exclusive). */
export interface LineRegion {
  startLine: number;
  endLine: number;
}

/** Replace `text.slice(start, end)` with `newText` (character offsets). */
export interface TextEdit {
  start: number;
  end: number;
  newText: string;
}

export interface SplitText {
  lines: string[];
  /** Offset of each line's first character. */
  starts: number[];
  /** The file's line break: the first one it uses, LF when it has none. */
  eol: '\n' | '\r\n';
  endsWithEol: boolean;
}

export function splitLines(text: string): SplitText {
  const lines: string[] = [];
  const starts: number[] = [];
  const breaks = /\r?\n/g;
  let lineStart = 0;
  let firstBreak: string | undefined;
  for (let match = breaks.exec(text); match; match = breaks.exec(text)) {
    firstBreak ??= match[0];
    lines.push(text.slice(lineStart, match.index));
    starts.push(lineStart);
    lineStart = match.index + match[0].length;
  }
  const endsWithEol = text.length > 0 && lineStart === text.length;
  if (!endsWithEol && text.length > 0) {
    lines.push(text.slice(lineStart));
    starts.push(lineStart);
  }
  return { lines, starts, eol: firstBreak === '\r\n' ? '\r\n' : '\n', endsWithEol };
}

/** The replacement's lines; an empty replacement means "remove the region's lines". */
export function replacementLines(replacement: string): string[] {
  return replacement === '' ? [] : replacement.split(/\r?\n/);
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
  const split = splitLines(text);
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
  if (lines.length === 0) return { start: 0, end: 0, newText: joined + (split.endsWithEol ? eol : '') };
  if (split.endsWithEol) return { start: text.length, end: text.length, newText: joined + eol };
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
