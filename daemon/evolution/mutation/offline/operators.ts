/**
 * The offline mutator's edit operators, each a pure function from the program's lines (and the
 * parsed regions) to new lines, or null when it has nothing to do with the random choice made.
 */
import type { Rng } from '../../rng';
import { leadingWhitespace, reindent, usesTabs } from '../../../../shared/lines';
import { allBlocks, definedName, type Block, type Statement } from './statements';
import type { Syntax } from '../scan';

export interface Subject {
  lines: string[];
  blocks: Block[];
  syntax: Syntax;
}

export interface Donor {
  lines: string[];
  blocks: Block[];
}

export type OperatorName = 'delete' | 'copy' | 'swap' | 'donor' | 'crossover';

interface Located {
  statement: Statement;
  block: Block;
}

export function statementsOf(blocks: readonly Block[]): Located[] {
  return allBlocks(blocks).flatMap((block) => block.statements.map((statement) => ({ statement, block })));
}

function textOf(lines: readonly string[], statement: Statement): string[] {
  return lines.slice(statement.start, statement.end);
}

function splice(lines: readonly string[], start: number, end: number, insert: readonly string[]): string[] {
  return [...lines.slice(0, start), ...insert, ...lines.slice(end)];
}

/** Bring `text` (a statement at `fromIndent`) to `toIndent`, in the program's indentation style. */
function moveTo(text: readonly string[], fromIndent: number, toIndent: number, tabs: boolean): string[] {
  return fromIndent === toIndent ? [...text] : reindent(text, toIndent - fromIndent, tabs);
}

/** Delete one statement with its blocks; a Python block left empty gets `pass`. */
export function deleteStatement(subject: Subject, rng: Rng): string[] | null {
  const all = statementsOf(subject.blocks);
  if (all.length === 0) return null;
  return deleteLines(subject, rng.pick(all).statement);
}

/** The program without `statement`; a Python block left empty gets `pass`. */
export function deleteLines(subject: Subject, statement: Statement): string[] {
  const block = statementsOf(subject.blocks).find((located) => located.statement === statement)?.block;
  const needsPass = subject.syntax === 'python' && block !== undefined && block.statements.length === 1 && (!block.topLevel || block.indent > 0);
  const filler = needsPass ? [`${leadingWhitespace(subject.lines[statement.start]!)}pass`] : [];
  return splice(subject.lines, statement.start, statement.end, filler);
}

/** Copy a statement to a position in some block: definitions only among definitions, other statements only into bodies. */
export function copyStatement(subject: Subject, rng: Rng): string[] | null {
  const all = statementsOf(subject.blocks);
  if (all.length === 0) return null;
  const { statement, block: home } = rng.pick(all);
  const isDefinition = home.topLevel && definedName(statement, subject.lines) !== null;
  const targets = allBlocks(subject.blocks).filter((block) => (isDefinition ? block.topLevel : !block.topLevel || block.indent > 0));
  if (targets.length === 0) return null;
  const target = rng.pick(targets);
  const slot = rng.int(target.statements.length + 1);
  const at = slot < target.statements.length ? target.statements[slot]!.start : target.statements[target.statements.length - 1]!.end;
  const copy = moveTo(textOf(subject.lines, statement), statement.indent, target.indent, usesTabs(subject.lines));
  return splice(subject.lines, at, at, copy);
}

/** Exchange two statements of the same block (the lines between them stay). */
export function swapStatements(subject: Subject, rng: Rng): string[] | null {
  const candidates = allBlocks(subject.blocks).filter((block) => block.statements.length >= 2);
  if (candidates.length === 0) return null;
  const block = rng.pick(candidates);
  const i = rng.int(block.statements.length);
  let j = rng.int(block.statements.length - 1);
  if (j >= i) j++;
  const [a, b] = i < j ? [block.statements[i]!, block.statements[j]!] : [block.statements[j]!, block.statements[i]!];
  const lines = subject.lines;
  return [
    ...lines.slice(0, a.start),
    ...textOf(lines, b),
    ...lines.slice(a.end, b.start),
    ...textOf(lines, a),
    ...lines.slice(b.end),
  ];
}

/** Replace a statement with a donor's statement of the same indentation (a body statement with a body statement). */
export function donorStatement(subject: Subject, donors: readonly Donor[], rng: Rng): string[] | null {
  if (donors.length === 0) return null;
  const all = statementsOf(subject.blocks);
  if (all.length === 0) return null;
  const { statement, block } = rng.pick(all);
  const donor = rng.pick(donors);
  const pool = statementsOf(donor.blocks).filter(
    (d) => d.statement.indent === statement.indent && d.block.topLevel === block.topLevel,
  );
  if (pool.length === 0) return null;
  const chosen = rng.pick(pool).statement;
  return splice(subject.lines, statement.start, statement.end, textOf(donor.lines, chosen));
}

/** Replace a whole top-level definition with a donor's definition of the same name. */
export function crossover(subject: Subject, donors: readonly Donor[], rng: Rng): string[] | null {
  const pairs: { ours: Statement; theirs: string[] }[] = [];
  for (const donor of donors) {
    const theirs = new Map<string, Statement>();
    for (const block of donor.blocks) for (const s of block.statements) {
      const name = definedName(s, donor.lines);
      if (name !== null) theirs.set(name, s);
    }
    for (const block of subject.blocks) for (const ours of block.statements) {
      const name = definedName(ours, subject.lines);
      const match = name === null ? undefined : theirs.get(name);
      if (!match) continue;
      const text = moveTo(textOf(donor.lines, match), match.indent, ours.indent, usesTabs(subject.lines));
      if (text.join('\n') !== textOf(subject.lines, ours).join('\n')) pairs.push({ ours, theirs: text });
    }
  }
  if (pairs.length === 0) return null;
  const { ours, theirs } = rng.pick(pairs);
  return splice(subject.lines, ours.start, ours.end, theirs);
}

const PYTHON_STORE = /^([A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)/;
const BRACE_STORE = /^(?:(?:const|let|var)\s+)?([A-Za-z_$][\w$]*)\s*=(?![=>])/;

/**
 * Dead stores: statements (without a body) that assign a plain name no other line of the
 * program reads, e.g. `again = sorted(scratch)` never used again. Deleting one is the likeliest
 * win a mutator without a model can find, so the offline mutator tries them first; once one is
 * gone, the stores only it read are dead in the child, and go next.
 */
export function deadStores(subject: Subject): Statement[] {
  const text = subject.lines;
  const store = subject.syntax === 'python' ? PYTHON_STORE : BRACE_STORE;
  return statementsOf(subject.blocks)
    .map(({ statement }) => statement)
    .filter((statement) => {
      if (statement.bodies.length > 0) return false;
      const name = store.exec(statement.header)?.[1];
      if (!name || ['self', 'this', 'global', 'nonlocal', 'return', 'yield'].includes(name)) return false;
      const word = new RegExp(`(^|[^\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`);
      const elsewhere = (line: string, index: number): boolean => (index < statement.start || index >= statement.end) && word.test(line);
      return !text.some(elsewhere);
    });
}
