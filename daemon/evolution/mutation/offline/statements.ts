/**
 * The statement structure of a program's editable regions, as the offline mutator sees it: a
 * statement is a logical line with its nested block(s), plus the clauses that belong to it
 * (`elif`/`else`/`except`/`finally`, a decorated `def`), or in brace code a line with everything
 * up to its matching close. Deleting, moving or copying a statement as a whole keeps
 * indentation blocks and brackets intact.
 */
import { indentWidth } from '../../../../shared/lines';
import { initialScanState, scanLine, type Syntax } from '../scan';

export interface Statement {
  /** 0-based index of the statement's first line in the program. */
  start: number;
  /** Index after its last line (trailing blank and comment lines excluded). */
  end: number;
  indent: number;
  /** Its first line, trimmed. */
  header: string;
  bodies: Block[];
}

export interface Block {
  indent: number;
  statements: Statement[];
  /** The region's outermost level (function definitions live here), not a body. */
  topLevel: boolean;
}

interface LogicalLine {
  start: number;
  end: number;
  indent: number;
  text: string;
}

/** Statements of the lines [from, to) of `lines` (a region's inside). */
export function parseRegion(lines: readonly string[], from: number, to: number, syntax: Syntax): Block[] {
  return syntax === 'python' ? parsePythonRegion(lines, from, to) : parseBraceRegion(lines, from, to);
}

function logicalLines(lines: readonly string[], from: number, to: number): LogicalLine[] {
  const result: LogicalLine[] = [];
  const state = initialScanState();
  let i = from;
  while (i < to) {
    const first = lines[i]!;
    const scan = scanLine(first, state, 'python');
    let end = i + 1;
    let continues = state.brackets.length > 0 || state.openString !== null || scan.endsWithBackslash;
    while (continues && end < to) {
      const next = scanLine(lines[end]!, state, 'python');
      end++;
      continues = state.brackets.length > 0 || state.openString !== null || next.endsWithBackslash;
    }
    if (!scan.commentOnly) result.push({ start: i, end, indent: indentWidth(first), text: first.trim() });
    i = end;
  }
  return result;
}

const CLAUSE = /^(elif\b|else\b|except\b|finally\b)/;

function parsePythonRegion(lines: readonly string[], from: number, to: number): Block[] {
  const logical = logicalLines(lines, from, to);
  const blocks: Block[] = [];
  let pos = 0;
  const parseSeq = (indent: number, topLevel: boolean): Block => {
    const block: Block = { indent, statements: [], topLevel };
    let decorated: Statement | null = null;
    while (pos < logical.length && logical[pos]!.indent === indent) {
      const line = logical[pos++]!;
      const last = block.statements[block.statements.length - 1];
      let statement: Statement;
      if (decorated !== null || (last !== undefined && CLAUSE.test(line.text))) {
        statement = (decorated ?? last)!;
        statement.end = line.end;
      } else {
        statement = { start: line.start, end: line.end, indent, header: line.text, bodies: [] };
        block.statements.push(statement);
      }
      decorated = line.text.startsWith('@') ? statement : null;
      if (pos < logical.length && logical[pos]!.indent > indent) {
        const body = parseSeq(logical[pos]!.indent, false);
        statement.bodies.push(body);
        statement.end = Math.max(statement.end, body.statements[body.statements.length - 1]?.end ?? statement.end);
        // A body that dedents to a level between it and its header is malformed; stop at it.
        while (pos < logical.length && logical[pos]!.indent > indent) {
          const stray = parseSeq(logical[pos]!.indent, false);
          statement.end = Math.max(statement.end, stray.statements[stray.statements.length - 1]?.end ?? statement.end);
        }
      }
    }
    return block;
  };
  while (pos < logical.length) blocks.push(parseSeq(logical[pos]!.indent, true));
  return blocks;
}

function parseBraceRegion(lines: readonly string[], from: number, to: number): Block[] {
  const blocks: Block[] = [];
  let pos = from;
  while (pos < to) {
    const { block, next } = parseBraceSeq(lines, pos, to, true);
    if (block.statements.length > 0) blocks.push(block);
    // A stray closer at this level: step over it.
    pos = next === pos ? pos + 1 : next;
  }
  return blocks;
}

/** Statements from `from` until a line closes the enclosing block (or `to`). */
function parseBraceSeq(lines: readonly string[], from: number, to: number, topLevel: boolean): { block: Block; next: number } {
  const statements: Statement[] = [];
  let pos = from;
  while (pos < to) {
    const first = lines[pos]!;
    const probe = scanLine(first, initialScanState(), 'brace');
    if (probe.commentOnly) {
      pos++;
      continue;
    }
    if (probe.startsWithCloser) break;
    const state = initialScanState();
    let end = pos;
    let depth = 0;
    let broken = false;
    do {
      const scan = scanLine(lines[end]!, state, 'brace');
      for (const ch of scan.brackets) depth += '([{'.includes(ch) ? 1 : -1;
      broken = scan.broken || depth < 0;
      end++;
    } while (!broken && (depth > 0 || state.openString !== null || state.inBlockComment) && end < to);
    if (broken || depth !== 0) break;
    const statement: Statement = { start: pos, end, indent: indentWidth(first), header: first.trim(), bodies: [] };
    // Bodies: the lines between the opening line and each line that starts with the closer.
    if (end - pos > 2 && first.trimEnd().endsWith('{')) {
      let bodyStart = pos + 1;
      while (bodyStart < end - 1) {
        const { block, next } = parseBraceSeq(lines, bodyStart, end - 1, false);
        if (block.statements.length > 0) statement.bodies.push(block);
        // `next` is a line that starts with a closer (`} else {`) or one that could not be read: step over it.
        bodyStart = next + 1;
      }
    }
    statements.push(statement);
    pos = end;
  }
  const indent = statements[0]?.indent ?? 0;
  return { block: { indent, statements, topLevel }, next: pos };
}

/** Every block of a tree, outermost first. */
export function allBlocks(blocks: readonly Block[]): Block[] {
  const out: Block[] = [];
  const visit = (block: Block): void => {
    out.push(block);
    for (const statement of block.statements) for (const body of statement.bodies) visit(body);
  };
  blocks.forEach(visit);
  return out;
}

const DEFINITION = /^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^(?:export\s+)?(?:async\s+)?function\s+([A-Za-z_$][\w$]*)/;

/** The name a top-level statement defines (`def f`, `class C`, `function f`), if it is a definition. */
export function definedName(statement: Statement, lines: readonly string[]): string | null {
  for (let i = statement.start; i < statement.end; i++) {
    const text = lines[i]!.trim();
    if (text.startsWith('@')) continue;
    const match = DEFINITION.exec(text);
    return match ? (match[1] ?? match[2] ?? null) : null;
  }
  return null;
}
