/**
 * EVOLVE-BLOCK regions: the lines between a line containing `EVOLVE-BLOCK-START` and the next
 * line containing `EVOLVE-BLOCK-END`, in any comment syntax. When a program has regions, only
 * their inner lines may change; everything else, the marker lines included, is fixed.
 */
import { toDocument } from './lines';

/** 1-based line numbers of a region's START and END marker lines; editable lines lie strictly between. */
export interface EvolveBlock {
  startLine: number;
  endLine: number;
}

const START = 'EVOLVE-BLOCK-START';
const END = 'EVOLVE-BLOCK-END';

export function evolveBlocks(code: string): EvolveBlock[] {
  return blocksOfLines(toDocument(code).lines);
}

/** Regions of an already split program; unpaired markers delimit nothing. */
export function blocksOfLines(lines: readonly string[]): EvolveBlock[] {
  const blocks: EvolveBlock[] = [];
  let open: number | null = null;
  lines.forEach((line, index) => {
    const isStart = line.includes(START);
    const isEnd = line.includes(END);
    if (isStart && isEnd) return;
    // A second START before an END restarts the region: the innermost pair wins.
    if (isStart) open = index + 1;
    else if (isEnd && open !== null) {
      blocks.push({ startLine: open, endLine: index + 1 });
      open = null;
    }
  });
  return blocks;
}

/** The fixed parts of a program (everything outside the regions, markers included), in order. */
export function fixedSegments(lines: readonly string[], blocks: readonly EvolveBlock[]): string[][] {
  const segments: string[][] = [];
  let from = 0;
  for (const block of blocks) {
    segments.push(lines.slice(from, block.startLine));
    from = block.endLine - 1;
  }
  segments.push(lines.slice(from));
  return segments;
}

/**
 * Whether `child` keeps every line outside the parent's regions (and the markers) unchanged.
 * A program without regions is editable everywhere.
 */
export function keepsFixedText(parentLines: readonly string[], childLines: readonly string[]): boolean {
  const parentBlocks = blocksOfLines(parentLines);
  if (parentBlocks.length === 0) return true;
  const childBlocks = blocksOfLines(childLines);
  if (childBlocks.length !== parentBlocks.length) return false;
  const a = fixedSegments(parentLines, parentBlocks);
  const b = fixedSegments(childLines, childBlocks);
  return a.every((segment, i) => {
    const other = b[i]!;
    return segment.length === other.length && segment.every((line, j) => line === other[j]);
  });
}

/** Human-readable list of the editable line ranges, for messages to the model. */
export function describeBlocks(blocks: readonly EvolveBlock[]): string {
  return blocks.map((b) => `${b.startLine + 1}-${b.endLine - 1}`).join(', ');
}
