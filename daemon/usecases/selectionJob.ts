/**
 * An Evolve/Mutate Selection job, kept by the daemon in its home of the workspace
 * (workspaceHome.ts): `.peagen/selections/<name>-<shorthash>/`, the example's files as the
 * client sent them, whose `program` is the document's text with the region marked, plus
 * `selection.json` (where the evolved text goes back in the client's file) and `base.txt`
 * (the text it was made from). A run uses the job as its example, so its programs map back
 * to the client's file. Nothing here opens a path the client named.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { EXAMPLE_CONFIG_FILE, type ExampleConfig, ExampleConfigSchema } from '../../shared/evaluation';
import type { PrepareSelection } from '../../shared/protocol';
import { relativePathProblem } from '../../shared/relativePath';
import { type ExampleFiles, MAX_EXAMPLE_BYTES, MAX_EXAMPLE_FILES, type SelectionRecord, SelectionRecordSchema } from '../../shared/selection';
import { selectionProgram } from './selectionProgram';
import { openEvolveExample } from '../evaluation/openEvolveLayout';
import { OPENEVOLVE_CONFIG_FILE, OPENEVOLVE_EVALUATOR_FILE, OPENEVOLVE_PROGRAM_FILE } from '../../shared/openEvolveConfig';

export const SELECTIONS_DIR = path.join('.peagen', 'selections');
export const SELECTION_FILE = 'selection.json';
export const BASE_TEXT_FILE = 'base.txt';

/** The request cannot make a job; the message says what to fix (the RPC answers InvalidParams). */
export class SelectionJobError extends Error {
  override name = 'SelectionJobError';
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The marked program for the request, and the job when it sends an example. */
export function prepareSelection(params: PrepareSelection.Params, home: string): PrepareSelection.Response {
  const program = selectionProgram(params.text, params.region, params.languageId);
  const marked = { code: program.code, replaceRange: program.replaceRange, blockIndex: program.blockIndex, markersAdded: program.markersAdded };
  if (!params.example) return marked;
  const files = decodeFiles(params.example.files);
  const clientExample = params.example.dir.replace(/[\\/]+$/, '');
  const config = exampleConfigOf(files, clientExample.split(/[\\/]/).pop() ?? '');
  // A file of the example is evolved in its place; for any other file the example's evaluator
  // still expects its own program name.
  const inside = relativeInside(clientExample, params.sourceFile);
  if (typeof config.program !== 'string') {
    throw new SelectionJobError(`the example's program spans several files (${config.program.join(', ')}); Evolve Selection evolves one region of one file: run the example with \`peagen evolve run ${clientExample}\` instead, or pick a single-file example`);
  }
  const programFile = inside ?? config.program;
  const programProblem = relativePathProblem(programFile);
  if (programProblem) throw new SelectionJobError(`the example's program "${config.program}" must be a path inside the example: ${programProblem}`);
  refuseFileAndFolder([...files.keys(), programFile, EXAMPLE_CONFIG_FILE, BASE_TEXT_FILE, SELECTION_FILE]);
  const contentHash = sha256(JSON.stringify([...files.keys()].sort().map((name) => [name, sha256(files.get(name)!)])));
  const key = sha256(JSON.stringify([params.sourceFile, params.region, clientExample, params.text, contentHash]));
  const stem = (params.sourceFile.split(/[\\/]/).pop() ?? '').replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_-]/g, '_') || 'selection';
  const jobId = `${stem.slice(0, 100)}-${key.slice(0, 8)}`;
  const dir = selectionJobDir(home, jobId);
  const existing = readSelectionJob(dir);
  if (existing) return { ...marked, job: jobOf(jobId, existing.record, config) };

  const record: SelectionRecord = {
    version: 1,
    sourceFile: params.sourceFile,
    languageId: params.languageId,
    region: params.region,
    replaceRange: program.replaceRange,
    blockIndex: program.blockIndex,
    markersAdded: program.markersAdded,
    baseTextHash: sha256(params.text),
    exampleDir: clientExample,
    program: programFile,
    createdAt: new Date().toISOString(),
  };
  // Everything was checked above; a write that fails all the same (a full disk) leaves no
  // half-written copy behind.
  const temp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(temp, { recursive: true, force: true });
  try {
    for (const [name, content] of files) writeInside(temp, name, content);
    writeInside(temp, programFile, program.code);
    writeInside(temp, EXAMPLE_CONFIG_FILE, `${JSON.stringify({ ...config, program: programFile }, null, 2)}\n`);
    writeInside(temp, BASE_TEXT_FILE, params.text);
    writeInside(temp, SELECTION_FILE, `${JSON.stringify(record, null, 2)}\n`);
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.renameSync(temp, dir);
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    // Another window made the same job at the same moment: theirs is identical.
    if (!readSelectionJob(dir)) throw error;
  }
  return { ...marked, job: jobOf(jobId, record, config) };
}

export function selectionJobDir(home: string, jobId: string): string {
  return path.join(home, SELECTIONS_DIR, jobId);
}

/** The job in `dir`, or undefined when `dir` is not a selection job (e.g. a plain example). */
export function readSelectionJob(dir: string): { record: SelectionRecord; baseText: string } | undefined {
  let raw: string;
  try {
    raw = fs.readFileSync(path.join(dir, SELECTION_FILE), 'utf8');
  } catch {
    return undefined;
  }
  // Read back from disk: checked like any input, refused with the file and the way out.
  let parsed: ReturnType<typeof SelectionRecordSchema.safeParse> | undefined;
  try {
    parsed = SelectionRecordSchema.safeParse(JSON.parse(raw));
  } catch {
    parsed = undefined;
  }
  const file = path.join(dir, SELECTION_FILE);
  if (!parsed?.success) throw new SelectionJobError(`${file} is damaged (${parsed ? z.prettifyError(parsed.error).replace(/\s+/g, ' ') : 'not JSON'}): remove ${dir} and make the selection job again`);
  let baseText: string;
  try {
    baseText = fs.readFileSync(path.join(dir, BASE_TEXT_FILE), 'utf8');
  } catch {
    throw new SelectionJobError(`${path.join(dir, BASE_TEXT_FILE)} is missing: remove ${dir} and make the selection job again`);
  }
  return { record: parsed.data, baseText };
}

function jobOf(jobId: string, record: SelectionRecord, config: ExampleConfig): NonNullable<PrepareSelection.Response['job']> {
  return { jobId, record, name: config.name, objectiveName: config.objective.name, direction: config.objective.direction };
}

function decodeFiles(encoded: ExampleFiles): Map<string, Buffer> {
  // A Map: a file may be named __proto__.
  const files = new Map<string, Buffer>();
  let total = 0;
  const entries = Object.entries(encoded);
  // The RPC schema checked these already; this use case may be called without it.
  if (entries.length > MAX_EXAMPLE_FILES) throw new SelectionJobError(`the example sends ${entries.length} files, more than ${MAX_EXAMPLE_FILES}: keep data sets and generated files out of the example directory`);
  for (const [name, base64] of entries) {
    const problem = relativePathProblem(name);
    if (problem) throw new SelectionJobError(`the example's file names must be safe relative paths: ${problem}`);
    const content = Buffer.from(base64, 'base64');
    total += content.length;
    if (total > MAX_EXAMPLE_BYTES) throw new SelectionJobError(`the example's files weigh more than ${MAX_EXAMPLE_BYTES / 1024 / 1024} MB: keep data sets out of the example directory`);
    files.set(name, content);
  }
  return files;
}

/** A file and a directory of the same name cannot both be written: refused before anything is. */
function refuseFileAndFolder(names: readonly string[]): void {
  const fileNames = new Set(names);
  for (const name of names) {
    const parts = name.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const parent = parts.slice(0, depth).join('/');
      if (fileNames.has(parent)) throw new SelectionJobError(`the example's files name ${parent} both as a file and as a directory`);
    }
  }
}

/** Writes `name` (a checked relative path) under `root`. */
function writeInside(root: string, name: string, content: string | Buffer): void {
  const target = path.join(root, ...name.split('/'));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content);
}

/** The example's config: its peagen.example.json, or the one synthesised for OpenEvolve's layout. */
function exampleConfigOf(files: Map<string, Buffer>, name: string): ExampleConfig {
  const raw = files.get(EXAMPLE_CONFIG_FILE);
  if (!raw && files.has(OPENEVOLVE_PROGRAM_FILE) && files.has(OPENEVOLVE_EVALUATOR_FILE)) {
    const yaml = files.get(OPENEVOLVE_CONFIG_FILE);
    try {
      return openEvolveExample(name, yaml && { file: `the example's ${OPENEVOLVE_CONFIG_FILE}`, text: yaml.toString('utf8') }).config;
    } catch (error) {
      throw new SelectionJobError((error as Error).message);
    }
  }
  if (!raw) throw new SelectionJobError(`the example has no ${EXAMPLE_CONFIG_FILE} (nor OpenEvolve's ${OPENEVOLVE_PROGRAM_FILE} and ${OPENEVOLVE_EVALUATOR_FILE})`);
  try {
    return ExampleConfigSchema.parse(JSON.parse(raw.toString('utf8')));
  } catch (error) {
    throw new SelectionJobError(`the example's ${EXAMPLE_CONFIG_FILE} is not usable: ${(error as Error).message}`);
  }
}

/** `file` relative to `dir` with `/` separators when it lies inside it (paths as the client wrote them). */
function relativeInside(dir: string, file: string): string | undefined {
  const separator = /\\/.test(dir) && !dir.includes('/') ? '\\' : '/';
  const prefix = `${dir}${separator}`;
  if (!file.startsWith(prefix)) return undefined;
  const inside = file.slice(prefix.length).split(/[\\/]/);
  return inside.every((part) => part !== '' && part !== '.' && part !== '..') ? inside.join('/') : undefined;
}
