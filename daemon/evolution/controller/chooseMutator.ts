/**
 * Which mutator answers a request for `wanted` (`auto`, `llm-patch`, `offline` or an allowed
 * plugin's), decided once for runs, `peagen mutate` and the editor's Mutate Selection: `auto`
 * is llm-patch when an LLM is at hand, else the offline mutator, and the user is told so.
 */
import type { Mutator } from '../mutation/Mutator';
import type { PluginSet } from '../../plugins/loadPlugins';

export const BUILT_IN_MUTATORS: readonly string[] = ['auto', 'llm-patch', 'offline'];
export const PLUGIN_HINT = '; a plugin\'s is usable once allowed in peagen.json "plugins": `peagen plugins` lists them';
export const NEEDS_LLM =
  '--mutator llm-patch needs an LLM: set OPENAI_API_KEY (or OPENAI_BASE_URL for Ollama and other OpenAI-compatible servers) or ANTHROPIC_API_KEY, or add an `llm` section to peagen.json';

/** The request names no mutator that can answer; the message lists the choices or what to set. */
export class MutatorChoiceError extends Error {
  override name = 'MutatorChoiceError';
  /** @param unknownName true when no allowed plugin provides the name (a remote worker still may) */
  constructor(
    message: string,
    readonly unknownName: boolean,
  ) {
    super(message);
  }
}

export interface MutatorChoice {
  /** `llm-patch`, `offline`, or the plugin mutator's name. */
  name: string;
  usesLlm: boolean;
  plugin?: Mutator;
  /** What the user should read about the choice (absent for llm-patch: the caller names its backends). */
  note?: string;
}

/**
 * The plugin mutator `wanted` names, or undefined for a built-in one; throws
 * MutatorChoiceError listing the choices when nothing allowed provides it.
 */
export function pluginMutatorNamed(wanted: string, plugins: Pick<PluginSet, 'mutators'>): Mutator | undefined {
  if (BUILT_IN_MUTATORS.includes(wanted)) return undefined;
  const found = plugins.mutators.find((mutator) => mutator.name === wanted);
  if (found) return found;
  const fromPlugins = plugins.mutators.map((mutator) => mutator.name);
  throw new MutatorChoiceError(`unknown mutator "${wanted}" (one of ${[...BUILT_IN_MUTATORS, ...fromPlugins].join(', ')}${PLUGIN_HINT})`, true);
}

/** @param llmReady whether an LLM backend is configured (or offered by a worker) */
export function chooseMutator(wanted: string, plugins: Pick<PluginSet, 'mutators'>, llmReady: boolean): MutatorChoice {
  const plugin = pluginMutatorNamed(wanted, plugins);
  // A plugin's mutator brings its own means; Peagen's LLM budget and repairs are llm-patch's.
  if (plugin) return { name: plugin.name, usesLlm: false, plugin, note: `mutator: ${plugin.name} (from a plugin)` };
  if (wanted === 'llm-patch' && !llmReady) throw new MutatorChoiceError(NEEDS_LLM, false);
  if (wanted === 'llm-patch' || (wanted === 'auto' && llmReady)) return { name: 'llm-patch', usesLlm: true };
  return {
    name: 'offline',
    usesLlm: false,
    note:
      wanted === 'offline'
        ? 'mutator: offline (genetic improvement of the EVOLVE-BLOCK statements), as asked'
        : 'mutator: offline — no LLM is configured, so genetic improvement of the EVOLVE-BLOCK statements does the work (set OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY to evolve with an LLM)',
  };
}
