/**
 * The `llm` section of peagen.json: which models the ensemble may call. Keys are never
 * written here: each backend names the environment variable that holds its key.
 *
 * Without an `llm` section, the environment decides: OPENAI_API_KEY or OPENAI_BASE_URL
 * (any OpenAI-compatible server: Ollama, vLLM, LM Studio, OpenRouter) gives an `openai`
 * backend, ANTHROPIC_API_KEY an `anthropic` one; with neither, the offline mutator works.
 */
import * as z from 'zod';
import { MAX_CHOICES } from '../../../shared/payloads';

export const PricingSchema = z
  .object({
    /** USD per million input tokens. */
    inputPerMTok: z.number().nonnegative(),
    /** USD per million output tokens. */
    outputPerMTok: z.number().nonnegative(),
  })
  .strict();
export type Pricing = z.infer<typeof PricingSchema>;

export const BackendConfigSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9._-]+$/, 'a backend name is letters, digits, ".", "_" or "-"'),
    provider: z.enum(['openai', 'anthropic']),
    model: z.string().min(1),
    /** For OpenAI-compatible servers (Ollama: http://127.0.0.1:11434/v1). */
    baseUrl: z.string().url().optional(),
    /** The environment variable holding the key (default OPENAI_API_KEY / ANTHROPIC_API_KEY). */
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
    /** Share of calls under weighted routing. */
    weight: z.number().positive().default(1),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().positive().default(4096),
    timeoutMs: z.number().int().positive().default(120_000),
    maxRetries: z.number().int().nonnegative().max(10).default(4),
    pricing: PricingSchema.optional(),
    /** Most answers per call for this model (1 for one that refuses several); default: no cap. */
    choices: z.number().int().min(1).max(MAX_CHOICES).optional(),
  })
  .strict();
export type BackendConfig = z.infer<typeof BackendConfigSchema>;

export const LlmConfigSchema = z
  .object({
    backends: z.array(BackendConfigSchema).default([]),
    /** weighted: by `weight`; bandit: learns which model improves most per dollar. */
    routing: z.enum(['weighted', 'bandit']).default('weighted'),
    temperature: z.number().min(0).max(2).default(0.8),
    /** Answers that do not apply go back to the model with the reason, up to this many times. */
    repairAttempts: z.number().int().nonnegative().max(5).default(2),
    /** Also accept an answer that rewrites a whole EVOLVE-BLOCK in one fenced block. */
    allowRewrite: z.boolean().default(false),
    /**
     * Answers drawn per call where the provider offers it (OpenAI's `n`; Anthropic gives one):
     * every new child among them is evaluated, the others with no call of their own. The
     * prompt is paid once, each answer's output tokens are paid; a model that repeats itself
     * costs re-asks without it.
     */
    choices: z.number().int().min(1).max(MAX_CHOICES).default(2),
  })
  .strict();
export type LlmConfig = z.infer<typeof LlmConfigSchema>;
