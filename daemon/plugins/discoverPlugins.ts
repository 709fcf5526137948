/**
 * Finds installed plugin packages: every package in a node_modules directory Node would look
 * in from the project (where peagen.json is, else the current directory) or from Peagen's own
 * installation (a global install sees globally installed plugins), whose package.json has a
 * `peagen` field. Discovery only lists; nothing is loaded unless the allow-list names it.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { findConfigFile } from '../config';
import { type PlugPoint, PLUG_POINTS, PluginManifestSchema, type PluginManifest } from './plugPoints';

export interface DiscoveredPackage {
  /** The package name, as the allow-list names it. */
  name: string;
  version: string;
  dir: string;
  /** The parsed `peagen` field, or why it is unusable. */
  manifest: { ok: true; value: PluginManifest } | { ok: false; error: string };
  /** The plug points it declares (also when its manifest has other problems). */
  declares: PlugPoint[];
}

/** The project a process works for: the directory of the peagen.json found from `cwd`, else `cwd`. */
export function projectDirOf(cwd = process.cwd()): string {
  const file = findConfigFile(cwd);
  return file ? path.dirname(file) : path.resolve(cwd);
}

/** Peagen's own package directory (the one whose package.json is named "peagen"), if found. */
export function peagenRoot(from = __dirname): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = readJson(path.join(dir, 'package.json')) as { name?: unknown } | undefined;
    if (manifest?.name === 'peagen') return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The node_modules directories searched, nearest first: the project's chain, then Peagen's. */
export function lookupDirs(projectDir: string, ownRoot = peagenRoot()): string[] {
  const chain = (dir: string): string[] => createRequire(path.join(dir, 'noop.js')).resolve.paths('x') ?? [];
  // Node's own lookup chain: for a global install it includes the global node_modules itself.
  const dirs = [...chain(projectDir), ...(ownRoot ? chain(ownRoot) : [])];
  return [...new Set(dirs)].filter((dir) => isDirectory(dir));
}

/** The installed package of this name in the first lookup directory that has it. */
export function findPackage(name: string, dirs: readonly string[]): DiscoveredPackage | { name: string; dir: string; plain: true } | undefined {
  for (const dir of dirs) {
    const packageDir = path.join(dir, ...name.split('/'));
    const described = describePackage(packageDir);
    if (described) return described;
    if (fs.existsSync(path.join(packageDir, 'package.json'))) return { name, dir: packageDir, plain: true };
  }
  return undefined;
}

/** Every plugin package in the lookup directories; a name found twice counts where found first. */
export function discoverPlugins(projectDir: string, ownRoot = peagenRoot()): DiscoveredPackage[] {
  const found = new Map<string, DiscoveredPackage>();
  for (const dir of lookupDirs(projectDir, ownRoot)) {
    for (const packageDir of packageDirs(dir)) {
      const described = describePackage(packageDir);
      if (described && !found.has(described.name)) found.set(described.name, described);
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** A package directory's plugin description; undefined when it has no `peagen` field. */
export function describePackage(dir: string): DiscoveredPackage | undefined {
  const json = readJson(path.join(dir, 'package.json')) as { name?: unknown; version?: unknown; peagen?: unknown } | undefined;
  if (!json || json.peagen === undefined) return undefined;
  const parsed = PluginManifestSchema.safeParse(json.peagen);
  const raw = typeof json.peagen === 'object' && json.peagen !== null ? (json.peagen as Record<string, unknown>) : {};
  return {
    name: typeof json.name === 'string' ? json.name : path.basename(dir),
    version: typeof json.version === 'string' ? json.version : '?',
    dir,
    manifest: parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, error: `its package.json "peagen" field ${parsed.error.issues.map((issue) => `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`).join('; ')}` },
    declares: PLUG_POINTS.filter((point) => raw[point] !== undefined),
  };
}

function packageDirs(nodeModules: string): string[] {
  const dirs: string[] = [];
  for (const entry of safeReaddir(nodeModules)) {
    if (entry.startsWith('.')) continue;
    const full = path.join(nodeModules, entry);
    if (entry.startsWith('@')) dirs.push(...safeReaddir(full).map((scoped) => path.join(full, scoped)));
    else dirs.push(full);
  }
  return dirs;
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}
