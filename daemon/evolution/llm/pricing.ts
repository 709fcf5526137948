/**
 * What calls cost. The default table is an ESTIMATE of list prices (USD per million tokens)
 * for a few well-known models, as published when it was written; providers change prices,
 * so a backend's `pricing` in peagen.json overrides it and is the figure to trust.
 */
import type { LlmUsage } from '../../../shared/evolution';
import type { Pricing } from './llmConfig';

/** Estimated list prices, USD per million tokens. Keys match a model name or its prefix. */
export const DEFAULT_PRICING: Readonly<Record<string, Pricing>> = Object.freeze({
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'claude-3-5-haiku': { inputPerMTok: 0.8, outputPerMTok: 4 },
  'claude-3-haiku': { inputPerMTok: 0.25, outputPerMTok: 1.25 },
  'claude-3-5-sonnet': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-3-7-sonnet': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-sonnet-4': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-opus-4': { inputPerMTok: 15, outputPerMTok: 75 },
});

const FREE: Pricing = { inputPerMTok: 0, outputPerMTok: 0 };

/**
 * The default-table price of `model`: an exact entry, else the longest entry that prefixes it
 * (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`); undefined for a model the table does not know.
 */
export function defaultPricing(model: string): Pricing | undefined {
  const exact = DEFAULT_PRICING[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(DEFAULT_PRICING)) {
    if (model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : DEFAULT_PRICING[best];
}

/**
 * A backend's price: its configured `pricing`, else the default table, else free when its
 * base URL is a server on this machine or network (Ollama, vLLM, LM Studio); undefined when
 * unknown (the caller should say the cost is not counted).
 */
export function pricingFor(model: string, override?: Pricing, baseUrl?: string): Pricing | undefined {
  if (override) return override;
  return defaultPricing(model) ?? (baseUrl !== undefined && isLocalUrl(baseUrl) ? FREE : undefined);
}

/** USD for one call's usage; 0 when the price is unknown. */
export function costOf(usage: LlmUsage, pricing: Pricing | undefined): number {
  if (!pricing) return 0;
  return (usage.inputTokens * pricing.inputPerMTok + usage.outputTokens * pricing.outputPerMTok) / 1_000_000;
}

export interface SpendBound {
  tokens: number;
  usd: number;
}

/**
 * The most a run can spend: every call uses its whole input and its whole `max_tokens`,
 * so worst case = (input tokens + max_tokens) × calls, priced.
 */
export function worstCaseSpend(input: { calls: number; inputTokensPerCall: number; maxTokens: number; pricing: Pricing }): SpendBound {
  const { calls, inputTokensPerCall, maxTokens, pricing } = input;
  return {
    tokens: calls * (inputTokensPerCall + maxTokens),
    usd: costOf({ inputTokens: calls * inputTokensPerCall, outputTokens: calls * maxTokens }, pricing),
  };
}

/**
 * A rough token count: ceil(chars / 4), the usual rule of thumb for English and code with
 * BPE tokenizers. Used only BEFORE a run (budget estimates, prompt sizing) and for the rare
 * server that reports no usage; real usage always comes from the provider's answer.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Whether a base URL points at this machine or a private network: such OpenAI-compatible
 * servers (Ollama, vLLM, LM Studio) may run without a key and cost nothing per token.
 */
export function isLocalUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host === 'host.docker.internal') return true;
  // IPv6: loopback and unique-local (fc00::/7).
  if (host.includes(':')) return host === '::1' || /^f[cd]/.test(host);
  const octets = host.split('.').map(Number);
  if (octets.length !== 4 || octets.some((octet) => !Number.isInteger(octet) || octet < 0 || octet > 255)) return false;
  const [a, b] = octets as [number, number, number, number];
  return a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31) || a === 0;
}
