/**
 * Line-level text helpers shared by patch application and the offline mutator: a program is
 * handled as LF lines plus its end-of-line style, so CRLF programs come back as CRLF.
 */

/** A program split into lines, with what is needed to put it back together byte for byte. */
export interface LineDocument {
  lines: string[];
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

/** CRLF only when every line break is CRLF: mixed files are edited as LF so no byte changes silently. */
export function toDocument(text: string): LineDocument {
  const newlines = text.split('\n').length - 1;
  const crlf = newlines > 0 && text.split('\r\n').length - 1 === newlines;
  const body = crlf ? text.replaceAll('\r\n', '\n') : text;
  if (body === '') return { lines: [], eol: crlf ? '\r\n' : '\n', finalNewline: false };
  const finalNewline = body.endsWith('\n');
  const lines = (finalNewline ? body.slice(0, -1) : body).split('\n');
  return { lines, eol: crlf ? '\r\n' : '\n', finalNewline };
}

export function fromDocument(doc: LineDocument): string {
  if (doc.lines.length === 0) return '';
  const body = doc.lines.join('\n') + (doc.finalNewline ? '\n' : '');
  return doc.eol === '\r\n' ? body.replaceAll('\n', '\r\n') : body;
}

/** Answers come from chat APIs with any line ending; everything is parsed as LF. */
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
