/**
 * Turns an LLM answer into a child program: SEARCH/REPLACE blocks, unified diffs, or (when
 * allowed) whole EVOLVE-BLOCK rewrites, applied tolerantly but never ambiguously.
 *
 * Order of preference: SEARCH/REPLACE blocks, then a unified diff, then (with `allowRewrite`)
 * the longest fenced code block as a rewrite. Every failure message is written for the model.
 */
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import { blocksOfLines, keepsFixedText } from '../../../../shared/evolveBlocks';
import { isAllBlank, locate } from './locate';
import { applyBlock, type Edited, type Failure, outsideBlock } from './applyBlock';
import { applyAnswerToFiles } from './applyToFiles';
import { isProgramBundle } from '../../../../shared/programFiles';
import {
  answerLines,
  extractUnifiedDiff,
  fencedBlocks,
  looseHunks,
  parseSearchReplace,
  type LooseHunk,
  type SearchReplaceBlock,
} from './parseAnswer';
import { canonicalLine, fromDocument, toDocument, type LineDocument } from '../../../../shared/lines';

export { evolveBlocks, type EvolveBlock } from '../../../../shared/evolveBlocks';
export { unifiedDiff } from './unifiedDiff';

export type { ApplyFailure } from './applyBlock';

export type ApplyResult = { ok: true; code: string; edits: number; format: 'search-replace' | 'unified-diff' | 'rewrite' } | Failure;

export interface ApplyOptions {
  /** Accept a fenced code block that rewrites a whole EVOLVE-BLOCK. */
  allowRewrite?: boolean;
}

export function applyAnswer(parent: string, answer: string, options: ApplyOptions = {}): ApplyResult {
  // A multi-file program (shared/programFiles.ts): each block names its file.
  if (isProgramBundle(parent)) return applyAnswerToFiles(parent, answer);
  const doc = toDocument(parent);
  const lines = answerLines(answer);

  const parsed = parseSearchReplace(lines);
  if (!parsed.ok) return { ok: false, reason: 'bad_diff', message: parsed.message };
  if (parsed.blocks.length > 0) return finish(doc, applyBlocks(doc, parsed.blocks, 'Block'), 'search-replace', parsed.blocks.length);

  const diff = extractUnifiedDiff(lines);
  if (diff !== null) return applyUnifiedDiff(doc, diff);

  if (options.allowRewrite) {
    const code = fencedBlocks(lines)
      .filter((block) => !['diff', 'patch'].includes(block.language) && !isAllBlank(block.lines))
      .sort((a, b) => b.lines.length - a.lines.length)[0];
    if (code) return finish(doc, rewrite(doc, code.lines), 'rewrite', 1);
  }
  return { ok: false, reason: 'no_edit', message: noEditMessage(options.allowRewrite === true) };
}

function noEditMessage(allowRewrite: boolean): string {
  return [
    'No edit was found in the answer. Write each change as a SEARCH/REPLACE block:',
    '<<<<<<< SEARCH',
    '(lines copied exactly from the program, enough to be unique)',
    '=======',
    '(the lines that replace them)',
    '>>>>>>> REPLACE',
    allowRewrite ? 'or give the complete new EVOLVE-BLOCK in one fenced code block.' : 'A unified diff (@@ hunks) is accepted too.',
  ].join('\n');
}


function finish(parent: LineDocument, edited: Edited, format: 'search-replace' | 'unified-diff' | 'rewrite', edits: number): ApplyResult {
  if (!edited.ok) return edited;
  const code = fromDocument({ ...parent, lines: edited.lines });
  if (code === fromDocument(parent)) {
    return { ok: false, reason: 'identical', message: 'The edits leave the program unchanged: change at least one line.' };
  }
  return { ok: true, code, edits, format };
}

/** Apply blocks in order, each to the result of the previous; the first failure fails them all. */
function applyBlocks(parent: LineDocument, blocks: readonly SearchReplaceBlock[], noun: string): Edited {
  let current = parent.lines;
  for (let i = 0; i < blocks.length; i++) {
    const label = `${noun} ${i + 1} of ${blocks.length}`;
    const result = applyBlock(current, blocks[i]!, label);
    if (!result.ok) return result;
    if (!keepsFixedText(parent.lines, result.lines)) return outsideBlock(parent.lines, label);
    current = result.lines;
  }
  return { ok: true, lines: current };
}

/**
 * A unified diff: applied with `diff.applyPatch` when every hunk's old text sits at one place
 * (or the hunk header points at one of its places); otherwise, or when it does not apply
 * exactly, its hunks are applied as SEARCH/REPLACE blocks, which tolerate whitespace and
 * detect ambiguity. Fuzzy `applyPatch` is the last resort, only for hunks with enough context.
 */
function applyUnifiedDiff(doc: LineDocument, diff: string): ApplyResult {
  const loose = looseHunks(diff);
  if (!loose.ok) return { ok: false, reason: 'bad_diff', message: `The unified diff is malformed. ${loose.message}` };
  // jsdiff's own model: LF text whose every line ends with a break. The document's line ending
  // and final newline are put back from `doc` (finishDiff rebuilds with fromDocument).
  const source = doc.lines.join('\n') + (doc.lines.length > 0 ? '\n' : '');
  const toLines = (text: string): string[] => toDocument(text).lines;

  const structured = tryParsePatch(diff) ?? patchOfHunks(loose.hunks);
  if (structured && loose.hunks.every((hunk) => placedUniquely(doc.lines, hunk.oldLines, hunk.oldStart))) {
    const patched = applyPatch(source, structured);
    if (patched !== false) return finishDiff(doc, toLines(patched), loose.hunks.length);
  }

  const asBlocks: SearchReplaceBlock[] = loose.hunks.map((hunk) => ({ search: hunk.oldLines, replace: hunk.newLines, answerLine: 0 }));
  const edited = applyBlocks(doc, asBlocks, 'Hunk');
  if (edited.ok || edited.reason !== 'no_match') return finish(doc, edited, 'unified-diff', loose.hunks.length);

  const FUZZ = 2;
  const enoughContext = loose.hunks.every((hunk) => contextLines(hunk) >= FUZZ + 2);
  if (enoughContext) {
    const patched = applyPatch(source, structured, {
      fuzzFactor: FUZZ,
      compareLine: (_n, line, _op, content) => canonicalLine(line) === canonicalLine(content),
    });
    if (patched !== false) return finishDiff(doc, toLines(patched), loose.hunks.length);
  }
  return edited;
}

function finishDiff(doc: LineDocument, lines: string[], hunks: number): ApplyResult {
  if (!keepsFixedText(doc.lines, lines)) return outsideBlock(doc.lines, 'The diff');
  return finish(doc, { ok: true, lines }, 'unified-diff', hunks);
}

function tryParsePatch(diff: string): StructuredPatch | null {
  try {
    const patches = parsePatch(diff).filter((p) => p.hunks.length > 0);
    return patches.length === 1 ? patches[0]! : null;
  } catch {
    return null;
  }
}

/** A structured patch from leniently read hunks: their counts are recomputed, a missing start is line 1. */
function patchOfHunks(hunks: readonly LooseHunk[]): StructuredPatch {
  return {
    oldFileName: undefined,
    newFileName: undefined,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: hunks.map((hunk) => ({
      oldStart: hunk.oldStart ?? 1,
      oldLines: hunk.oldLines.length,
      newStart: hunk.oldStart ?? 1,
      newLines: hunk.newLines.length,
      lines: hunk.lines,
    })),
  };
}

function contextLines(hunk: LooseHunk): number {
  return hunk.lines.filter((line) => line.startsWith(' ')).length;
}

/** The hunk's old text occurs once, or its header names one of its places. */
function placedUniquely(program: readonly string[], oldLines: readonly string[], oldStart: number | null): boolean {
  if (oldLines.length === 0) return false;
  const found = locate(program, oldLines);
  if (found.found === 'one') return found.match.tier === 'exact';
  if (found.found === 'many') return oldStart !== null && found.matches.some((m) => m.tier === 'exact' && m.start + 1 === oldStart);
  return false;
}

/**
 * A fenced block as a rewrite: with EVOLVE-BLOCK markers in it, its regions' insides replace
 * the parent's, region by region; without, it replaces the parent's only region (or the whole
 * file when the parent has none).
 */
function rewrite(doc: LineDocument, code: string[]): Edited {
  const parentBlocks = blocksOfLines(doc.lines);
  if (parentBlocks.length === 0) return { ok: true, lines: code };
  const codeBlocks = blocksOfLines(code);
  let insides: string[][];
  if (codeBlocks.length === 0) {
    if (parentBlocks.length > 1) {
      return {
        ok: false,
        reason: 'ambiguous',
        message: `The program has ${parentBlocks.length} EVOLVE-BLOCK regions and the code block has no markers: say which region it rewrites by including its EVOLVE-BLOCK-START and EVOLVE-BLOCK-END lines.`,
      };
    }
    insides = [code];
  } else if (codeBlocks.length === parentBlocks.length) {
    insides = codeBlocks.map((b) => code.slice(b.startLine, b.endLine - 1));
  } else {
    return {
      ok: false,
      reason: 'outside_block',
      message: `The code block has ${codeBlocks.length} EVOLVE-BLOCK regions but the program has ${parentBlocks.length}; rewrite each region with its marker lines.`,
    };
  }
  const lines: string[] = [];
  let from = 0;
  parentBlocks.forEach((block, i) => {
    lines.push(...doc.lines.slice(from, block.startLine), ...insides[i]!);
    from = block.endLine - 1;
  });
  lines.push(...doc.lines.slice(from));
  if (!keepsFixedText(doc.lines, lines)) return outsideBlock(doc.lines, 'The rewrite');
  return { ok: true, lines };
}
