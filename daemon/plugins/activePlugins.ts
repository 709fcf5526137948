/**
 * The plugins of this process: loaded once per allow-list and project (Node caches modules
 * anyway) by whichever part needs them first (a worker's handlers, a run's setup), and
 * reported once. The selectors, mutators and backends a run may name are looked up here and
 * handed to the run.
 */
import { SELECTOR_NAMES } from '../evolution/selection/createSelector';
import { projectDirOf, peagenRoot } from './discoverPlugins';
import { emptyPluginSet, loadPlugins, type PluginSet, skippedLine } from './loadPlugins';
import type { PlugPoint } from './plugPoints';

/** Names Peagen's own parts use; a plugin that takes one is skipped. */
export const BUILT_IN_NAMES: Record<PlugPoint, readonly string[]> = {
  handlers: ['echo', 'sleep', 'mutate', 'render', 'execute', 'evaluate'],
  mutators: ['auto', 'llm-patch', 'offline', 'seed'],
  selectors: SELECTOR_NAMES,
  executors: ['auto', 'docker', 'bwrap', 'process'],
  llmBackends: [],
};

/** The allow-list: the top-level `plugins` and `worker.plugins` (WORKER_PLUGINS), in that order. */
export function allowListOf(config: { worker: { plugins: readonly string[] }; plugins?: readonly string[] | undefined }): string[] {
  return [...new Set([...(config.plugins ?? []), ...config.worker.plugins])];
}

const loaded = new Map<string, PluginSet>();

/**
 * The allowed plugins, loaded on first use; every skipped one is logged once (a line per
 * plugin: `plugin "x": <what is wrong> — skipped`). Never throws for a plugin's fault.
 */
export function activePlugins(config: Parameters<typeof allowListOf>[0], log: (line: string) => void = (line) => process.stderr.write(`${line}\n`), projectDir = projectDirOf()): PluginSet {
  const allowList = allowListOf(config);
  if (allowList.length === 0) return emptyPluginSet();
  const key = JSON.stringify([projectDir, allowList]);
  let set = loaded.get(key);
  if (!set) {
    set = loadPlugins(allowList, { projectDir, ownRoot: peagenRoot(), reserved: BUILT_IN_NAMES });
    loaded.set(key, set);
    for (const report of set.reports) if (!report.loaded) log(skippedLine(report));
  }
  return set;
}
