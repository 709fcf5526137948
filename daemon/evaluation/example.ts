import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { EXAMPLE_CONFIG_FILE, type ExampleConfig, ExampleConfigSchema } from '../../shared/evaluation';
import { describeOpenEvolve, isOpenEvolveLayout, loadOpenEvolveExample, OPENEVOLVE_CAVEAT, type OpenEvolveSettings, usesOpenEvolveAdapter } from './openEvolveLayout';

export interface Example {
  dir: string;
  config: ExampleConfig;
  /** The example's own program source (the seed candidate). */
  seedProgram(): string;
  /** Set for a directory in OpenEvolve's layout: what its config.yaml asks of a run. */
  openEvolve?: OpenEvolveSettings;
  /** What to tell the user once before it runs (how the directory was read, what was ignored). */
  notes: string[];
  /** Limits of its evaluation the user must know; a run's report repeats them. */
  cautions: string[];
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
    return {
      dir: absolute,
      config,
      seedProgram: () => fs.readFileSync(path.join(absolute, config.program), 'utf8'),
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
  if (path.isAbsolute(config.program) || config.program.split(/[\\/]/).includes('..')) {
    throw new Error(`${file}: "program" must be a path inside the example directory`);
  }
  return {
    dir: absolute,
    config,
    seedProgram: () => fs.readFileSync(path.join(absolute, config.program), 'utf8'),
    notes: [],
    cautions: usesOpenEvolveAdapter(config) ? [OPENEVOLVE_CAVEAT] : [],
  };
}
