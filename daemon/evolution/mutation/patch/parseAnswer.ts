/**
 * Finds the edits in an LLM answer: SEARCH/REPLACE blocks (inside or outside code fences),
 * unified diffs, and fenced code blocks (candidate rewrites). Pure text parsing; nothing here
 * looks at the program.
 */
import { normalizeNewlines } from '../../../../shared/lines';

export interface SearchReplaceBlock {
  search: string[];
  replace: string[];
  /** 1-based line of the block's SEARCH marker in the answer. */
  answerLine: number;
  /**
   * The file the block names: the path line just before its code fence (or before its SEARCH
   * marker when it has none), as coding assistants write them. Only a multi-file program reads it.
   */
  path?: string;
}

export interface FencedBlock {
  language: string;
  lines: string[];
}

export type ParsedBlocks =
  | { ok: true; blocks: SearchReplaceBlock[] }
  | { ok: false; message: string };

const SEARCH_MARKER = /^\s*<{5,9}\s*SEARCH\s*$/i;
const DIVIDER_MARKER = /^\s*={5,9}\s*$/;
const REPLACE_MARKER = /^\s*>{5,9}\s*REPLACE\s*$/i;
const FENCE_OPEN = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/;

/** An answer's lines. An answer is not a document (shared/lines.ts): any line ending, a lone CR included, ends a line. */
export function answerLines(answer: string): string[] {
  return normalizeNewlines(answer).split('\n');
}

/** Every SEARCH/REPLACE block, in order; a block that is opened but not closed is an error. */
export function parseSearchReplace(lines: readonly string[]): ParsedBlocks {
  const blocks: SearchReplaceBlock[] = [];
  let state: 'outside' | 'search' | 'replace' = 'outside';
  let search: string[] = [];
  let replace: string[] = [];
  let startLine = 0;
  let path: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (state === 'outside') {
      if (SEARCH_MARKER.test(line)) {
        state = 'search';
        search = [];
        startLine = i + 1;
        path = pathBefore(lines, i);
      }
    } else if (state === 'search') {
      if (DIVIDER_MARKER.test(line)) {
        state = 'replace';
        replace = [];
      } else if (SEARCH_MARKER.test(line) || REPLACE_MARKER.test(line)) {
        return { ok: false, message: malformed(blocks.length + 1, startLine, 'its SEARCH part has no `=======` line') };
      } else search.push(line);
    } else if (REPLACE_MARKER.test(line)) {
      blocks.push({ ...stripInnerFences(search, replace), answerLine: startLine, ...(path !== undefined && { path }) });
      state = 'outside';
    } else if (SEARCH_MARKER.test(line)) {
      return { ok: false, message: malformed(blocks.length + 1, startLine, 'it has no `>>>>>>> REPLACE` line') };
    } else replace.push(line);
  }
  if (state !== 'outside') {
    const missing = state === 'search' ? 'the `=======` and `>>>>>>> REPLACE` lines' : 'the `>>>>>>> REPLACE` line';
    return { ok: false, message: malformed(blocks.length + 1, startLine, `the answer ends before ${missing}`) };
  }
  return { ok: true, blocks };
}

/**
 * The path a block names: the line before its fence (or before its SEARCH marker), read the
 * ways models write it (`src/a.py`, `` `src/a.py` ``, `**src/a.py**`, `### src/a.py`,
 * `File: src/a.py`). A line that does not look like one path is prose, not a name.
 */
function pathBefore(lines: readonly string[], marker: number): string | undefined {
  let at = marker - 1;
  if (at >= 0 && FENCE_OPEN.test(lines[at]!)) at--;
  if (at < 0) return undefined;
  const name = lines[at]!
    .trim()
    .replace(/^#+\s*/, '')
    .replace(/^(file(name)?|path)\s*:\s*/i, '')
    .replace(/^[*`'"]+|[*`'":]+$/g, '')
    .trim();
  return /^[\w.@+-]+(\/[\w.@+-]+)*$/.test(name) && /[./]/.test(name) && !/^\.+$/.test(name) ? name : undefined;
}

function malformed(index: number, line: number, what: string): string {
  return `Block ${index} (answer line ${line}) is malformed: ${what}. Each block is\n<<<<<<< SEARCH\n(lines copied from the program)\n=======\n(their replacement)\n>>>>>>> REPLACE`;
}

/** Some models put a code fence inside a block's halves; the fence is not program text. */
function stripInnerFences(search: string[], replace: string[]): { search: string[]; replace: string[] } {
  const opens = (part: string[]): boolean => part.length > 0 && FENCE_OPEN.test(part[0]!);
  const closes = (part: string[]): boolean => part.length > 0 && /^\s*(`{3,}|~{3,})\s*$/.test(part[part.length - 1]!);
  let s = search;
  let r = replace;
  if (opens(s) && closes(s)) s = s.slice(1, -1);
  if (opens(r) && closes(r)) r = r.slice(1, -1);
  if (opens(s) && closes(r)) {
    s = s.slice(1);
    r = r.slice(0, -1);
  }
  return { search: s, replace: r };
}

/** Fenced code blocks (``` or ~~~), with their language tag; an unclosed fence runs to the end. */
export function fencedBlocks(lines: readonly string[]): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { fence: string; language: string; lines: string[] } | null = null;
  for (const line of lines) {
    if (open) {
      const trimmed = line.trim();
      if (trimmed.startsWith(open.fence) && /^(`+|~+)$/.test(trimmed) && trimmed[0] === open.fence[0]) {
        blocks.push({ language: open.language, lines: open.lines });
        open = null;
      } else open.lines.push(line);
      continue;
    }
    const match = FENCE_OPEN.exec(line);
    if (match) open = { fence: match[1]!, language: (match[2] ?? '').toLowerCase(), lines: [] };
  }
  if (open) blocks.push({ language: open.language, lines: open.lines });
  return blocks;
}

const HUNK_HEADER = /^@@.*$/;
const DIFF_LINE = /^([ +\-\\]|@@|$)/;

/** Whether the lines look like a unified diff (a hunk header followed by diff lines). */
function hasHunk(lines: readonly string[]): boolean {
  return lines.some((line, i) => /^@@( |$)/.test(line) && i + 1 < lines.length && /^[ +-]/.test(lines[i + 1]!));
}

/**
 * The unified diff in an answer, if any: a fenced block that holds one, or else the diff lines
 * around the first hunk header in the prose.
 */
export function extractUnifiedDiff(lines: readonly string[]): string | null {
  for (const block of fencedBlocks(lines)) if (hasHunk(block.lines)) return trimDiff(block.lines).join('\n') + '\n';
  if (!hasHunk(lines)) return null;
  let first = lines.findIndex((line) => HUNK_HEADER.test(line));
  if (first >= 2 && lines[first - 2]!.startsWith('--- ') && lines[first - 1]!.startsWith('+++ ')) first -= 2;
  let last = first;
  while (last + 1 < lines.length && (DIFF_LINE.test(lines[last + 1]!) || /^(\+\+\+|---) /.test(lines[last + 1]!))) last++;
  return trimDiff(lines.slice(first, last + 1)).join('\n') + '\n';
}

/** Drop prose lines before the headers and blank lines at the end, which are not context. */
function trimDiff(lines: readonly string[]): string[] {
  let start = lines.findIndex((line) => line.startsWith('--- ') || HUNK_HEADER.test(line));
  if (start < 0) start = 0;
  let end = lines.length;
  while (end > start && lines[end - 1]!.trim() === '') end--;
  return lines.slice(start, end);
}

export interface LooseHunk {
  /** The hunk's lines with their ' ', '-' or '+' prefix (an empty context line gets its space back). */
  lines: string[];
  oldLines: string[];
  newLines: string[];
  /** 1-based old start line from the header, when it had one. */
  oldStart: number | null;
}

/**
 * Hunks read leniently (headers without line numbers, wrong counts, context lines that lost
 * their leading space when empty), for applying as search/replace when `applyPatch` cannot.
 */
export function looseHunks(diff: string): { ok: true; hunks: LooseHunk[] } | { ok: false; message: string } {
  const hunks: LooseHunk[] = [];
  let current: LooseHunk | null = null;
  // The diff is a join of answerLines (extractUnifiedDiff): LF only, with a trailing break.
  const lines = diff.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // Empty lines just before the next hunk (or the end) separate hunks; they are not context.
    if (line === '') {
      let next = i;
      while (next < lines.length && lines[next] === '') next++;
      if (next === lines.length || /^(@@|--- |diff )/.test(lines[next]!)) {
        i = next - 1;
        continue;
      }
    }
    if (/^(---|\+\+\+) /.test(line) && (current === null || /^(---|\+\+\+) /.test(lines[i + 1] ?? '') || /^(---|\+\+\+) /.test(lines[i - 1] ?? ''))) {
      current = null;
      continue;
    }
    if (line.startsWith('@@')) {
      const start = /^@@ -(\d+)/.exec(line);
      current = { lines: [], oldLines: [], newLines: [], oldStart: start ? Number(start[1]) : null };
      hunks.push(current);
      continue;
    }
    if (current === null) {
      if (line.trim() === '' || /^(diff |index )/.test(line)) continue;
      return { ok: false, message: `Diff line ${i + 1} comes before any @@ hunk header: ${JSON.stringify(line.slice(0, 120))}` };
    }
    if (line.startsWith('\\')) continue;
    const body = line.slice(1);
    if (line === '' || line.startsWith(' ')) {
      current.lines.push(` ${body}`);
      current.oldLines.push(body);
      current.newLines.push(body);
    } else if (line.startsWith('-')) {
      current.lines.push(line);
      current.oldLines.push(body);
    } else if (line.startsWith('+')) {
      current.lines.push(line);
      current.newLines.push(body);
    } else
      return {
        ok: false,
        message: `Diff line ${i + 1} in hunk ${hunks.length} is neither context (' '), removal ('-') nor addition ('+'): ${JSON.stringify(line.slice(0, 120))}`,
      };
  }
  if (hunks.length === 0) return { ok: false, message: 'The diff has no @@ hunk.' };
  return { ok: true, hunks };
}
