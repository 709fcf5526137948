/**
 * Locates a SEARCH text in a program: exactly first, then ignoring whitespace differences
 * within lines, then at a different uniform indentation. More than one place at the first tier
 * that finds any is ambiguous; no place gives the closest lines for the model's next try.
 */
import { canonicalLine, indentWidth, isBlank, lineBody } from '../../../../shared/lines';

export type MatchTier = 'exact' | 'whitespace' | 'indentation';

export interface Match {
  /** 0-based index of the first matched program line. */
  start: number;
  tier: MatchTier;
  /** Columns to add to the SEARCH indentation to get the program's (0 unless `indentation`). */
  delta: number;
}

export type LocateResult = { found: 'one'; match: Match } | { found: 'many'; matches: Match[] } | { found: 'none' };

export function locate(program: readonly string[], search: readonly string[]): LocateResult {
  const m = search.length;
  if (m === 0 || m > program.length) return { found: 'none' };
  const tiers: [MatchTier, (start: number) => number | null][] = [
    ['exact', (start) => (search.every((line, j) => program[start + j] === line) ? 0 : null)],
    ['whitespace', whitespaceMatcher(program, search)],
    ['indentation', indentationMatcher(program, search)],
  ];
  for (const [tier, matchAt] of tiers) {
    const matches: Match[] = [];
    for (let start = 0; start + m <= program.length; start++) {
      const delta = matchAt(start);
      if (delta !== null) matches.push({ start, tier, delta });
    }
    if (matches.length === 1) return { found: 'one', match: matches[0]! };
    if (matches.length > 1) return { found: 'many', matches };
  }
  return { found: 'none' };
}

function whitespaceMatcher(program: readonly string[], search: readonly string[]): (start: number) => number | null {
  const programKeys = program.map(canonicalLine);
  const searchKeys = search.map(canonicalLine);
  return (start) => (searchKeys.every((key, j) => programKeys[start + j] === key) ? 0 : null);
}

function indentationMatcher(program: readonly string[], search: readonly string[]): (start: number) => number | null {
  const programBodies = program.map(lineBody);
  const programWidths = program.map(indentWidth);
  const searchBodies = search.map(lineBody);
  const searchWidths = search.map(indentWidth);
  // An all-blank SEARCH has no indentation to compare: it would match every blank run.
  if (searchBodies.every((body) => body === '')) return () => null;
  return (start) => {
    let delta: number | null = null;
    for (let j = 0; j < search.length; j++) {
      if (programBodies[start + j] !== searchBodies[j]) return null;
      if (searchBodies[j] === '') continue;
      const d = programWidths[start + j]! - searchWidths[j]!;
      if (delta === null) delta = d;
      else if (d !== delta) return null;
    }
    return delta;
  };
}

export interface ClosestLines {
  /** 0-based first line of the most similar window of the program. */
  start: number;
  length: number;
  /** Mean per-line similarity in [0, 1]. */
  similarity: number;
}

/** Most similar window of the program to `search` (bigram Dice per line, averaged). */
export function closestLines(program: readonly string[], search: readonly string[]): ClosestLines | null {
  if (program.length === 0 || search.length === 0) return null;
  // Only the first lines of a long SEARCH are scored, to keep this linear in the program size.
  const probe = search.slice(0, 40);
  const length = Math.min(probe.length, program.length);
  const programGrams = program.map((line) => bigrams(lineBody(line)));
  const probeGrams = probe.map((line) => bigrams(lineBody(line)));
  let best: ClosestLines | null = null;
  for (let start = 0; start + length <= program.length; start++) {
    let total = 0;
    for (let j = 0; j < length; j++) total += dice(probeGrams[j]!, programGrams[start + j]!);
    const similarity = total / probe.length;
    if (best === null || similarity > best.similarity) best = { start, length, similarity };
  }
  return best;
}

const MAX_GRAMS_LINE = 400;

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  const s = text.slice(0, MAX_GRAMS_LINE);
  for (let i = 0; i + 1 < s.length; i++) {
    const g = s.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

function dice(a: Map<string, number>, b: Map<string, number>): number {
  let sizeA = 0;
  let sizeB = 0;
  for (const n of a.values()) sizeA += n;
  for (const n of b.values()) sizeB += n;
  if (sizeA === 0 && sizeB === 0) return 1;
  if (sizeA === 0 || sizeB === 0) return 0;
  let common = 0;
  for (const [g, n] of a) common += Math.min(n, b.get(g) ?? 0);
  return (2 * common) / (sizeA + sizeB);
}

export function isAllBlank(lines: readonly string[]): boolean {
  return lines.every(isBlank);
}
