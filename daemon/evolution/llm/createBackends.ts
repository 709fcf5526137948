/**
 * Builds the run's LlmBackends from the `llm` config section and the environment. Keys are
 * read here, from `env`, and handed to the SDK clients; nothing returned or logged by this
 * module carries one.
 */
import { AnthropicBackend } from './AnthropicBackend';
import type { LlmBackend } from './LlmBackend';
import { BackendConfigSchema, type BackendConfig, type LlmConfig } from './llmConfig';
import { OpenAiBackend } from './OpenAiBackend';
import { isLocalUrl } from './pricing';

export type Env = Record<string, string | undefined>;

export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';
export const DEFAULT_ANTHROPIC_MODEL = 'claude-3-5-haiku-latest';
/** Sent to keyless local servers, which ignore it (the SDK insists on some key). */
export const KEYLESS_PLACEHOLDER = 'no-key-needed';

const DEFAULT_KEY_ENV: Record<BackendConfig['provider'], string> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/**
 * The backends to call: `config.backends` when any are configured; otherwise derived from
 * the environment (OPENAI_API_KEY or OPENAI_BASE_URL → `openai`, model OPENAI_MODEL or
 * gpt-4o-mini; ANTHROPIC_API_KEY → `anthropic`, model ANTHROPIC_MODEL or
 * claude-3-5-haiku-latest); [] when neither (the offline mutator then works alone).
 *
 * Throws an Error naming the variable when a configured backend's key variable is unset
 * (an OpenAI-compatible backend whose baseUrl is a local server may run keyless), and when
 * two backends share a name.
 */
export function createBackends(config: LlmConfig, env: Env = process.env): LlmBackend[] {
  const derived = config.backends.length === 0;
  const configs = derived ? backendsFromEnv(env) : config.backends;
  const seen = new Set<string>();
  return configs.map((backend) => {
    if (seen.has(backend.name)) throw new Error(`llm: two backends are named "${backend.name}"; names must be unique`);
    seen.add(backend.name);
    const keyEnv = backend.apiKeyEnv ?? DEFAULT_KEY_ENV[backend.provider];
    const key = nonEmpty(env[keyEnv]) ?? (mayRunKeyless(backend, derived) ? KEYLESS_PLACEHOLDER : undefined);
    if (key === undefined) {
      throw new Error(
        `llm backend "${backend.name}" (${backend.provider}, ${backend.model}) needs an API key in the environment variable ${keyEnv}, which is not set`,
      );
    }
    return backend.provider === 'openai'
      ? new OpenAiBackend(backend, key, { keySource: keyEnv })
      : new AnthropicBackend(backend, key, { keySource: keyEnv });
  });
}

/**
 * Whether the run has any LLM to call: backends are configured, or the environment names
 * one. It does not check keys: a configured backend with a missing key is an error that
 * createBackends reports, not a silent fall-back to the offline mutator.
 */
export function llmAvailable(config: LlmConfig, env: Env = process.env): boolean {
  return config.backends.length > 0 || envNamesABackend(env);
}

export interface BackendDescription {
  name: string;
  provider: LlmBackend['provider'];
  model: string;
  baseUrl?: string;
}

/** One line for logs and messages: `name (provider model @ baseUrl), ...`, never a key. */
export function describeBackends(backends: readonly LlmBackend[]): string {
  if (backends.length === 0) return 'no LLM backends';
  return backendDescriptions(backends)
    .map(({ name, provider, model, baseUrl }) => `${name} (${provider} ${model}${baseUrl ? ` @ ${baseUrl}` : ''})`)
    .join(', ');
}

/** The same, structured (for status payloads): name, provider, model, base URL, never a key. */
export function backendDescriptions(backends: readonly LlmBackend[]): BackendDescription[] {
  return backends.map((backend) => {
    const description: BackendDescription = { name: backend.name, provider: backend.provider, model: backend.model };
    const baseUrl = (backend as { baseUrl?: unknown }).baseUrl;
    if (typeof baseUrl === 'string') description.baseUrl = stripCredentials(baseUrl);
    return description;
  });
}

function envNamesABackend(env: Env): boolean {
  return nonEmpty(env.OPENAI_API_KEY) !== undefined || nonEmpty(env.OPENAI_BASE_URL) !== undefined || nonEmpty(env.ANTHROPIC_API_KEY) !== undefined;
}

function backendsFromEnv(env: Env): BackendConfig[] {
  const backends: BackendConfig[] = [];
  const openAiBaseUrl = nonEmpty(env.OPENAI_BASE_URL);
  if (nonEmpty(env.OPENAI_API_KEY) !== undefined || openAiBaseUrl !== undefined) {
    backends.push(
      parseDerived('OPENAI_* variables', {
        name: 'openai',
        provider: 'openai',
        model: nonEmpty(env.OPENAI_MODEL) ?? DEFAULT_OPENAI_MODEL,
        ...(openAiBaseUrl !== undefined ? { baseUrl: openAiBaseUrl } : {}),
      }),
    );
  }
  if (nonEmpty(env.ANTHROPIC_API_KEY) !== undefined) {
    backends.push(
      parseDerived('ANTHROPIC_* variables', {
        name: 'anthropic',
        provider: 'anthropic',
        model: nonEmpty(env.ANTHROPIC_MODEL) ?? DEFAULT_ANTHROPIC_MODEL,
      }),
    );
  }
  return backends;
}

function parseDerived(source: string, raw: unknown): BackendConfig {
  const parsed = BackendConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`llm backend from the ${source}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`.trim());
  }
  return parsed.data;
}

/**
 * An OpenAI-compatible server on this machine or a private network (Ollama, vLLM, LM Studio)
 * typically needs no key. An OPENAI_BASE_URL alone in the environment also means "call this
 * server": it is tried keyless, and answers 401 if it needs a key, which the backend reports
 * naming OPENAI_API_KEY.
 */
function mayRunKeyless(backend: BackendConfig, derivedFromEnv: boolean): boolean {
  if (backend.provider !== 'openai' || backend.baseUrl === undefined) return false;
  return derivedFromEnv || isLocalUrl(backend.baseUrl);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** A base URL may carry `user:password@`; logs get it without. */
function stripCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '[unparseable url]';
  }
}
