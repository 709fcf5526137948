/**
 * The render plan: every file a projects payload expands to (each manifest record once per
 * project, package or module of its SCOPE), with its variables, its output path (checked to
 * stay inside the output directory) and what it depends on, in a deterministic topological
 * order. Nothing is rendered here but the file names; a bad input is a RenderInputError that
 * names the file and key.
 */
import * as path from 'node:path';
import { type LoadedProjects, type Module, type Package, type Project } from './projects';
import { type FileRecord, listTemplateSets, loadTemplateSet, type TemplateSet } from './templateSet';
import { renderInline, TemplateError } from './templates';
import { type KeyPath, RenderInputError } from './yamlInput';

/** Names the templates see besides the EXTRAS; an EXTRAS key may not take them. */
export const RESERVED_VARIABLES = ['PROJECT', 'PACKAGE', 'MODULE', 'FILE', 'DEPENDENCIES'] as const;

export interface PlannedFile {
  /** Relative to the output directory, `/` separated. */
  path: string;
  processType: FileRecord['PROCESS_TYPE'];
  template: string;
  templateSet: TemplateSet;
  /** What the template sees (the DEPENDENCIES' text is added when they are rendered). */
  variables: Record<string, unknown>;
  /** Paths of the files rendered before this one, sorted. */
  dependsOn: string[];
  /** GENERATE only. */
  maxTokens?: number;
  /** GENERATE only: the record's OFFLINE_TEMPLATE, rendered as a COPY when no LLM is configured. */
  offlineTemplate?: string;
  /** Where it comes from: `manifest.yaml FILES[2] for module pkg.util of project demo`. */
  origin: string;
}

export interface RenderPlan {
  /** In dependency order (ties broken by path), so the same inputs give the same order. */
  files: PlannedFile[];
  templateSets: TemplateSet[];
}

interface Scope {
  project: Project;
  projectIndex: number;
  pkg?: Package;
  module?: Module;
  label: string;
}

export function planRender(loaded: LoadedProjects): RenderPlan {
  const { input, payload, templateSetsDir } = loaded;
  const sets = new Map<string, TemplateSet>();
  const files = new Map<string, PlannedFile & { recordIndex: number; scope: Scope; dependencyEdges: Map<string, string> }>();

  payload.PROJECTS.forEach((project, projectIndex) => {
    const at = (...keys: (string | number)[]): KeyPath => ['PROJECTS', projectIndex, ...keys];
    let set = sets.get(project.TEMPLATE_SET);
    if (!set) {
      const known = listTemplateSets(templateSetsDir);
      if (!known.includes(project.TEMPLATE_SET)) {
        throw input.error(at('TEMPLATE_SET'), `unknown template set "${project.TEMPLATE_SET}" (${known.length > 0 ? `${templateSetsDir} has: ${known.join(', ')}` : `${templateSetsDir} has no template sets`}; TEMPLATE_SETS names that directory)`);
      }
      set = loadTemplateSet(templateSetsDir, project.TEMPLATE_SET);
      sets.set(project.TEMPLATE_SET, set);
    }
    const root = checkedRelative(project.ROOT ?? project.NAME, () => input.error(at('ROOT'), `"${project.ROOT}" leaves the output directory; ROOT is a relative path inside it`));
    checkExtras(input, at('EXTRAS'), project.EXTRAS);
    project.PACKAGES.forEach((pkg, packageIndex) => {
      checkExtras(input, at('PACKAGES', packageIndex, 'EXTRAS'), pkg.EXTRAS);
      pkg.MODULES.forEach((module, moduleIndex) => {
        checkExtras(input, at('PACKAGES', packageIndex, 'MODULES', moduleIndex, 'EXTRAS'), module.EXTRAS);
        module.DEPENDENCIES.forEach((dependency, dependencyIndex) => {
          const [packageName, moduleName] = dependency.split('.');
          if (!project.PACKAGES.some((p) => p.NAME === packageName && p.MODULES.some((m) => m.NAME === moduleName))) {
            throw input.error(at('PACKAGES', packageIndex, 'MODULES', moduleIndex, 'DEPENDENCIES', dependencyIndex), `no module "${dependency}" in project "${project.NAME}"`);
          }
        });
      });
    });

    const scopes: Record<FileRecord['SCOPE'], Scope[]> = {
      project: [{ project, projectIndex, label: `project ${project.NAME}` }],
      package: project.PACKAGES.map((pkg) => ({ project, projectIndex, pkg, label: `package ${pkg.NAME} of project ${project.NAME}` })),
      module: project.PACKAGES.flatMap((pkg) => pkg.MODULES.map((module) => ({ project, projectIndex, pkg, module, label: `module ${pkg.NAME}.${module.NAME} of project ${project.NAME}` }))),
    };
    const templateSet = set;
    templateSet.manifest.FILES.forEach((record, recordIndex) => {
      for (const scope of scopes[record.SCOPE]) {
        const variables = variablesOf(templateSet, scope, root);
        const where = `${templateSet.manifestFile} FILES[${recordIndex}]`;
        const name = inlineOrThrow(record.RENDERED_FILE_NAME, variables, templateSet, ['FILES', recordIndex, 'RENDERED_FILE_NAME'], scope);
        const filePath = checkedRelative(path.posix.join(root, name), () =>
          templateSet.input.error(['FILES', recordIndex, 'RENDERED_FILE_NAME'], `"${name}" (for ${scope.label}) leaves the output directory; file names are relative paths inside the project ROOT`),
        );
        const origin = `${where} for ${scope.label}`;
        const existing = files.get(filePath);
        if (existing) throw new RenderInputError(`${filePath} would be written twice: by ${existing.origin} and by ${origin}; make RENDERED_FILE_NAME differ (e.g. include {{ MODULE.NAME }})`);
        files.set(filePath, {
          path: filePath,
          processType: record.PROCESS_TYPE,
          template: record.TEMPLATE,
          templateSet,
          variables: { ...variables, FILE: { PATH: filePath, NAME: path.posix.basename(filePath) } },
          dependsOn: [],
          ...(record.PROCESS_TYPE === 'GENERATE' && { maxTokens: record.MAX_TOKENS ?? templateSet.manifest.MAX_TOKENS }),
          ...(record.OFFLINE_TEMPLATE !== undefined && { offlineTemplate: record.OFFLINE_TEMPLATE }),
          origin,
          recordIndex,
          scope,
          dependencyEdges: new Map(),
        });
      }
    });
  });

  // Dependencies name files of the same project, so every path must be known first.
  const byScope = new Map<string, string>();
  for (const file of files.values()) byScope.set(scopeKey(file.scope, file.recordIndex, file.templateSet), file.path);
  for (const file of files.values()) {
    const record = file.templateSet.manifest.FILES[file.recordIndex]!;
    const root = String((file.variables.PROJECT as { ROOT: string }).ROOT);
    record.DEPENDENCIES.forEach((dependency, index) => {
      const keyPath: KeyPath = ['FILES', file.recordIndex, 'DEPENDENCIES', index];
      const name = inlineOrThrow(dependency, file.variables, file.templateSet, keyPath, file.scope);
      const target = path.posix.normalize(path.posix.join(root, name));
      if (!files.has(target)) throw file.templateSet.input.error(keyPath, `"${name}" (for ${file.scope.label}) is no file of the project: ${target} is not rendered`);
      file.dependencyEdges.set(target, `${file.templateSet.manifestFile} FILES[${file.recordIndex}].DEPENDENCIES[${index}]`);
    });
    const { module, pkg, projectIndex } = file.scope;
    if (module && pkg) {
      // A module that depends on another has each of its files rendered after the same record's file of the other.
      module.DEPENDENCIES.forEach((dependency, index) => {
        const [packageName, moduleName] = dependency.split('.') as [string, string];
        const target = byScope.get(`${projectIndex}/${packageName}/${moduleName}/${file.recordIndex}/${file.templateSet.name}`);
        const packageIndex = file.scope.project.PACKAGES.indexOf(pkg);
        const moduleIndex = pkg.MODULES.indexOf(module);
        if (target && target !== file.path) file.dependencyEdges.set(target, `${path.basename(loaded.file)} PROJECTS[${projectIndex}].PACKAGES[${packageIndex}].MODULES[${moduleIndex}].DEPENDENCIES[${index}]`);
      });
    }
    file.dependsOn = [...file.dependencyEdges.keys()].sort();
  }

  const ordered = topologicalOrder([...files.values()], (file) => file.dependsOn, (from, to) => files.get(from)!.dependencyEdges.get(to)!);
  return {
    files: ordered.map(({ path: filePath, processType, template, templateSet, variables, dependsOn, maxTokens, offlineTemplate, origin }) => ({
      path: filePath,
      processType,
      template,
      templateSet,
      variables,
      dependsOn,
      ...(maxTokens !== undefined && { maxTokens }),
      ...(offlineTemplate !== undefined && { offlineTemplate }),
      origin,
    })),
    templateSets: [...sets.values()],
  };
}

/**
 * The plan as rendered with no LLM: every GENERATE file with an OFFLINE_TEMPLATE becomes a
 * COPY of that template. Undefined when some GENERATE file has none (it cannot be rendered).
 */
export function offlinePlan(plan: RenderPlan): RenderPlan | undefined {
  if (plan.files.some((file) => file.processType === 'GENERATE' && file.offlineTemplate === undefined)) return undefined;
  return {
    ...plan,
    files: plan.files.map(({ maxTokens: _maxTokens, offlineTemplate, ...file }) =>
      offlineTemplate === undefined ? file : { ...file, processType: 'COPY', template: offlineTemplate, origin: `${file.origin} (OFFLINE_TEMPLATE: no LLM configured)` },
    ),
  };
}

/**
 * Kahn's algorithm; among the files ready at once the smallest path goes first, so the order
 * depends only on the inputs. A cycle is an error naming every file on it and where each
 * edge was declared.
 */
export function topologicalOrder<T extends { path: string }>(items: T[], dependsOn: (item: T) => string[], declaredAt: (from: string, to: string) => string): T[] {
  const byPath = new Map(items.map((item) => [item.path, item]));
  const waitingOn = new Map(items.map((item) => [item.path, new Set(dependsOn(item))]));
  const dependents = new Map<string, string[]>();
  for (const item of items) for (const dependency of dependsOn(item)) dependents.set(dependency, [...(dependents.get(dependency) ?? []), item.path]);
  const ready = items.filter((item) => waitingOn.get(item.path)!.size === 0).map((item) => item.path);
  const order: T[] = [];
  while (ready.length > 0) {
    ready.sort();
    const next = ready.shift()!;
    order.push(byPath.get(next)!);
    for (const dependent of dependents.get(next) ?? []) {
      const waiting = waitingOn.get(dependent)!;
      waiting.delete(next);
      if (waiting.size === 0) ready.push(dependent);
    }
  }
  if (order.length === items.length) return order;
  // Every file left waits on another file left: walking those edges must come back round.
  const left = [...waitingOn.entries()].filter(([, waiting]) => waiting.size > 0).map(([item]) => item).sort();
  const walk: string[] = [left[0]!];
  for (;;) {
    const next = [...waitingOn.get(walk[walk.length - 1]!)!].sort()[0]!;
    const seen = walk.indexOf(next);
    if (seen >= 0) {
      const cycle = [...walk.slice(seen), next];
      const edges = cycle.slice(0, -1).map((from, index) => `${from} -> ${cycle[index + 1]}: ${declaredAt(from, cycle[index + 1]!)}`);
      throw new RenderInputError(`dependency cycle: ${cycle.join(' -> ')} (declared at ${edges.join('; ')}); remove one of these dependencies`);
    }
    walk.push(next);
  }
}

function scopeKey(scope: Scope, recordIndex: number, set: TemplateSet): string {
  return `${scope.projectIndex}/${scope.pkg?.NAME ?? ''}/${scope.module?.NAME ?? ''}/${recordIndex}/${set.name}`;
}

/** A path inside the output directory, normalised to `a/b/c`; `fail` when it would leave it. */
function checkedRelative(relative: string, fail: () => Error): string {
  const normal = path.posix.normalize(relative.replace(/\\/g, '/'));
  if (path.posix.isAbsolute(normal) || path.win32.isAbsolute(relative) || normal === '..' || normal.startsWith('../') || normal.split('/').includes('..')) throw fail();
  return normal === '.' ? '.' : normal.replace(/\/$/, '');
}

function checkExtras(input: LoadedProjects['input'], keyPath: KeyPath, extras: Record<string, unknown>): void {
  for (const name of Object.keys(extras)) {
    if ((RESERVED_VARIABLES as readonly string[]).includes(name)) throw input.error([...keyPath, name], `"${name}" is reserved (${RESERVED_VARIABLES.join(', ')} are set by peagen); rename the variable`);
  }
}

/** What a template of `scope` sees: the set's VARIABLES, overridden by project, package, then module EXTRAS. */
function variablesOf(set: TemplateSet, scope: Scope, root: string): Record<string, unknown> {
  const { project, pkg, module } = scope;
  const moduleView = (m: Module) => ({ NAME: m.NAME, EXTRAS: m.EXTRAS, DEPENDENCIES: m.DEPENDENCIES });
  const packageView = (p: Package) => ({ NAME: p.NAME, EXTRAS: p.EXTRAS, MODULES: p.MODULES.map(moduleView) });
  return {
    ...set.manifest.VARIABLES,
    ...project.EXTRAS,
    ...pkg?.EXTRAS,
    ...module?.EXTRAS,
    PROJECT: { NAME: project.NAME, ROOT: root, EXTRAS: project.EXTRAS, PACKAGES: project.PACKAGES.map(packageView) },
    ...(pkg && { PACKAGE: packageView(pkg) }),
    ...(module && { MODULE: moduleView(module) }),
  };
}

function inlineOrThrow(source: string, variables: Record<string, unknown>, set: TemplateSet, keyPath: KeyPath, scope: Scope): string {
  try {
    return renderInline(source, variables, `"${source}"`).trim();
  } catch (error) {
    if (error instanceof TemplateError) throw set.input.error(keyPath, `for ${scope.label}: ${error.message}`);
    throw error;
  }
}
