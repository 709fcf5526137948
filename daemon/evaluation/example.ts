import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { EXAMPLE_CONFIG_FILE, type ExampleConfig, ExampleConfigSchema, programEntries } from '../../shared/evaluation';
import { bundleProgram, type ProgramFile, programFilesOf } from '../../shared/programFiles';
import { resolveProgramFiles } from './programGlobs';
import { describeOpenEvolve, isOpenEvolveLayout, loadOpenEvolveExample, OPENEVOLVE_CAVEAT, type OpenEvolveSettings, usesOpenEvolveAdapter } from './openEvolveLayout';

export interface Example {
  dir: string;
  config: ExampleConfig;
  /**
   * The program's files, relative to `dir`, in their fixed order: one for a single-file
   * example, whose program code is that file's text; several for a multi-file one, whose code
   * is their bundle (shared/programFiles.ts).
   */
  programFiles: string[];
  /** The example's own program source (the seed candidate). */
  seedProgram(): string;
  /** Set for a directory in OpenEvolve's layout: what its config.yaml asks of a run. */
  openEvolve?: OpenEvolveSettings;
  /** What to tell the user once before it runs (how the directory was read, what was ignored). */
  notes: string[];
  /** Limits of its evaluation the user must know; a run's report repeats them. */
  cautions: string[];
}

/** Whether the example's program spans several files (its code is a bundle). */
export function isMultiFile(example: Pick<Example, 'programFiles'>): boolean {
  return example.programFiles.length > 1;
}

/** A candidate's files: the bundle's files, or the single program file with the code as its text. */
export function candidateFiles(example: Pick<Example, 'programFiles'>, code: string): ProgramFile[] {
  return programFilesOf(code, example.programFiles);
}

/**
 * Reads and checks `peagen.example.json`; errors name the file and the field at fault. A
 * directory in OpenEvolve's layout (initial_program.py + evaluator.py, no peagen.example.json)
 * is an example too, its config synthesised (openEvolveLayout.ts).
 */
export function loadExample(dir: string): Example {
  const absolute = path.resolve(dir);
  if (isOpenEvolveLayout(absolute)) {
    const { config, openEvolve } = loadOpenEvolveExample(absolute);
    const program = typeof config.program === 'string' ? config.program : config.program[0]!;
    return {
      dir: absolute,
      config,
      programFiles: [program],
      seedProgram: () => fs.readFileSync(path.join(absolute, program), 'utf8'),
      openEvolve,
      notes: describeOpenEvolve(dir, openEvolve),
      cautions: [OPENEVOLVE_CAVEAT],
    };
  }
  const file = path.join(absolute, EXAMPLE_CONFIG_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `cannot read ${file}: ${(error as Error).message} (an example directory needs a ${EXAMPLE_CONFIG_FILE}, or OpenEvolve's initial_program.py and evaluator.py)`,
    );
  }
  const parsed = ExampleConfigSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${file} is invalid:\n${z.prettifyError(parsed.error)}`);
  const config = parsed.data;
  let programFiles: string[];
  if (typeof config.program === 'string') {
    if (path.isAbsolute(config.program) || config.program.split(/[\\/]/).includes('..')) {
      throw new Error(`${file}: "program" must be a path inside the example directory`);
    }
    programFiles = [config.program];
  } else {
    programFiles = resolveProgramFiles(absolute, programEntries(config), file);
  }
  const read = (name: string): string => fs.readFileSync(path.join(absolute, name), 'utf8');
  return {
    dir: absolute,
    config,
    programFiles,
    seedProgram: () => (programFiles.length === 1 ? read(programFiles[0]!) : bundleProgram(programFiles.map((name) => ({ path: name, text: read(name) })))),
    notes: [],
    cautions: usesOpenEvolveAdapter(config) ? [OPENEVOLVE_CAVEAT] : [],
  };
}
