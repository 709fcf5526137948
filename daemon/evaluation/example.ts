import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { EXAMPLE_CONFIG_FILE, type ExampleConfig, ExampleConfigSchema } from '../../shared/evaluation';

export interface Example {
  dir: string;
  config: ExampleConfig;
  /** The example's own program source (the seed candidate). */
  seedProgram(): string;
}

/** Reads and checks `peagen.example.json`; errors name the file and the field at fault. */
export function loadExample(dir: string): Example {
  const absolute = path.resolve(dir);
  const file = path.join(absolute, EXAMPLE_CONFIG_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message} (an example directory needs a ${EXAMPLE_CONFIG_FILE})`);
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
  };
}
