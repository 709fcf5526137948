/**
 * One SEARCH/REPLACE block applied to one document's lines, and the failures every patch
 * format shares (no match, ambiguous, outside the EVOLVE-BLOCKs), each written for the model.
 */
import { blocksOfLines, describeBlocks } from '../../../../shared/evolveBlocks';
import { capText, canonicalLine, isBlank, reindent, usesTabs } from '../../../../shared/lines';
import { closestLines, isAllBlank, locate, type Match } from './locate';
import type { SearchReplaceBlock } from './parseAnswer';

export type ApplyFailure = 'no_edit' | 'no_match' | 'ambiguous' | 'outside_block' | 'identical' | 'bad_diff';

/** `message` is written for the model: what did not apply and the closest lines of the program. */
export type Failure = { ok: false; reason: ApplyFailure; message: string };

/** Lines after the edits, or the failure. */
export type Edited = { ok: true; lines: string[] } | Failure;

const SEARCH_QUOTE_CHARS = 1_500;
const CLOSEST_LINES_SHOWN = 30;

export function outsideBlock(parentLines: readonly string[], label: string): Failure {
  return {
    ok: false,
    reason: 'outside_block',
    message: `${label} changes lines outside the EVOLVE-BLOCK regions (editable lines: ${describeBlocks(blocksOfLines(parentLines))}). Edit only between the EVOLVE-BLOCK-START and EVOLVE-BLOCK-END lines and leave the marker lines as they are.`,
  };
}

export function applyBlock(program: readonly string[], block: SearchReplaceBlock, label: string): Edited {
  const { search, replace } = block;
  if (isAllBlank(search)) {
    if (isAllBlank(program)) return { ok: true, lines: [...replace] };
    return {
      ok: false,
      reason: 'no_match',
      message: `${label} has an empty SEARCH part. Copy into SEARCH the exact program lines to replace (an empty SEARCH is only for an empty program).`,
    };
  }
  let found = locate(program, search);
  let used = { search, replace };
  if (found.found === 'none') {
    // Models often add a blank line at either end of SEARCH that the program does not have there.
    const trimmed = trimBlankEnds(search, replace);
    if (trimmed.search.length !== search.length) {
      const retry = locate(program, trimmed.search);
      if (retry.found !== 'none') {
        found = retry;
        used = trimmed;
      }
    }
  }
  if (found.found === 'many') {
    const places = found.matches
      .slice(0, 5)
      .map((m) => `lines ${m.start + 1}-${m.start + used.search.length}`)
      .join(', ');
    return {
      ok: false,
      reason: 'ambiguous',
      message: `${label}: the SEARCH text matches ${found.matches.length} places in the program (${places}${found.matches.length > 5 ? ', …' : ''}). Add surrounding lines to SEARCH so that it matches exactly one place.`,
    };
  }
  if (found.found === 'none') return noMatch(program, search, label);
  return { ok: true, lines: splice(program, found.match, used.search, used.replace) };
}

function trimBlankEnds(search: readonly string[], replace: readonly string[]): { search: string[]; replace: string[] } {
  let s = [...search];
  let r = [...replace];
  while (s.length > 1 && isBlank(s[0]!)) {
    s = s.slice(1);
    if (r.length > 0 && isBlank(r[0]!)) r = r.slice(1);
  }
  while (s.length > 1 && isBlank(s[s.length - 1]!)) {
    s = s.slice(0, -1);
    if (r.length > 0 && isBlank(r[r.length - 1]!)) r = r.slice(0, -1);
  }
  return { search: s, replace: r };
}

/**
 * Replace the matched lines. Lines that REPLACE repeats from SEARCH at either end are context:
 * the program's own text is kept there (so a quoted marker line stays byte-identical); the
 * changed middle follows the program's indentation when the match was whitespace-tolerant.
 */
function splice(program: readonly string[], match: Match, search: readonly string[], replace: readonly string[]): string[] {
  const matched = program.slice(match.start, match.start + search.length);
  const same = (a: string, b: string): boolean => (match.tier === 'exact' ? a === b : canonicalLine(a) === canonicalLine(b));
  let prefix = 0;
  while (prefix < search.length && prefix < replace.length && same(search[prefix]!, replace[prefix]!)) prefix++;
  let suffix = 0;
  while (
    suffix < search.length - prefix &&
    suffix < replace.length - prefix &&
    same(search[search.length - 1 - suffix]!, replace[replace.length - 1 - suffix]!)
  )
    suffix++;
  let middle = replace.slice(prefix, replace.length - suffix);
  // New lines follow the program's indentation style (tabs or spaces): mixing them breaks Python.
  const indented = (line: string): boolean => /^[ \t]+\S/.test(line);
  const tabs = usesTabs(matched.some(indented) ? matched : program);
  const styleDiffers = program.some(indented) && middle.some((line) => indented(line) && /^[ \t]*\t/.test(line) !== tabs);
  if (match.delta !== 0 || styleDiffers) middle = reindent(middle, match.delta, tabs);
  return [
    ...program.slice(0, match.start),
    ...matched.slice(0, prefix),
    ...middle,
    ...matched.slice(search.length - suffix),
    ...program.slice(match.start + search.length),
  ];
}

export function noMatch(program: readonly string[], search: readonly string[], label: string): Failure {
  const parts = [`${label}: the SEARCH text was not found in the program.`, 'SEARCH was:', capText(search.join('\n'), SEARCH_QUOTE_CHARS)];
  const closest = closestLines(program, search);
  if (closest && closest.similarity > 0) {
    const shown = program.slice(closest.start, closest.start + Math.min(closest.length, CLOSEST_LINES_SHOWN));
    const end = closest.start + shown.length;
    parts.push(
      `The most similar program lines are lines ${closest.start + 1}-${end} (${Math.round(closest.similarity * 100)}% similar):`,
      capText(shown.map((line, j) => `${String(closest.start + j + 1).padStart(4)}| ${line}`).join('\n'), SEARCH_QUOTE_CHARS * 2),
    );
  }
  parts.push('Copy SEARCH lines exactly from the current program (without the line numbers).');
  return { ok: false, reason: 'no_match', message: parts.join('\n') };
}

