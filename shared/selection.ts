/**
 * Evolve/Mutate Selection as both sides see it: the example's files as they travel to the
 * daemon (content, never a host path: the daemon may run on another machine), the record of
 * a selection job the daemon keeps, and the way back from an evolved program to the lines of
 * the source file it replaces.
 */
import * as z from 'zod';
import { blocksOfLines } from './evolveBlocks';
import { type LineRegion, toDocument } from './lines';
import { filesByRelativePath, SafeRelativePathSchema } from './relativePath';

/** A LineRegion (shared/lines.ts) as it travels: 0-based lines, `endLine` exclusive. */
export const LineRegionSchema = z.object({ startLine: z.number().int().nonnegative(), endLine: z.number().int().nonnegative() }) satisfies z.ZodType<LineRegion>;

/** What one example may weigh on the wire: its files together, before base64. */
export const MAX_EXAMPLE_BYTES = 8 * 1024 * 1024;
/** How many files one example may send: far more than an example needs, few enough to write at once. */
export const MAX_EXAMPLE_FILES = 2_000;
/** Never sent with an example: Peagen's own state, dependencies, caches. */
export const SKIPPED_EXAMPLE_ENTRIES: ReadonlySet<string> = new Set(['.peagen', 'node_modules', '__pycache__', '.git']);

/** The bytes a base64 text decodes to, without decoding it. */
function base64Bytes(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((text.length * 3) / 4) - padding);
}

/**
 * An example directory's files by relative path, base64: what the daemon writes its copy
 * from. The request's limits (MAX_EXAMPLE_FILES, MAX_EXAMPLE_BYTES) are checked here, at the
 * RPC boundary, before the daemon does any work for it.
 */
export const ExampleFilesSchema = filesByRelativePath(z.string().max(Math.ceil((MAX_EXAMPLE_BYTES * 4) / 3) + 4), MAX_EXAMPLE_FILES)
  .refine((files) => Object.keys(files).length > 0, { message: 'the example has no files' })
  .refine((files) => Object.values(files).reduce((total, text) => total + base64Bytes(text), 0) <= MAX_EXAMPLE_BYTES, {
    message: `the example's files weigh more than ${MAX_EXAMPLE_BYTES / 1024 / 1024} MB together: keep data sets out of the example directory`,
  });
export type ExampleFiles = z.infer<typeof ExampleFilesSchema>;

export const SelectionRecordSchema = z.object({
  version: z.literal(1),
  /** The file the selection is in, as the client names it (the daemon never opens it). */
  sourceFile: z.string(),
  languageId: z.string(),
  /** The lines the user chose. */
  region: LineRegionSchema,
  /** The source lines the evolved block's inner text replaces (the region, or the whole block holding it). */
  replaceRange: LineRegionSchema,
  blockIndex: z.number().int().nonnegative(),
  markersAdded: z.boolean(),
  /** sha256 of the document text the job was made from (base.txt). */
  baseTextHash: z.string(),
  /** The example the job was made from, as the client names it. */
  exampleDir: z.string(),
  /** The program file inside the job, relative to it. */
  program: SafeRelativePathSchema,
  createdAt: z.string(),
});
export type SelectionRecord = z.infer<typeof SelectionRecordSchema>;

/**
 * The new text of the source file's replaced lines, from an evolved program: the inner lines
 * of its `blockIndex`th EVOLVE-BLOCK, markers left out, without a final newline.
 */
export function replacementFromProgram(code: string, blockIndex: number): string {
  const lines = toDocument(code).lines;
  const block = blocksOfLines(lines)[blockIndex];
  if (!block) throw new Error(`the program has no EVOLVE-BLOCK number ${blockIndex + 1} (its markers were changed), so it cannot be mapped back to the selection`);
  return lines.slice(block.startLine, block.endLine - 1).join('\n');
}
