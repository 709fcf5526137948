/**
 * An Evolve Selection job on disk: `.peagen/selections/<name>-<shorthash>/`, a copy of the
 * chosen example whose `program` is the current document text with the selection marked, plus
 * `selection.json` (where the evolved text goes back) and `base.txt` (the text it was made
 * from). The run uses this directory as its example, so its programs map back to the file.
 * vscode-free.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { EXAMPLE_CONFIG_FILE, ExampleConfigSchema } from '../../shared/evaluation';
import type { LineRegion } from './region';
import type { SelectionProgram } from './selectionProgram';

export const SELECTIONS_DIR = path.join('.peagen', 'selections');
export const SELECTION_FILE = 'selection.json';
export const BASE_TEXT_FILE = 'base.txt';
/** Never copied into a job: Peagen's own state, dependencies, caches. */
const SKIPPED = new Set(['.peagen', 'node_modules', '__pycache__', '.git']);

const RegionSchema = z.object({ startLine: z.number().int().nonnegative(), endLine: z.number().int().nonnegative() });

export const SelectionRecordSchema = z.object({
  version: z.literal(1),
  /** Absolute path of the file the selection is in. */
  sourceFile: z.string(),
  languageId: z.string(),
  /** The lines the user chose (0-based, end exclusive). */
  region: RegionSchema,
  /** The source lines the evolved block's inner text replaces (the region, or the whole block holding it). */
  replaceRange: RegionSchema,
  blockIndex: z.number().int().nonnegative(),
  markersAdded: z.boolean(),
  /** sha256 of the document text the job was made from (base.txt). */
  baseTextHash: z.string(),
  /** The example directory that was copied. */
  exampleDir: z.string(),
  /** The program file inside the job, relative to it. */
  program: z.string(),
  createdAt: z.string(),
});
export type SelectionRecord = z.infer<typeof SelectionRecordSchema>;

export interface SelectionJobInput {
  projectDir: string;
  exampleDir: string;
  sourceFile: string;
  languageId: string;
  /** The document's current text. */
  text: string;
  region: LineRegion;
  program: SelectionProgram;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Writes the job (or reuses it: the same file text, region and example give the same
 * directory and content) and returns its directory, the run's example directory.
 */
export function createSelectionJob(input: SelectionJobInput): { dir: string; record: SelectionRecord } {
  const exampleDir = path.resolve(input.exampleDir);
  const sourceFile = path.resolve(input.sourceFile);
  const key = sha256(JSON.stringify([sourceFile, input.region, exampleDir, input.text]));
  const name = path.basename(sourceFile).replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_-]/g, '_') || 'selection';
  const dir = path.join(path.resolve(input.projectDir), SELECTIONS_DIR, `${name}-${key.slice(0, 8)}`);
  const existing = readSelectionJob(dir);
  if (existing) return { dir, record: existing.record };

  const configFile = path.join(exampleDir, EXAMPLE_CONFIG_FILE);
  let config;
  try {
    config = ExampleConfigSchema.parse(JSON.parse(fs.readFileSync(configFile, 'utf8')));
  } catch (error) {
    throw new Error(`${configFile} is not a usable example: ${(error as Error).message}`);
  }
  const inside = path.relative(exampleDir, sourceFile);
  // A file of the example is evolved in its place; for any other file the example's evaluator
  // still expects its own program name.
  const program = !inside.startsWith('..') && !path.isAbsolute(inside) ? inside.split(path.sep).join('/') : config.program;

  const temp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(temp, { recursive: true, force: true });
  fs.cpSync(exampleDir, temp, { recursive: true, filter: (from) => !SKIPPED.has(path.basename(from)) || path.resolve(from) === exampleDir });
  fs.mkdirSync(path.dirname(path.join(temp, program)), { recursive: true });
  fs.writeFileSync(path.join(temp, program), input.program.code);
  fs.writeFileSync(path.join(temp, EXAMPLE_CONFIG_FILE), `${JSON.stringify({ ...config, program }, null, 2)}\n`);
  fs.writeFileSync(path.join(temp, BASE_TEXT_FILE), input.text);
  const record: SelectionRecord = {
    version: 1,
    sourceFile,
    languageId: input.languageId,
    region: input.region,
    replaceRange: input.program.replaceRange,
    blockIndex: input.program.blockIndex,
    markersAdded: input.program.markersAdded,
    baseTextHash: sha256(input.text),
    exampleDir,
    program,
    createdAt: new Date().toISOString(),
  };
  fs.writeFileSync(path.join(temp, SELECTION_FILE), `${JSON.stringify(record, null, 2)}\n`);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  try {
    fs.renameSync(temp, dir);
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    // Another window made the same job at the same moment: theirs is identical.
    if (!readSelectionJob(dir)) throw error;
  }
  return { dir, record };
}

/** The job in `dir`, or undefined when `dir` is not a selection job (e.g. a plain example). */
export function readSelectionJob(dir: string): { record: SelectionRecord; baseText: string } | undefined {
  let raw: string;
  try {
    raw = fs.readFileSync(path.join(dir, SELECTION_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const record = SelectionRecordSchema.parse(JSON.parse(raw));
  return { record, baseText: fs.readFileSync(path.join(dir, BASE_TEXT_FILE), 'utf8') };
}
