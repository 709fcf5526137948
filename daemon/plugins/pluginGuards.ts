/**
 * Third-party objects at run time: a plugin's mutator that throws or answers nonsense gives a
 * failed proposal (the run goes on and learns from it), and a backend factory that throws is
 * reported and left out, as a skipped plugin is.
 */
import type { LlmBackend } from '../evolution/llm/LlmBackend';
import type { MutationProposal, Mutator } from '../evolution/mutation/Mutator';
import type { LlmBackendPlugin } from './plugPoints';

export function guardedPluginMutator(plugin: Mutator): Mutator {
  const failed = (message: string): MutationProposal => ({ ok: false, mutator: plugin.name, reason: 'plugin_error', message, exchanges: [], repairs: 0 });
  return {
    name: plugin.name,
    usesLlm: plugin.usesLlm,
    async propose(request, context) {
      let proposal: MutationProposal;
      try {
        proposal = await plugin.propose(request, context);
      } catch (error) {
        return failed(`mutator "${plugin.name}" threw: ${(error as Error)?.message ?? String(error)}`);
      }
      const candidate = proposal as Partial<MutationProposal> | null;
      if (!candidate || typeof candidate.ok !== 'boolean') return failed(`mutator "${plugin.name}" answered without a boolean "ok"`);
      if (candidate.ok) {
        const code = (candidate as { code?: unknown }).code;
        if (typeof code !== 'string') return failed(`mutator "${plugin.name}" answered ok without "code"`);
        if (code === request.parent.code) return { ...failed(`mutator "${plugin.name}" returned its parent unchanged`), reason: 'identical' };
      }
      // The lineage records who made the child: the plugin cannot claim to be another mutator.
      const patch = candidate.ok && typeof (candidate as { patch?: unknown }).patch !== 'string' ? { patch: '' } : {};
      const defaults = { exchanges: [], repairs: 0 };
      return { ...defaults, ...proposal, ...patch, mutator: plugin.name };
    },
  };
}

export function pluginBackends(plugins: readonly LlmBackendPlugin[], env: Record<string, string | undefined>, log?: (line: string) => void): LlmBackend[] {
  return plugins.flatMap((plugin) => {
    try {
      return [plugin.create(env)];
    } catch (error) {
      log?.(`LLM backend "${plugin.name}" (plugin): ${(error as Error)?.message ?? String(error)} — skipped`);
      return [];
    }
  });
}
