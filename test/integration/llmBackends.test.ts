import * as assert from 'node:assert/strict';
import { AnthropicBackend } from '../../daemon/evolution/llm/AnthropicBackend';
import { BackendConfigSchema, LlmConfigSchema, type BackendConfig, type LlmConfig } from '../../daemon/evolution/llm/llmConfig';
import { OpenAiBackend } from '../../daemon/evolution/llm/OpenAiBackend';
import {
  createBackends,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_OPENAI_MODEL,
  backendDescriptions,
  describeBackends,
  llmAvailable,
} from '../../daemon/evolution/llm/createBackends';
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
  { sendsSeed: true, severalAnswers: true },
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
  { sendsSeed: false, severalAnswers: false },
);

describe('createBackends against local servers', () => {
  it('calls a keyless OpenAI-compatible local server (Ollama-like) named by OPENAI_BASE_URL', async () => {
    const server = await startOpenAiServer({ responder: () => 'local answer' });
    try {
      const [backend] = createBackends({ backends: [], routing: 'weighted', temperature: 0.8, repairAttempts: 2, allowRewrite: false, choices: 1 }, {
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
          allowRewrite: false,
          choices: 1,
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

describe('createBackends', () => {
  const NONE: LlmConfig = LlmConfigSchema.parse({});
  const withBackends = (...backends: unknown[]): LlmConfig => LlmConfigSchema.parse({ backends });

  it('derives nothing from an environment without LLM variables', () => {
    assert.deepEqual(createBackends(NONE, { PATH: '/usr/bin' }), []);
    assert.equal(llmAvailable(NONE, { PATH: '/usr/bin' }), false);
  });

  it('derives openai and anthropic backends from their variables, with default models', () => {
    const env = { OPENAI_API_KEY: 'sk-openai-secret-111111', ANTHROPIC_API_KEY: 'sk-ant-secret-222222' };
    const backends = createBackends(NONE, env);
    assert.deepEqual(backendDescriptions(backends), [
      { name: 'openai', provider: 'openai', model: DEFAULT_OPENAI_MODEL, baseUrl: 'https://api.openai.com/v1' },
      { name: 'anthropic', provider: 'anthropic', model: DEFAULT_ANTHROPIC_MODEL, baseUrl: 'https://api.anthropic.com' },
    ]);
    assert.equal(llmAvailable(NONE, env), true);
    const described = describeBackends(backends);
    assert.equal(described, `openai (openai ${DEFAULT_OPENAI_MODEL} @ https://api.openai.com/v1), anthropic (anthropic ${DEFAULT_ANTHROPIC_MODEL} @ https://api.anthropic.com)`);
    assert.ok(!described.includes('secret') && !JSON.stringify(backendDescriptions(backends)).includes('secret'));
    assert.equal(describeBackends([]), 'no LLM backends');
  });

  it('takes the models from OPENAI_MODEL and ANTHROPIC_MODEL', () => {
    const backends = createBackends(NONE, { OPENAI_API_KEY: 'k1', OPENAI_MODEL: 'gpt-4.1', ANTHROPIC_API_KEY: 'k2', ANTHROPIC_MODEL: 'claude-sonnet-4-0' });
    assert.deepEqual(
      backends.map((backend) => backend.model),
      ['gpt-4.1', 'claude-sonnet-4-0'],
    );
  });

  it('names the unset variable of a configured backend', () => {
    const config = withBackends({ name: 'claude', provider: 'anthropic', model: 'claude-sonnet-4-0', apiKeyEnv: 'TEAM_CLAUDE_KEY' });
    assert.throws(() => createBackends(config, { ANTHROPIC_API_KEY: 'present-but-not-the-one' }), /TEAM_CLAUDE_KEY/);
    assert.throws(() => createBackends(withBackends({ name: 'gpt', provider: 'openai', model: 'gpt-4o' }), {}), /OPENAI_API_KEY/);
    // Configured backends are what the user asked for: no silent fall-back to offline.
    assert.equal(llmAvailable(config, {}), true);
  });

  it('lets a configured OpenAI-compatible local server run keyless, but not a remote one', () => {
    const local = withBackends({ name: 'ollama', provider: 'openai', model: 'qwen2.5-coder:7b', baseUrl: 'http://127.0.0.1:11434/v1' });
    assert.deepEqual(backendDescriptions(createBackends(local, {})), [
      { name: 'ollama', provider: 'openai', model: 'qwen2.5-coder:7b', baseUrl: 'http://127.0.0.1:11434/v1' },
    ]);
    const remote = withBackends({ name: 'router', provider: 'openai', model: 'x', baseUrl: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY' });
    assert.throws(() => createBackends(remote, {}), /OPENROUTER_API_KEY/);
  });

  it('refuses two backends with the same name', () => {
    const config = withBackends({ name: 'x', provider: 'openai', model: 'a' }, { name: 'x', provider: 'anthropic', model: 'b' });
    assert.throws(() => createBackends(config, { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' }), /two backends are named "x"/);
  });

  it('reports an OPENAI_BASE_URL that is not a URL', () => {
    assert.throws(() => createBackends(NONE, { OPENAI_BASE_URL: 'localhost-ish' }), /OPENAI_\* variables: baseUrl/);
  });

  it('keeps credentials in a base URL out of the description', () => {
    const config = withBackends({ name: 'proxy', provider: 'openai', model: 'm', baseUrl: 'http://user:hunter2@10.0.0.2:8000/v1' });
    const [description] = backendDescriptions(createBackends(config, {}));
    assert.equal(description!.baseUrl, 'http://10.0.0.2:8000/v1');
  });
});
