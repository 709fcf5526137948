/**
 * Chat completions through the official `openai` SDK, for every OpenAI-compatible endpoint
 * chosen by base URL: OpenAI itself, Ollama, vLLM, LM Studio, OpenRouter.
 *
 * The SDK retries 429, 408, 409 and 5xx itself, honouring `retry-after-ms` / `retry-after`
 * (up to 60 s; otherwise exponential back-off from 0.5 s); sdkCall bounds the whole call.
 */
import type OpenAI from 'openai';
import { estimateTokens } from './pricing';
import { LlmError, type LlmAnswer, type LlmBackend, type LlmRequest } from './LlmBackend';
import type { BackendConfig } from './llmConfig';
import { boundedSdkCall } from './sdkCall';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiBackendOptions {
  /** The environment variable the key came from, named in auth errors (never the key). */
  keySource?: string;
}

export class OpenAiBackend implements LlmBackend {
  readonly provider = 'openai' as const;
  readonly name: string;
  readonly model: string;
  readonly baseUrl: string;
  /** The SDK and its client, loaded on the first call: a process that never asks pays nothing. */
  private sdk: Promise<{ OpenAI: typeof OpenAI; client: OpenAI }> | undefined;
  /** Set once the server refused `n` > 1: every later call asks for one answer. */
  private singleChoice = false;

  constructor(
    private readonly config: BackendConfig,
    private readonly apiKey: string,
    private readonly options: OpenAiBackendOptions = {},
  ) {
    this.name = config.name;
    this.model = config.model;
    // Explicit, so that OPENAI_BASE_URL in this process never redirects a configured backend.
    this.baseUrl = config.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  }

  private loadSdk(): Promise<{ OpenAI: typeof OpenAI; client: OpenAI }> {
    this.sdk ??= import('./openAiSdk').then(({ OpenAI }) => ({
      OpenAI,
      client: new OpenAI({
        apiKey: this.apiKey,
        baseURL: this.baseUrl,
        organization: null,
        project: null,
        timeout: this.config.timeoutMs,
        maxRetries: this.config.maxRetries,
      }),
    }));
    return this.sdk;
  }

  async complete(request: LlmRequest): Promise<LlmAnswer> {
    const choices = this.singleChoice ? 1 : Math.max(1, request.choices ?? 1);
    try {
      return await this.completeWith(request, choices);
    } catch (error) {
      // Some models and servers refuse `n` (reasoning models, some proxies): when one answer is
      // given where several were refused, ask for one from now on rather than fail every call.
      if (!(choices > 1 && error instanceof LlmError && error.code === 'bad_request')) throw error;
      const answer = await this.completeWith(request, 1);
      this.singleChoice = true;
      return answer;
    }
  }

  private async completeWith(request: LlmRequest, choices: number): Promise<LlmAnswer> {
    const started = performance.now();
    const temperature = request.temperature ?? this.config.temperature;
    const { OpenAI, client } = await this.loadSdk();
    const completion = await boundedSdkCall(
      {
        backendName: this.name,
        timeoutMs: this.config.timeoutMs,
        signal: request.signal,
        apiKey: this.apiKey,
        keySource: this.options.keySource,
        baseUrl: this.baseUrl,
        errors: OpenAI,
      },
      (signal) =>
        client.chat.completions.create(
          {
            model: this.model,
            messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
            max_tokens: request.maxTokens ?? this.config.maxTokens,
            ...(temperature !== undefined ? { temperature } : {}),
            ...(request.seed !== undefined ? { seed: request.seed } : {}),
            ...(choices > 1 ? { n: choices } : {}),
          },
          { signal },
        ),
    );
    const answered = (completion.choices ?? []).filter((choice) => (choice?.message?.content ?? '').trim() !== '');
    const [first, ...others] = answered;
    if (!first) {
      throw new LlmError('empty', `${this.name}: the model answered with no text (finish reason ${completion.choices?.[0]?.finish_reason ?? 'none'})`, true);
    }
    const text = first.message.content!;
    const alternatives = others.map((choice) => choice.message.content!);
    // Some OpenAI-compatible servers omit usage; only then is it estimated.
    const usage = completion.usage
      ? { inputTokens: completion.usage.prompt_tokens, outputTokens: completion.usage.completion_tokens }
      : {
          inputTokens: estimateTokens(request.messages.map((message) => message.content).join('\n')),
          outputTokens: estimateTokens([text, ...alternatives].join('\n')),
        };
    const answer: LlmAnswer = {
      text,
      ...(alternatives.length > 0 && { alternatives }),
      model: completion.model || this.model,
      usage,
      latencyMs: performance.now() - started,
    };
    if (first.finish_reason) answer.finishReason = first.finish_reason;
    return answer;
  }
}
