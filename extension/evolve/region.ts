/**
 * Which lines of a file Evolve/Mutate Selection works on: the selection widened to whole
 * lines, else the EVOLVE-BLOCK around the cursor. vscode-free (unit tested).
 */
import { blocksOfLines } from '../../shared/evolveBlocks';
import { type LineRegion, toDocument } from '../../shared/lines';

/** Lines of a file: 0-based, `endLine` exclusive (the shape ProposalInput.region has). */
export type { LineRegion };

export interface Position {
  line: number;
  character: number;
}

export class RegionError extends Error {
  override name = 'RegionError';
}

/** The file's lines (shared/lines.ts: a final line break ends the last line, it adds none), numbered as the editor numbers them. */
export function splitLines(text: string): string[] {
  return toDocument(text).lines;
}

/**
 * The region to evolve. A non-empty selection wins, widened to whole lines (a selection ending
 * at column 0 of a line does not take that line); an empty one picks the EVOLVE-BLOCK holding
 * the cursor (the lines between its markers). Throws RegionError saying what to select.
 */
export function resolveRegion(text: string, selection: { start: Position; end: Position }): LineRegion {
  const lines = splitLines(text);
  const { start, end } = selection;
  const empty = start.line === end.line && start.character === end.character;
  if (!empty) {
    const endLine = end.character === 0 && end.line > start.line ? end.line : end.line + 1;
    const region = { startLine: start.line, endLine: Math.min(endLine, lines.length) };
    if (region.startLine >= region.endLine || lines.slice(region.startLine, region.endLine).every((line) => line.trim() === '')) {
      throw new RegionError('the selection holds only blank lines: select the code to evolve (e.g. a function body)');
    }
    return region;
  }
  const block = blocksOfLines(lines).find((candidate) => start.line >= candidate.startLine - 1 && start.line <= candidate.endLine - 1);
  if (!block) {
    throw new RegionError('nothing to evolve: select the lines to evolve (e.g. a function), or put the cursor inside an EVOLVE-BLOCK-START / EVOLVE-BLOCK-END region');
  }
  // blocksOfLines numbers the marker lines from 1: the inner lines are, 0-based, [startLine, endLine - 1).
  const region = { startLine: block.startLine, endLine: block.endLine - 1 };
  if (region.startLine >= region.endLine) throw new RegionError('the EVOLVE-BLOCK around the cursor is empty: put code between its markers, or select the lines to evolve');
  return region;
}
