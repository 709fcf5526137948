/**
 * LlmBackend: one chat model behind one provider's official SDK. Keys come from the
 * environment of the process that calls the model and never leave it: not in a task
 * payload, a log line, a checkpoint or a sandbox. Rules every implementation keeps (the
 * conformance suite in test/conformance/llmBackend.ts checks them against local servers
 * that speak each provider's wire format):
 *  - usage comes from the provider's `usage` answer, never estimated when it is given;
 *  - 429/5xx are retried honouring `retry-after`; a timeout or abort ends the call;
 *  - failures are LlmError with a stable code, never a raw SDK error;
 *  - `choices` is a wish: a provider (or server) that cannot give several answers to one
 *    request gives one, and the caller makes do.
 */
import type { LlmUsage } from '../../../shared/evolution';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmRequest {
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  /** How many answers to draw for this one request (OpenAI's `n`), each billed as output. */
  choices?: number;
  signal?: AbortSignal;
}

export interface LlmAnswer {
  text: string;
  /** The other answers to the same request, when several were asked for and given. */
  alternatives?: string[];
  /** The model that answered, as the provider names it. */
  model: string;
  usage: LlmUsage;
  latencyMs: number;
  finishReason?: string;
}

export type LlmErrorCode = 'auth' | 'rate_limited' | 'server' | 'timeout' | 'aborted' | 'bad_request' | 'connection' | 'empty' | 'not_found';

export class LlmError extends Error {
  override name = 'LlmError';
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface LlmBackend {
  /** Configured name, e.g. `openai`, `local-ollama`. */
  readonly name: string;
  readonly provider: 'openai' | 'anthropic';
  readonly model: string;
  /** The endpoint, when the backend calls one (a local one is priced at zero). */
  readonly baseUrl?: string;
  complete(request: LlmRequest): Promise<LlmAnswer>;
}
