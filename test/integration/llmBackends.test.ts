import * as assert from 'node:assert/strict';
import { AnthropicBackend } from '../../daemon/evolution/llm/AnthropicBackend';
import { BackendConfigSchema, type BackendConfig } from '../../daemon/evolution/llm/llmConfig';
import { OpenAiBackend } from '../../daemon/evolution/llm/OpenAiBackend';
import { createBackends } from '../../daemon/evolution/llm/createBackends';
import { llmBackendConformance, type BackendTestOptions } from '../conformance/llmBackend';
import { startAnthropicServer, startOpenAiServer } from '../fixtures/llmWireServers';

function config(provider: BackendConfig['provider'], model: string, baseUrl: string, options: BackendTestOptions): BackendConfig {
  return BackendConfigSchema.parse({
    name: `test-${provider}`,
    provider,
    model,
    baseUrl,
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
  });
}

llmBackendConformance(
  'OpenAiBackend',
  async (options) => {
    const server = await startOpenAiServer(options.server);
    return { server, backend: new OpenAiBackend(config('openai', 'gpt-4o-mini', server.baseUrl, options), options.apiKey) };
  },
  { sendsSeed: true },
);

llmBackendConformance(
  'AnthropicBackend',
  async (options) => {
    const server = await startAnthropicServer(options.server);
    return {
      server,
      backend: new AnthropicBackend(config('anthropic', 'claude-3-5-haiku-latest', server.baseUrl, options), options.apiKey),
    };
  },
  { sendsSeed: false },
);

describe('createBackends against local servers', () => {
  it('calls a keyless OpenAI-compatible local server (Ollama-like) named by OPENAI_BASE_URL', async () => {
    const server = await startOpenAiServer({ responder: () => 'local answer' });
    try {
      const [backend] = createBackends({ backends: [], routing: 'weighted', temperature: 0.8, repairAttempts: 2 }, {
        OPENAI_BASE_URL: server.baseUrl,
        OPENAI_MODEL: 'qwen2.5-coder:7b',
      });
      const answer = await backend!.complete({ messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(answer.text, 'local answer');
      assert.equal(server.requests[0]!.parsed!.model, 'qwen2.5-coder:7b');
    } finally {
      await server.close();
    }
  });

  it('sends the key from the configured variable, and only from it', async () => {
    const server = await startAnthropicServer({ apiKey: 'sk-ant-from-env-variable-123' });
    try {
      const [backend] = createBackends(
        {
          backends: [BackendConfigSchema.parse({ name: 'claude', provider: 'anthropic', model: 'claude-sonnet-4-0', baseUrl: server.baseUrl, apiKeyEnv: 'MY_CLAUDE_KEY' })],
          routing: 'weighted',
          temperature: 0.8,
          repairAttempts: 2,
        },
        { MY_CLAUDE_KEY: 'sk-ant-from-env-variable-123', ANTHROPIC_API_KEY: 'sk-ant-the-wrong-one-456' },
      );
      const answer = await backend!.complete({ messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(answer.text, 'echo: hi');
    } finally {
      await server.close();
    }
  });
});
