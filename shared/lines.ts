/**
 * Peagen's one model of a text's lines: patches, the offline mutator, EVOLVE-BLOCKs, the
 * `lines` feature, and the extension's selection regions and proposals all split text here.
 *
 * The rule:
 * - A line break is LF or CRLF (the CR belongs to the break). A lone CR is not a break but a
 *   character of its line, as git and diff tools see it. (VS Code would count it as one, but
 *   it normalizes a document's line breaks to one kind when it loads it: an editor's text never
 *   holds a lone CR, nor a mix of breaks.)
 * - A final line break ends the last line; it does not start another: "a\nb\n" and "a\nb" both
 *   have the lines ["a", "b"], "\n" has one empty line, "" has none.
 * - A document's line ending is CRLF when every break is CRLF, else LF. A mixed document is
 *   handled as LF, and the CR of each of its CRLF breaks stays at the end of its line, so
 *   fromDocument(toDocument(text)) === text for every text and no byte changes silently.
 *   New or replaced lines get the document's line ending.
 *
 * Where text is not a document (an LLM's answer, a program's normal form, a journal, a
 * command's output), callers may split otherwise and say why.
 */

/** A program split into lines, with what is needed to put it back together byte for byte. */
export interface LineDocument {
  lines: string[];
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

/** Lines `startLine` (0-based) up to `endLine` (exclusive) of a document. */
export interface LineRegion {
  startLine: number;
  endLine: number;
}

/** The document of `text`, by the rule above. */
export function toDocument(text: string): LineDocument {
  const newlines = lineBreakCount(text);
  const crlf = newlines > 0 && text.split('\r\n').length - 1 === newlines;
  const body = crlf ? text.replaceAll('\r\n', '\n') : text;
  if (body === '') return { lines: [], eol: crlf ? '\r\n' : '\n', finalNewline: false };
  const finalNewline = body.endsWith('\n');
  const lines = (finalNewline ? body.slice(0, -1) : body).split('\n');
  return { lines, eol: crlf ? '\r\n' : '\n', finalNewline };
}

/** How many line breaks `text` holds (every break ends in LF). */
export function lineBreakCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** How many lines toDocument(text) has, without splitting it. */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  return lineBreakCount(text) + (text.endsWith('\n') ? 0 : 1);
}

/** Offset in the document's text of each line's first character. */
export function lineStarts(doc: LineDocument): number[] {
  const starts: number[] = [];
  let offset = 0;
  for (const line of doc.lines) {
    starts.push(offset);
    offset += line.length + doc.eol.length;
  }
  return starts;
}

/**
 * The lines `lines.join(eol)` was made of, for either line ending: every break splits, so a
 * trailing break leaves a last empty line. For a fragment that is a join of lines (a region's
 * replacement), not a document: "X\n" is the lines ["X", ""] here, and the document ["X"].
 */
export function splitJoined(text: string): string[] {
  return text.split(/\r?\n/);
}

export function fromDocument(doc: LineDocument): string {
  if (doc.lines.length === 0) return '';
  const body = doc.lines.join('\n') + (doc.finalNewline ? '\n' : '');
  return doc.eol === '\r\n' ? body.replaceAll('\n', '\r\n') : body;
}

/**
 * Text that is not a document, as LF: answers come from chat APIs with any line ending, and
 * a lone CR ends a line there (as it does for Python's and JavaScript's own lexers).
 */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

export const TAB_WIDTH = 4;

export function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/** Width of the indentation, a tab counting as TAB_WIDTH columns (to the next stop). */
export function indentWidth(line: string): number {
  let width = 0;
  for (const ch of leadingWhitespace(line)) width = ch === '\t' ? width - (width % TAB_WIDTH) + TAB_WIDTH : width + 1;
  return width;
}

export function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** The line's text with indentation removed, inner whitespace runs collapsed and no trailing space. */
export function lineBody(line: string): string {
  return line.replace(/\s+/g, ' ').trim();
}

/** Key for whitespace-insensitive comparison that still respects indentation width. */
export function canonicalLine(line: string): string {
  return isBlank(line) ? '' : `${indentWidth(line)}|${lineBody(line)}`;
}

/** Re-render a line at a new indentation width in the given style. */
export function withIndent(line: string, width: number, useTabs: boolean): string {
  if (isBlank(line)) return '';
  const w = Math.max(0, width);
  const indent = useTabs ? '\t'.repeat(Math.floor(w / TAB_WIDTH)) + ' '.repeat(w % TAB_WIDTH) : ' '.repeat(w);
  return indent + line.slice(leadingWhitespace(line).length);
}

/** Shift every non-blank line by `delta` columns (clamped at column 0). */
export function reindent(lines: readonly string[], delta: number, useTabs: boolean): string[] {
  return lines.map((line) => (isBlank(line) ? '' : withIndent(line, indentWidth(line) + delta, useTabs)));
}

/** Whether the indented lines among `lines` use tabs (the style new lines should follow). */
export function usesTabs(lines: readonly string[]): boolean {
  for (const line of lines) {
    const ws = leadingWhitespace(line);
    if (ws.length > 0 && !isBlank(line)) return ws.includes('\t');
  }
  return false;
}

/** Cut `text` to about `max` characters, saying how much was left out. */
export function capText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}
