/**
 * The program an Evolve/Mutate Selection evolves: the document's text with EVOLVE-BLOCK
 * comment lines around the region (the mutators edit only between markers). The way back is
 * shared/selection.ts `replacementFromProgram`.
 */
import { blocksOfLines } from '../../shared/evolveBlocks';
import { fromDocument, leadingWhitespace, toDocument } from '../../shared/lines';
import type { LineRegion } from '../../shared/lines';

/** The region cannot be evolved as asked; the message says what to select or write instead. */
export class RegionError extends Error {
  override name = 'RegionError';
}

export interface SelectionProgram {
  /** The program to evolve. */
  code: string;
  /** The source file's lines that the evolved block's inner text replaces. */
  replaceRange: LineRegion;
  /** Which EVOLVE-BLOCK of `code` (0-based, in order) is evolved. */
  blockIndex: number;
  /** False when the file already had a block holding the region (that block is evolved whole). */
  markersAdded: boolean;
}

export interface CommentSyntax {
  prefix: string;
  suffix: string;
}

const LINE_COMMENTS: Record<string, string> = {
  '#': 'python shellscript ruby perl r yaml toml makefile dockerfile julia elixir coffeescript powershell nim crystal',
  '//': 'javascript typescript javascriptreact typescriptreact c cpp csharp java go rust kotlin swift scala dart php objective-c objective-cpp zig groovy fsharp jsonc solidity',
  '--': 'sql lua haskell elm ada',
  ';': 'clojure lisp scheme',
  '%': 'matlab erlang latex prolog',
};
const BLOCK_COMMENTS: Record<string, CommentSyntax> = {
  html: { prefix: '<!--', suffix: ' -->' },
  xml: { prefix: '<!--', suffix: ' -->' },
  markdown: { prefix: '<!--', suffix: ' -->' },
  css: { prefix: '/*', suffix: ' */' },
  scss: { prefix: '//', suffix: '' },
  less: { prefix: '//', suffix: '' },
};
/** How a comment line is written in the language, or undefined when Peagen does not know it. */
export function commentSyntax(languageId: string): CommentSyntax | undefined {
  if (BLOCK_COMMENTS[languageId]) return BLOCK_COMMENTS[languageId];
  for (const [prefix, languages] of Object.entries(LINE_COMMENTS)) if (languages.split(' ').includes(languageId)) return { prefix, suffix: '' };
  return undefined;
}

const START = 'EVOLVE-BLOCK-START';
const END = 'EVOLVE-BLOCK-END';
const isMarker = (line: string): boolean => line.includes(START) || line.includes(END);
/** Markers outside the selection stop being markers in the copy, so only the selection evolves. */
const disarm = (line: string): string => line.replaceAll(START, 'evolve-block-start (not selected)').replaceAll(END, 'evolve-block-end (not selected)');

/**
 * The program for `region` of `text`. When a block of the file already holds the region, the
 * file is evolved as it is (that whole block); otherwise comment markers are added around the
 * region and any other markers of the copy are disarmed. Throws RegionError when the region
 * holds a marker or the language's comments are unknown.
 */
export function selectionProgram(text: string, region: LineRegion, languageId: string): SelectionProgram {
  const doc = toDocument(text);
  const blocks = blocksOfLines(doc.lines);
  const holding = blocks.findIndex((block) => region.startLine >= block.startLine && region.endLine <= block.endLine - 1);
  if (holding >= 0) {
    const block = blocks[holding]!;
    return { code: text, replaceRange: { startLine: block.startLine, endLine: block.endLine - 1 }, blockIndex: holding, markersAdded: false };
  }
  if (doc.lines.slice(region.startLine, region.endLine).some(isMarker)) {
    throw new RegionError('the selection holds an EVOLVE-BLOCK marker line: select only the lines inside the block (or put the cursor inside it)');
  }
  const comment = commentSyntax(languageId);
  if (!comment) {
    throw new RegionError(`Peagen does not know how comments are written in "${languageId}": add comment lines holding EVOLVE-BLOCK-START and EVOLVE-BLOCK-END around the code yourself and put the cursor between them`);
  }
  const indent = leadingWhitespace(doc.lines.slice(region.startLine, region.endLine).find((line) => line.trim() !== '') ?? '');
  const marker = (word: string): string => `${indent}${comment.prefix} ${word}${comment.suffix}`;
  const lines = [
    ...doc.lines.slice(0, region.startLine).map(disarm),
    marker(START),
    ...doc.lines.slice(region.startLine, region.endLine),
    marker(END),
    ...doc.lines.slice(region.endLine).map(disarm),
  ];
  return { code: fromDocument({ ...doc, lines }), replaceRange: region, blockIndex: 0, markersAdded: true };
}
