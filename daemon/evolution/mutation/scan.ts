/**
 * A small lexer: enough to know, line by line, where strings, comments and brackets are, for
 * Python-like code (# comments, ''' strings) and brace code (// and /* comments, ` strings).
 * Not a parser: the offline mutator uses it to keep edits syntactically plausible, the child
 * check to tell code from comments. (Regular-expression literals are not recognised.)
 */
import { toDocument } from '../../../shared/lines';

export type Syntax = 'python' | 'brace';

const OPENERS = '([{';
const CLOSERS = ')]}';

/** Lexer state carried from one line to the next. */
export interface ScanState {
  /** Open brackets, innermost last. */
  brackets: string[];
  /** The quote of a string that runs past the end of the line (triple quotes, template strings). */
  openString: string | null;
  inBlockComment: boolean;
}

export interface LineScan {
  /** Bracket characters in order of appearance, outside strings and comments. */
  brackets: string;
  /** The line's code ends with `:` (comment and trailing space ignored), outside strings. */
  endsWithColon: boolean;
  endsWithBackslash: boolean;
  /** The line holds nothing but a comment (or is blank). */
  commentOnly: boolean;
  /** A closing bracket is the first code on the line. */
  startsWithCloser: boolean;
  /** Something went wrong that no later line can fix (bracket of the wrong kind, string not closed at end of line). */
  broken: boolean;
  /** The line without its comments (strings kept as written). */
  code: string;
}

export function initialScanState(): ScanState {
  return { brackets: [], openString: null, inBlockComment: false };
}

/** Scan one line, updating `state`. */
export function scanLine(line: string, state: ScanState, syntax: Syntax): LineScan {
  let brackets = '';
  let lastCode = '';
  let sawCode = false;
  let startsWithCloser = false;
  let broken = false;
  let code = '';
  /** Where the text not yet copied to `code` starts. */
  let copied = 0;
  let i = 0;
  const n = line.length;
  while (i < n) {
    if (state.inBlockComment) {
      const close = line.indexOf('*/', i);
      if (close < 0) {
        i = n;
        copied = n;
        break;
      }
      state.inBlockComment = false;
      i = close + 2;
      copied = i;
      continue;
    }
    if (state.openString !== null) {
      const quote = state.openString;
      const close = findStringEnd(line, i, quote);
      if (close < 0) {
        i = n;
        break;
      }
      state.openString = null;
      i = close + quote.length;
      lastCode = quote[0]!;
      continue;
    }
    const ch = line[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      i++;
      continue;
    }
    if ((syntax === 'python' && ch === '#') || (syntax === 'brace' && ch === '/' && line[i + 1] === '/')) {
      code += line.slice(copied, i);
      copied = n;
      break;
    }
    if (syntax === 'brace' && ch === '/' && line[i + 1] === '*') {
      code += line.slice(copied, i);
      state.inBlockComment = true;
      i += 2;
      continue;
    }
    if (ch === '"' || ch === "'" || (syntax === 'brace' && ch === '`')) {
      sawCode = true;
      const triple = syntax === 'python' && line.startsWith(ch.repeat(3), i);
      const quote = triple ? ch.repeat(3) : ch;
      const close = findStringEnd(line, i + quote.length, quote);
      if (close < 0) {
        // Only triple-quoted (Python) and template (`) strings may span lines; a backslash continues the others.
        if (triple || ch === '`' || line.trimEnd().endsWith('\\')) state.openString = quote;
        else broken = true;
        i = n;
        break;
      }
      i = close + quote.length;
      lastCode = ch;
      continue;
    }
    if (!sawCode && CLOSERS.includes(ch)) startsWithCloser = true;
    sawCode = true;
    if (OPENERS.includes(ch)) {
      state.brackets.push(ch);
      brackets += ch;
    } else if (CLOSERS.includes(ch)) {
      const open = state.brackets.pop();
      if (open === undefined || OPENERS.indexOf(open) !== CLOSERS.indexOf(ch)) broken = true;
      brackets += ch;
    }
    lastCode = ch;
    i++;
  }
  return {
    brackets,
    endsWithColon: lastCode === ':',
    endsWithBackslash: lastCode === '\\',
    commentOnly: !sawCode,
    startsWithCloser,
    broken,
    code: code + line.slice(copied),
  };
}

/** Index of the closing `quote` at or after `from`, skipping backslash escapes; -1 when the line ends first. */
function findStringEnd(line: string, from: number, quote: string): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] === '\\') {
      i++;
      continue;
    }
    if (line.startsWith(quote, i)) return i;
  }
  return -1;
}

/** Python-like (indentation blocks) or brace code, from the declared language or the text. */
export function detectSyntax(code: string, language?: string): Syntax {
  const lang = (language ?? '').toLowerCase();
  if (['python', 'py', 'python3'].includes(lang)) return 'python';
  if (lang !== '') return 'brace';
  const lines = toDocument(code).lines;
  const colonLines = lines.filter((line) => /:\s*(#.*)?$/.test(line)).length;
  const braceLines = lines.filter((line) => /[{}]\s*$/.test(line)).length;
  return braceLines > colonLines ? 'brace' : 'python';
}
