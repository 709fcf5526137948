/**
 * What a run on the offline mutator that found nothing tells its user: what that mutator can
 * and cannot do (mutation/OfflineMutator.ts), and how to point Peagen at a model, hosted or
 * local. The CLI's end-of-run summary and report.md print the same words.
 *
 * The settings named here are the real ones (evolution/llm/createBackends.ts, llmConfig.ts):
 * keep them in step.
 */
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL } from '../llm/createBackends';

/** What the offline mutator does, in one paragraph. */
export const OFFLINE_MUTATOR_LIMITS =
  'The offline mutator (used when no model is configured) only rearranges whole statements inside the EVOLVE-BLOCK regions: ' +
  'it deletes one, copies one to another place, swaps two neighbours, or takes a statement or a whole top-level definition ' +
  "from another program of the run. It writes no new code, so it can drop wasted work but cannot change an algorithm " +
  '(an O(n²) loop stays O(n²)). A model can.';

/** How to add a model: one line per way, each with its exact settings. */
export const MODEL_SETUP_LINES: readonly string[] = [
  `OpenAI: set OPENAI_API_KEY (the model: OPENAI_MODEL, default ${DEFAULT_OPENAI_MODEL})`,
  `Anthropic: set ANTHROPIC_API_KEY (the model: ANTHROPIC_MODEL, default ${DEFAULT_ANTHROPIC_MODEL})`,
  'an OpenAI-compatible server, local or not (Ollama, vLLM, LM Studio): set OPENAI_BASE_URL and OPENAI_MODEL, e.g. ' +
    'OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen2.5-coder for Ollama, OPENAI_BASE_URL=http://127.0.0.1:8000/v1 for vLLM ' +
    '(a server on this machine or a private network needs no key; another takes OPENAI_API_KEY)',
  'or in peagen.json: {"llm": {"backends": [{"name": "local", "provider": "openai", "model": "qwen2.5-coder", "baseUrl": "http://127.0.0.1:11434/v1"}]}} ' +
    '(provider "openai" or "anthropic"; "apiKeyEnv" names the variable holding the key)',
  'a running daemon reads them as it starts: restart it (peagen daemon stop, then peagen daemon start), or run with --sync',
];

/** Whether a run's report is one this advice is for: the offline mutator, and no gain over the seed. */
export function offlineFoundNothing(report: {
  mutator: string;
  direction: 'maximize' | 'minimize';
  seed: { id: string; objective: number | null };
  best: { id: string; objective: number } | null;
}): boolean {
  if (report.mutator !== 'offline') return false;
  const best = report.best;
  if (!best || best.id === report.seed.id || report.seed.objective === null) return true;
  return report.direction === 'maximize' ? best.objective <= report.seed.objective : best.objective >= report.seed.objective;
}

/** The advice as the CLI prints it: the paragraph, then the ways to add a model. */
export function offlineAdviceText(): string {
  return [`the run found no improvement. ${OFFLINE_MUTATOR_LIMITS}`, 'to evolve with a model, then run again:', ...MODEL_SETUP_LINES.map((line) => `  - ${line}`)].join('\n');
}
