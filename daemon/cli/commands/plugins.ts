/**
 * `peagen plugins`: the plugin packages installed where this project would find them, what
 * each declares, whether the allow-list lets it load, and what loading it gave (or why it
 * was skipped). Exit code 1 when an allowed plugin was skipped, so a script can check a setup.
 */
import * as path from 'node:path';
import type { Command } from 'commander';
import { allowListOf, BUILT_IN_NAMES } from '../../plugins/activePlugins';
import { type DiscoveredPackage, discoverPlugins, lookupDirs, peagenRoot } from '../../plugins/discoverPlugins';
import { loadPlugins, type PluginReport, skippedLine } from '../../plugins/loadPlugins';
import type { PlugPoint } from '../../plugins/plugPoints';
import { CliContext, ExitCode } from '../context';

export interface PluginListing {
  projectDir: string;
  allowList: string[];
  /** Where packages were looked for, nearest first. */
  searched: string[];
  plugins: PluginEntry[];
}

export interface PluginEntry {
  name: string;
  version?: string;
  location?: string;
  declares: PlugPoint[];
  allowed: boolean;
  loaded: boolean;
  provided: Partial<Record<PlugPoint, string[]>>;
  error?: string;
}

export function listPlugins(allowList: readonly string[], projectDir: string): PluginListing {
  const ownRoot = peagenRoot();
  const discovered = discoverPlugins(projectDir, ownRoot);
  const set = loadPlugins(allowList, { projectDir, ownRoot, reserved: BUILT_IN_NAMES });
  const entries: PluginEntry[] = set.reports.map((report) => ({ ...report, allowed: true }));
  const covered = new Set(set.reports.map((report: PluginReport) => report.location).filter(Boolean));
  for (const pkg of discovered) {
    if (covered.has(pkg.dir) || allowList.includes(pkg.name)) continue;
    entries.push(notAllowed(pkg));
  }
  return { projectDir, allowList: [...allowList], searched: lookupDirs(projectDir, ownRoot), plugins: entries };
}

function notAllowed(pkg: DiscoveredPackage): PluginEntry {
  return {
    name: pkg.name,
    version: pkg.version,
    location: pkg.dir,
    declares: pkg.declares,
    allowed: false,
    loaded: false,
    provided: {},
    ...(!pkg.manifest.ok && { error: pkg.manifest.error }),
  };
}

function describe(listing: PluginListing): string {
  const lines = [`allow-list (peagen.json "plugins" and worker.plugins, WORKER_PLUGINS): ${listing.allowList.join(', ') || '(empty)'}`];
  if (listing.plugins.length === 0) lines.push(`no plugin packages found (searched ${listing.searched.join(', ') || 'nothing'})`);
  for (const entry of listing.plugins) {
    const what = Object.entries(entry.provided)
      .map(([point, names]) => `${point}: ${names.join(', ')}`)
      .join('; ');
    const state = entry.loaded ? `loaded (${what})` : entry.allowed ? 'SKIPPED' : `not allowed: add "${entry.name}" to "plugins" in peagen.json to load it`;
    lines.push(`${entry.name}${entry.version ? ` ${entry.version}` : ''}  [${entry.declares.join(', ') || '?'}]  ${state}${entry.location ? `  ${path.relative(listing.projectDir, entry.location) || '.'}` : ''}`);
    if (entry.allowed && !entry.loaded) lines.push(`  ${skippedLine(entry)}`);
    else if (entry.error) lines.push(`  (it would not load: ${entry.error})`);
  }
  return lines.join('\n');
}

export function registerPluginsCommand(program: Command): void {
  program
    .command('plugins')
    .description('plugin packages found for this project, what they provide, and whether the allow-list loads them')
    .action((_flags: unknown, command: Command) => {
      const ctx = CliContext.of(command);
      const projectDir = ctx.configFile ? path.dirname(path.resolve(ctx.configFile)) : process.cwd();
      const listing = listPlugins(allowListOf(ctx.config), projectDir);
      ctx.output(listing, () => describe(listing));
      if (listing.plugins.some((entry) => entry.allowed && !entry.loaded)) process.exitCode = ExitCode.Failed;
    });
}
