/**
 * The plugin set this process loaded last (see activePlugins.ts), for the parts that look a
 * plugin up by name while a run goes on (a selector, a mutator). A module of its own, with no
 * runtime imports, so that those parts can read it without an import cycle.
 */
import type { PluginSet } from './loadPlugins';

let current: PluginSet = { handlers: [], mutators: [], selectors: [], executors: [], llmBackends: [], reports: [] };

export function currentPlugins(): PluginSet {
  return current;
}

export function setCurrentPlugins(set: PluginSet): void {
  current = set;
}
