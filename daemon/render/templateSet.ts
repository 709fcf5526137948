/**
 * A template set: a directory of Nunjucks templates plus `manifest.yaml`, a list of file
 * records (the earlier Peagen's ptree.yaml). Each record is rendered once per project,
 * package or module (its SCOPE); COPY records render straight to the file, GENERATE records
 * render a prompt that an LLM answers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { ExtrasSchema } from './projects';
import { RenderInputError, YamlInput } from './yamlInput';

export const MANIFEST_FILE = 'manifest.yaml';
export const DEFAULT_MAX_TOKENS = 1024;

const FileRecordSchema = z
  .object({
    /** The output path relative to the project ROOT; itself a template (`src/{{ MODULE.NAME }}.py`). */
    RENDERED_FILE_NAME: z.string().min(1),
    /** A template file of the set. */
    TEMPLATE: z.string().min(1),
    PROCESS_TYPE: z.enum(['COPY', 'GENERATE']),
    SCOPE: z.enum(['project', 'package', 'module']).default('project'),
    /** Files of the same project (rendered names, templates too) rendered before this one. */
    DEPENDENCIES: z.array(z.string().min(1)).default([]),
    /** GENERATE only: the answer's token limit (default: the manifest's MAX_TOKENS). */
    MAX_TOKENS: z.number().int().positive().optional(),
    /**
     * GENERATE only: a template of the set rendered as a COPY in the model's place when no LLM
     * is configured, so that a template set can be tried with no key (the render says so).
     */
    OFFLINE_TEMPLATE: z.string().min(1).optional(),
  })
  .strict();
export type FileRecord = z.infer<typeof FileRecordSchema>;

const ManifestSchema = z
  .object({
    NAME: z.string().optional(),
    DESCRIPTION: z.string().optional(),
    /** Defaults of the template variables; the payload's EXTRAS override them. */
    VARIABLES: ExtrasSchema.default({}),
    MAX_TOKENS: z.number().int().positive().default(DEFAULT_MAX_TOKENS),
    /** GENERATE only: the system message sent with every prompt. */
    SYSTEM_PROMPT: z.string().optional(),
    FILES: z.array(FileRecordSchema).min(1, 'list at least one file record'),
  })
  .strict();
export type Manifest = z.infer<typeof ManifestSchema>;

export interface TemplateSet {
  name: string;
  dir: string;
  manifestFile: string;
  input: YamlInput;
  manifest: Manifest;
  /** Every template file of the set by its path relative to the set (`/` separated). */
  templates: Record<string, string>;
}

/** The names of the template sets in `dir` (directories holding a manifest), sorted. */
export function listTemplateSets(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, MANIFEST_FILE)))
    .map((entry) => entry.name)
    .sort();
}

export function loadTemplateSet(dir: string, name: string): TemplateSet {
  const setDir = path.join(dir, name);
  const manifestFile = path.join(setDir, MANIFEST_FILE);
  const input = YamlInput.read(manifestFile, 'template-set manifest');
  const manifest = input.validate(ManifestSchema);
  const templates = readTemplates(setDir);
  manifest.FILES.forEach((record, index) => {
    if (!(record.TEMPLATE in templates)) {
      throw input.error(['FILES', index, 'TEMPLATE'], `no template "${record.TEMPLATE}" in ${setDir}`);
    }
    if (record.PROCESS_TYPE === 'COPY' && record.MAX_TOKENS !== undefined) {
      throw input.error(['FILES', index, 'MAX_TOKENS'], 'MAX_TOKENS applies to GENERATE records only');
    }
    if (record.OFFLINE_TEMPLATE !== undefined) {
      if (record.PROCESS_TYPE === 'COPY') throw input.error(['FILES', index, 'OFFLINE_TEMPLATE'], 'OFFLINE_TEMPLATE applies to GENERATE records only');
      if (!(record.OFFLINE_TEMPLATE in templates)) throw input.error(['FILES', index, 'OFFLINE_TEMPLATE'], `no template "${record.OFFLINE_TEMPLATE}" in ${setDir}`);
    }
  });
  return { name, dir: setDir, manifestFile, input, manifest, templates };
}

/** Every file of the set but the manifest, read as text (templates may include each other). */
function readTemplates(setDir: string): Record<string, string> {
  const templates: Record<string, string> = {};
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(setDir, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && child !== MANIFEST_FILE) templates[child] = fs.readFileSync(path.join(setDir, child), 'utf8');
      else if (!entry.isFile()) throw new RenderInputError(`${path.join(setDir, child)}: template sets hold plain files and directories only`);
    }
  };
  walk('');
  return templates;
}
