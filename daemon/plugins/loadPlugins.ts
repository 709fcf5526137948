/**
 * Loads the plugins the allow-list names (`plugins` and `worker.plugins` in peagen.json,
 * WORKER_PLUGINS). An entry is a package name (an installed package whose package.json has a
 * `peagen` field, see plugPoints.ts) or a path to such a package directory or to a module.
 * A module named directly (or a package without the field) is loaded as it is and may export
 * any plug point's array (`exports.handlers = [...]`): the original handler-plugin form.
 *
 * A plugin is all or nothing: one that cannot be found, throws while loading, exports the
 * wrong shape or reuses a name another plugin or Peagen itself has is reported and skipped,
 * and the others load. Nothing here throws for a plugin's fault: a third party's mistake must
 * never stop the daemon.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { type DiscoveredPackage, describePackage, findPackage, lookupDirs } from './discoverPlugins';
import { nameOf, type PlugPoint, type PlugPointObjects, PLUG_POINTS, providedObjects } from './plugPoints';

export interface PluginReport {
  /** As the allow-list names it. */
  name: string;
  /** The package directory or module file it was loaded from, when found. */
  location?: string;
  version?: string;
  /** Plug points its package.json declares (for a module: those it exports). */
  declares: PlugPoint[];
  loaded: boolean;
  /** The names it provides, by plug point (task kinds for handlers). */
  provided: Partial<Record<PlugPoint, string[]>>;
  /** Why it was skipped. */
  error?: string;
}

export type PluginSet = { [P in PlugPoint]: PlugPointObjects[P][] } & {
  /** One per allow-list entry, in its order. */
  reports: PluginReport[];
};

export interface LoadPluginsOptions {
  /** Where relative paths and package names are resolved from (the project). */
  projectDir: string;
  /** Peagen's own installation directory, searched after the project's node_modules. */
  ownRoot?: string | undefined;
  /** Names Peagen itself uses, by plug point: a plugin may not take them. */
  reserved?: Partial<Record<PlugPoint, readonly string[]>>;
}

export function emptyPluginSet(): PluginSet {
  return { handlers: [], mutators: [], selectors: [], executors: [], llmBackends: [], reports: [] };
}

/** The line a skipped plugin is reported with. */
export function skippedLine(report: PluginReport): string {
  return `plugin "${report.name}": ${report.error ?? 'not loaded'} — skipped`;
}

export function loadPlugins(allowList: readonly string[], options: LoadPluginsOptions): PluginSet {
  const set = emptyPluginSet();
  const owners = new Map<string, string>();
  for (const [point, names] of Object.entries(options.reserved ?? {})) for (const reserved of names) owners.set(`${point}:${reserved}`, 'Peagen (built in)');
  const dirs = lookupDirs(options.projectDir, options.ownRoot);
  // One plugin may be named twice: a path in peagen.json (made absolute) and in WORKER_PLUGINS (relative).
  const byLocation = new Map<string, string>();
  for (const entry of allowList) {
    const key = isPathEntry(entry) ? path.resolve(options.projectDir, entry) : entry;
    if (!byLocation.has(key)) byLocation.set(key, entry);
  }
  for (const entry of byLocation.values()) {
    const report: PluginReport = { name: entry, declares: [], loaded: false, provided: {} };
    set.reports.push(report);
    try {
      const provided = loadOne(entry, options.projectDir, dirs, report);
      const claimed: string[] = [];
      for (const point of PLUG_POINTS) {
        for (const object of provided[point] ?? []) {
          const key = `${point}:${nameOf(point, object)}`;
          const owner = owners.get(key) ?? (claimed.includes(key) ? `plugin "${entry}" itself` : undefined);
          if (owner) throw new Error(`${singular(point)} "${nameOf(point, object)}" is already provided by ${owner}`);
          claimed.push(key);
        }
      }
      for (const point of PLUG_POINTS) {
        const objects = provided[point] ?? [];
        if (objects.length === 0) continue;
        (set[point] as unknown[]).push(...objects);
        report.provided[point] = objects.map((object) => nameOf(point, object));
      }
      for (const key of claimed) owners.set(key, `plugin "${entry}"`);
      report.loaded = true;
    } catch (error) {
      report.error = firstLine((error as Error)?.message ?? String(error));
    }
  }
  return set;
}

type Provided = { [P in PlugPoint]?: PlugPointObjects[P][] };

/** A path (relative to the project, or absolute) rather than a package name. */
function isPathEntry(entry: string): boolean {
  return entry.startsWith('.') || path.isAbsolute(entry);
}

function loadOne(entry: string, projectDir: string, dirs: readonly string[], report: PluginReport): Provided {
  const isPath = isPathEntry(entry);
  let pkg: DiscoveredPackage | undefined;
  let moduleFile: string | undefined;
  if (isPath) {
    const target = path.resolve(projectDir, entry);
    if (!fs.existsSync(target)) throw new Error(`${target} does not exist`);
    pkg = fs.statSync(target).isDirectory() ? describePackage(target) : undefined;
    moduleFile = target;
  } else {
    const found = findPackage(entry, dirs);
    if (!found) throw new Error(`is not installed (looked in ${dirs.slice(0, 3).join(', ')}${dirs.length > 3 ? ', ...' : ''}): run \`npm install ${entry}\` in ${projectDir}`);
    if ('plain' in found) moduleFile = found.dir;
    else pkg = found;
  }
  if (pkg) return loadPackage(pkg, report);
  report.location = moduleFile!;
  const exported = requireFile(moduleFile!);
  const present = PLUG_POINTS.filter((point) => hasExport(exported, point));
  report.declares = present;
  if (present.length === 0) {
    throw new Error(`exports none of ${PLUG_POINTS.join(', ')} (a plugin package declares what it provides in the "peagen" field of its package.json)`);
  }
  return Object.fromEntries(present.map((point) => [point, providedObjects(point, exported)]));
}

function loadPackage(pkg: DiscoveredPackage, report: PluginReport): Provided {
  report.location = pkg.dir;
  report.version = pkg.version;
  report.declares = pkg.declares;
  if (!pkg.manifest.ok) throw new Error(pkg.manifest.error);
  const manifest = pkg.manifest.value;
  const provided: Provided = {};
  for (const point of PLUG_POINTS) {
    const file = manifest[point];
    if (file === undefined) continue;
    const exported = requireFile(path.resolve(pkg.dir, file), file);
    (provided as Record<PlugPoint, unknown[]>)[point] = providedObjects(point, exported);
  }
  return provided;
}

function requireFile(file: string, shown = file): unknown {
  try {
    return createRequire(path.join(path.dirname(file), 'noop.js'))(file);
  } catch (error) {
    throw new Error(`loading ${shown} threw: ${firstLine((error as Error)?.message ?? String(error))}`);
  }
}

function hasExport(exported: unknown, point: PlugPoint): boolean {
  const object = exported as Record<string, unknown> | null | undefined;
  return object?.[point] !== undefined || (object?.default as Record<string, unknown> | undefined)?.[point] !== undefined;
}

function singular(point: PlugPoint): string {
  return { handlers: 'task kind', mutators: 'mutator', selectors: 'selector', executors: 'executor', llmBackends: 'LLM backend' }[point];
}

/** Node's "Cannot find module" carries a require stack; the first line says it all. */
function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
