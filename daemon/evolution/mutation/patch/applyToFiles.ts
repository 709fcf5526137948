/**
 * An LLM answer applied to a multi-file program (shared/programFiles.ts): each SEARCH/REPLACE
 * block names its file on the line before its fence, and is applied to that file alone, under
 * the same rules as a single file (whitespace-tolerant, never ambiguous, only inside the
 * EVOLVE-BLOCK regions). A block that names a file outside the program is refused; a block
 * that names none applies where its SEARCH text is found in exactly one file.
 *
 * Only SEARCH/REPLACE blocks: a unified diff or a whole rewrite of several files is too easy
 * to apply to the wrong file, and the failure message says how to write the edit instead.
 */
import { keepsFixedText } from '../../../../shared/evolveBlocks';
import { fromDocument, toDocument, type LineDocument } from '../../../../shared/lines';
import { bundleProgram, ProgramBundleError, unbundleProgram } from '../../../../shared/programFiles';
import { applyBlock, type Failure, outsideBlock } from './applyBlock';
import { locate } from './locate';
import { answerLines, parseSearchReplace, type SearchReplaceBlock } from './parseAnswer';

export type FilesApplyResult = { ok: true; code: string; edits: number; format: 'search-replace' } | Failure;

export function applyAnswerToFiles(parent: string, answer: string): FilesApplyResult {
  let files: { path: string; doc: LineDocument; original: LineDocument }[];
  try {
    files = unbundleProgram(parent).map((file) => ({ path: file.path, doc: toDocument(file.text), original: toDocument(file.text) }));
  } catch (error) {
    return { ok: false, reason: 'bad_diff', message: `The current program cannot be split into its files: ${(error as Error).message}` };
  }
  const names = files.map((file) => file.path);
  const parsed = parseSearchReplace(answerLines(answer));
  if (!parsed.ok) return { ok: false, reason: 'bad_diff', message: parsed.message };
  if (parsed.blocks.length === 0) return { ok: false, reason: 'no_edit', message: noEditMessage(names) };

  for (let i = 0; i < parsed.blocks.length; i++) {
    const block = parsed.blocks[i]!;
    const label = `Block ${i + 1} of ${parsed.blocks.length}`;
    const target = targetFile(block, files, label, names);
    if (!target.ok) return target;
    const file = target.file;
    const fileLabel = `${label} (${file.path})`;
    const result = applyBlock(file.doc.lines, block, fileLabel);
    if (!result.ok) return result;
    if (!keepsFixedText(file.original.lines, result.lines)) return outsideBlock(file.original.lines, fileLabel);
    file.doc = { ...file.doc, lines: result.lines };
  }
  let code: string;
  try {
    code = bundleProgram(files.map((file) => ({ path: file.path, text: fromDocument(file.doc) })));
  } catch (error) {
    if (!(error instanceof ProgramBundleError)) throw error;
    return { ok: false, reason: 'bad_diff', message: `${error.message}.` };
  }
  if (code === parent) return { ok: false, reason: 'identical', message: 'The edits leave the program unchanged: change at least one line.' };
  return { ok: true, code, edits: parsed.blocks.length, format: 'search-replace' };
}

type Target<F> = { ok: true; file: F } | Failure;

/** The file a block edits: the one it names, or else the only one its SEARCH text is found in. */
function targetFile<F extends { path: string; doc: LineDocument }>(block: SearchReplaceBlock, files: readonly F[], label: string, names: readonly string[]): Target<F> {
  const list = names.join(', ');
  if (block.path !== undefined) {
    const named = block.path.replace(/^\.\//, '');
    const exact = files.find((file) => file.path === named);
    if (exact) return { ok: true, file: exact };
    // A model may give the path from the repository's root (`examples/x/src/a.py`): one file ending so is meant.
    const bySuffix = files.filter((file) => named.endsWith(`/${file.path}`));
    if (bySuffix.length === 1) return { ok: true, file: bySuffix[0]! };
    return {
      ok: false,
      reason: 'outside_block',
      message: `${label} edits ${block.path}, which is not a file of this program. Only these files may be edited: ${list}. Put one of these paths on the line before the block's fence.`,
    };
  }
  const holding = files.filter((file) => locate(file.doc.lines, block.search).found !== 'none');
  if (holding.length === 1) return { ok: true, file: holding[0]! };
  if (holding.length === 0) {
    return {
      ok: false,
      reason: 'no_match',
      message: `${label} names no file and its SEARCH text is found in none of the program's files (${list}). Put the file's path on the line before the block's fence, and copy SEARCH lines exactly from that file.`,
    };
  }
  return {
    ok: false,
    reason: 'ambiguous',
    message: `${label} names no file and its SEARCH text is found in ${holding.map((file) => file.path).join(' and ')}. Put the path of the file it edits on the line before the block's fence.`,
  };
}

function noEditMessage(names: readonly string[]): string {
  return [
    `No edit was found in the answer. This program has several files (${names.join(', ')}); write each change as a SEARCH/REPLACE block after a line naming its file:`,
    names[0]!,
    '```',
    '<<<<<<< SEARCH',
    '(lines copied exactly from that file, enough to be unique)',
    '=======',
    '(the lines that replace them)',
    '>>>>>>> REPLACE',
    '```',
  ].join('\n');
}
