/**
 * The Messages API through the official `@anthropic-ai/sdk`. The system prompt travels as
 * the top-level `system` field, not as a message, as the API requires.
 *
 * The SDK retries 429, 408, 409 and 5xx (529 overloaded included) itself, honouring
 * `retry-after-ms` / `retry-after`; sdkCall bounds the whole call.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { LlmError, type LlmAnswer, type LlmBackend, type LlmRequest } from './LlmBackend';
import type { BackendConfig } from './llmConfig';
import { boundedSdkCall } from './sdkCall';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicBackendOptions {
  /** The environment variable the key came from, named in auth errors (never the key). */
  keySource?: string;
}

export class AnthropicBackend implements LlmBackend {
  readonly provider = 'anthropic' as const;
  readonly name: string;
  readonly model: string;
  readonly baseUrl: string;
  /** The SDK and its client, loaded on the first call: a process that never asks pays nothing. */
  private sdk: Promise<{ Anthropic: typeof Anthropic; client: Anthropic }> | undefined;

  constructor(
    private readonly config: BackendConfig,
    private readonly apiKey: string,
    private readonly options: AnthropicBackendOptions = {},
  ) {
    this.name = config.name;
    this.model = config.model;
    // Explicit, so that ANTHROPIC_BASE_URL in this process never redirects a configured backend.
    this.baseUrl = config.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL;
  }

  private loadSdk(): Promise<{ Anthropic: typeof Anthropic; client: Anthropic }> {
    this.sdk ??= import('./anthropicSdk').then(({ Anthropic }) => ({
      Anthropic,
      client: new Anthropic({
        apiKey: this.apiKey,
        baseURL: this.baseUrl,
        timeout: this.config.timeoutMs,
        maxRetries: this.config.maxRetries,
        // No spans and no trace headers: nothing about the call leaves but the call itself.
        openTelemetry: false,
      }),
    }));
    return this.sdk;
  }

  async complete(request: LlmRequest): Promise<LlmAnswer> {
    const started = performance.now();
    const system = request.messages
      .filter((message) => message.role === 'system')
      .map((message) => message.content)
      .join('\n\n');
    const messages = request.messages
      .filter((message) => message.role !== 'system')
      .map((message) => ({ role: message.role as 'user' | 'assistant', content: message.content }));
    // The Messages API accepts temperatures in [0, 1]; the config allows OpenAI's [0, 2].
    const temperature = request.temperature ?? this.config.temperature;
    const { Anthropic, client } = await this.loadSdk();
    const message = await boundedSdkCall(
      {
        backendName: this.name,
        timeoutMs: this.config.timeoutMs,
        signal: request.signal,
        apiKey: this.apiKey,
        keySource: this.options.keySource,
        baseUrl: this.baseUrl,
        errors: Anthropic,
      },
      (signal) =>
        client.messages.create(
          {
            model: this.model,
            max_tokens: request.maxTokens ?? this.config.maxTokens,
            messages,
            ...(system !== '' ? { system } : {}),
            ...(temperature !== undefined ? { temperature: Math.min(1, temperature) } : {}),
          },
          { signal },
        ),
    );
    const text = (message.content ?? [])
      .map((block) => (block.type === 'text' ? block.text : ''))
      .join('');
    if (text.trim() === '') {
      throw new LlmError('empty', `${this.name}: the model answered with no text (stop reason ${message.stop_reason ?? 'none'})`, true);
    }
    const answer: LlmAnswer = {
      text,
      model: message.model || this.model,
      usage: { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
      latencyMs: performance.now() - started,
    };
    if (message.stop_reason) answer.finishReason = message.stop_reason;
    return answer;
  }
}
