/**
 * The projects payload of `peagen render` (the shape earlier Peagen users have):
 * PROJECTS → PACKAGES → MODULES, each with EXTRAS (template variables); each project names
 * the template set that expands it. Documented in docs/render.md.
 */
import * as path from 'node:path';
import * as z from 'zod';
import { YamlInput } from './yamlInput';

const Name = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'a name is letters, digits, "_", "." or "-", starting with a letter or "_"');
/** Template variables: names usable in templates as `{{ NAME }}`. */
export const ExtrasSchema = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name is letters, digits and "_"'), z.unknown());
export type Extras = z.infer<typeof ExtrasSchema>;

const ModuleSchema = z
  .object({
    NAME: Name,
    EXTRAS: ExtrasSchema.default({}),
    /** Other modules of the project, as `PACKAGE.MODULE`: this module's files are rendered after theirs. */
    DEPENDENCIES: z.array(z.string().regex(/^[^.]+\.[^.]+$/, 'a module dependency is written PACKAGE.MODULE')).default([]),
  })
  .strict();

const PackageSchema = z
  .object({
    NAME: Name,
    EXTRAS: ExtrasSchema.default({}),
    MODULES: z.array(ModuleSchema).default([]),
  })
  .strict();

const ProjectSchema = z
  .object({
    NAME: Name,
    /** The project's subdirectory of the output directory (default: NAME; "." for the output directory itself). */
    ROOT: z.string().min(1).optional(),
    TEMPLATE_SET: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'a template set is named by its directory name'),
    EXTRAS: ExtrasSchema.default({}),
    PACKAGES: z.array(PackageSchema).default([]),
  })
  .strict();

export const ProjectsPayloadSchema = z
  .object({
    /** Where the template sets are, relative to this file (default: `template_sets`). */
    TEMPLATE_SETS: z.string().min(1).default('template_sets'),
    PROJECTS: z.array(ProjectSchema).min(1, 'list at least one project'),
  })
  .strict();

export type ProjectsPayload = z.infer<typeof ProjectsPayloadSchema>;
export type Project = ProjectsPayload['PROJECTS'][number];
export type Package = Project['PACKAGES'][number];
export type Module = Package['MODULES'][number];

export interface LoadedProjects {
  file: string;
  input: YamlInput;
  payload: ProjectsPayload;
  /** Absolute directory of the template sets. */
  templateSetsDir: string;
}

export function loadProjects(file: string): LoadedProjects {
  const input = YamlInput.read(file, 'projects payload');
  const payload = input.validate(ProjectsPayloadSchema);
  const names = new Map<string, number>();
  payload.PROJECTS.forEach((project, index) => {
    const first = names.get(project.NAME);
    if (first !== undefined) throw input.error(['PROJECTS', index, 'NAME'], `project "${project.NAME}" is also PROJECTS[${first}]; names must be unique`);
    names.set(project.NAME, index);
  });
  return { file, input, payload, templateSetsDir: path.resolve(path.dirname(file), payload.TEMPLATE_SETS) };
}
