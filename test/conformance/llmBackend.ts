/**
 * The LlmBackend contract as a mocha suite, run against a local server that speaks the
 * provider's real wire format (test/fixtures/llmWireServers.ts). Every backend runs it:
 *
 *   llmBackendConformance('OpenAiBackend', async (options) => {
 *     const server = await startOpenAiServer(options.server);
 *     return { server, backend: new OpenAiBackend(config(server.baseUrl, options), options.apiKey) };
 *   });
 *
 * Retry waits are the SDKs' own (retry-after seconds, else back-off from 0.5 s), so the
 * scripted faults stay few. Timing assertions are lower bounds (a wait cannot be shorter
 * than asked), or upper bounds far above the expected time and far below the time the
 * failure they catch would take.
 */
import * as assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { LlmError, type LlmAnswer, type LlmBackend, type LlmErrorCode, type LlmRequest } from '../../daemon/evolution/llm/LlmBackend';
import type { WireServer, WireServerOptions } from '../fixtures/llmWireServers';

export interface BackendTestOptions {
  server: WireServerOptions;
  /** The key the backend presents. */
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
}

export interface BackendUnderTest {
  backend: LlmBackend;
  server: WireServer;
}

export type BackendFactory = (options: BackendTestOptions) => Promise<BackendUnderTest>;

export interface ConformanceOptions {
  /** Whether the provider's API takes a sampling seed (OpenAI does, Anthropic does not). */
  sendsSeed: boolean;
  /** Whether the provider's API gives several answers to one request (OpenAI's `n`; Anthropic has none). */
  severalAnswers: boolean;
}

const KEY = 'sk-test-conformance-0123456789abcdef';
const WRONG_KEY = 'sk-wrong-conformance-fedcba9876543210';

const REQUEST: LlmRequest = {
  messages: [
    { role: 'system', content: 'You improve programs.' },
    { role: 'user', content: 'Make bad_sort faster.' },
  ],
};

async function failure(promise: Promise<LlmAnswer>): Promise<LlmError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof LlmError, `expected an LlmError, got ${String(error)}`);
    return error;
  }
  assert.fail('the call succeeded; expected it to fail');
}

async function expectCode(promise: Promise<LlmAnswer>, code: LlmErrorCode): Promise<LlmError> {
  const error = await failure(promise);
  assert.equal(error.code, code, `expected code ${code}, got ${error.code}: ${error.message}`);
  return error;
}

export function llmBackendConformance(name: string, make: BackendFactory, conformance: ConformanceOptions): void {
  describe(`LlmBackend conformance: ${name}`, function () {
    this.timeout(20_000);
    let subject: BackendUnderTest | undefined;

    async function start(overrides: Partial<BackendTestOptions> = {}): Promise<BackendUnderTest> {
      subject = await make({ server: { apiKey: KEY }, apiKey: KEY, timeoutMs: 10_000, maxRetries: 2, ...overrides });
      return subject;
    }

    afterEach(async () => {
      await subject?.server.close();
      subject = undefined;
    });

    it('returns the text the server answered and the usage it reported', async () => {
      const { backend, server } = await start({
        server: { apiKey: KEY, responder: (request) => `saw ${request.messages.length} messages for ${request.model}` },
      });
      const answer = await backend.complete(REQUEST);
      assert.equal(server.requests.length, 1);
      const [recorded] = server.requests;
      const wireMessages = recorded!.parsed!.messages.length;
      assert.equal(answer.text, `saw ${wireMessages} messages for ${backend.model}`);
      assert.deepEqual(answer.usage, recorded!.reportedUsage);
      assert.ok(answer.usage.inputTokens > 0 && answer.usage.outputTokens > 0);
      assert.equal(answer.model, backend.model);
      assert.ok(answer.latencyMs >= 0);
      // The system prompt reaches the server, as a message or (Anthropic) the system field.
      const parsed = recorded!.parsed!;
      const system = parsed.system ?? parsed.messages.find((message) => message.role === 'system')?.content;
      assert.equal(system, 'You improve programs.');
      assert.equal(parsed.messages.at(-1)?.content, 'Make bad_sort faster.');
    });

    it('sends the key only in the auth header', async () => {
      const { backend, server } = await start();
      await backend.complete(REQUEST);
      const [recorded] = server.requests;
      assert.ok(recorded!.authHeader, 'the key was not sent in an auth header');
      assert.equal(recorded!.presentedKey, KEY);
      assert.ok(!recorded!.rawBody.includes(KEY), 'the key is in the request body');
      assert.ok(!recorded!.path.includes(KEY), 'the key is in the URL');
      for (const [header, value] of Object.entries(recorded!.headers)) {
        if (header !== recorded!.authHeader) assert.ok(!value.includes(KEY), `the key is in header ${header}`);
      }
    });

    it('sends temperature and max_tokens (and the seed where the API has one) on the wire', async () => {
      const { backend, server } = await start();
      await backend.complete({ ...REQUEST, temperature: 0.3, maxTokens: 77, seed: 42 });
      const parsed = server.requests[0]!.parsed!;
      assert.equal(parsed.temperature, 0.3);
      assert.equal(parsed.maxTokens, 77);
      assert.equal(parsed.seed, conformance.sendsSeed ? 42 : undefined);
    });

    it('gives the answers asked for with `choices` where the API can (else one), paying every answer and the prompt once', async () => {
      let drawn = 0;
      const { backend, server } = await start({ server: { apiKey: KEY, responder: () => `answer ${++drawn}` } });
      const answer = await backend.complete({ ...REQUEST, choices: 3 });
      assert.equal(server.requests.length, 1, 'one call');
      const texts = [answer.text, ...(answer.alternatives ?? [])];
      assert.deepEqual(texts, conformance.severalAnswers ? ['answer 1', 'answer 2', 'answer 3'] : ['answer 1']);
      assert.deepEqual(answer.usage, server.requests[0]!.reportedUsage);
      const single = await backend.complete(REQUEST);
      assert.equal(single.alternatives, undefined);
      assert.ok(answer.usage.outputTokens >= texts.length * single.usage.outputTokens);
      assert.equal(answer.usage.inputTokens, single.usage.inputTokens);
    });

    if (conformance.severalAnswers) {
      it('asks for one answer from then on when the server refuses several (400), and the call still succeeds', async () => {
        const { backend, server } = await start({ server: { apiKey: KEY, faults: [{ kind: 'status', status: 400, message: "Unsupported value: 'n' does not support 3 with this model." }] } });
        const answer = await backend.complete({ ...REQUEST, choices: 3 });
        assert.match(answer.text, /^echo: /);
        await backend.complete({ ...REQUEST, choices: 3 });
        assert.deepEqual(server.requests.map((request) => request.parsed?.n), [3, undefined, undefined]);
      });
    }

    it('reports a truncated answer through its finish reason', async () => {
      const { backend } = await start({ server: { apiKey: KEY, responder: () => 'x'.repeat(400) } });
      const answer = await backend.complete({ ...REQUEST, maxTokens: 10 });
      assert.equal(answer.usage.outputTokens, 10);
      assert.ok(answer.finishReason === 'length' || answer.finishReason === 'max_tokens', `finish reason ${answer.finishReason}`);
    });

    it('measures latency over the whole call', async () => {
      const { backend } = await start({ server: { apiKey: KEY, faults: [{ kind: 'delay', ms: 200 }] } });
      const answer = await backend.complete(REQUEST);
      assert.ok(answer.latencyMs >= 190, `latency ${answer.latencyMs} ms; the server took 200 ms`);
    });

    it('retries a 429 after the retry-after the server asked for, then succeeds', async () => {
      const { backend, server } = await start({ server: { apiKey: KEY, faults: [{ kind: 'status', status: 429, retryAfterSeconds: 1 }] } });
      const answer = await backend.complete(REQUEST);
      assert.match(answer.text, /^echo: /);
      assert.deepEqual(
        server.requests.map((request) => request.answered),
        [429, 200],
      );
      const waited = server.requests[1]!.receivedAt - server.requests[0]!.receivedAt;
      // The SDK's own back-off would be at most 500 ms: a second or more is the header's.
      assert.ok(waited >= 950, `retried after ${waited} ms; retry-after asked for 1 s`);
    });

    it('retries a 500 and succeeds', async () => {
      const { backend, server } = await start({ server: { apiKey: KEY, faults: [{ kind: 'status', status: 500 }] } });
      const answer = await backend.complete(REQUEST);
      assert.match(answer.text, /^echo: /);
      assert.deepEqual(
        server.requests.map((request) => request.answered),
        [500, 200],
      );
    });

    it('gives up on a persistent 500 after maxRetries with code server', async () => {
      const faults = Array.from({ length: 5 }, () => ({ kind: 'status' as const, status: 500, retryAfterSeconds: 0 }));
      const { backend, server } = await start({ maxRetries: 1, server: { apiKey: KEY, faults } });
      const error = await expectCode(backend.complete(REQUEST), 'server');
      assert.equal(error.retryable, true);
      assert.equal(server.requests.length, 2, 'one try and one retry');
    });

    it('gives up on a persistent 429 with code rate_limited', async () => {
      const faults = Array.from({ length: 5 }, () => ({ kind: 'status' as const, status: 429, retryAfterSeconds: 0 }));
      const { backend, server } = await start({ maxRetries: 0, server: { apiKey: KEY, faults } });
      await expectCode(backend.complete(REQUEST), 'rate_limited');
      assert.equal(server.requests.length, 1);
    });

    it('bounds the whole call, retries included, by its timeout: code timeout', async () => {
      // Every attempt hangs. Were the timeout per attempt, 7 attempts and the SDK's back-off
      // between them would take over 20 s; the bound ends the call at 400 ms.
      const faults = Array.from({ length: 8 }, () => ({ kind: 'hang' as const }));
      const { backend, server } = await start({ timeoutMs: 400, maxRetries: 6, server: { apiKey: KEY, faults } });
      const started = Date.now();
      await expectCode(backend.complete(REQUEST), 'timeout');
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 390, `gave up after ${elapsed} ms, before its 400 ms timeout`);
      assert.ok(elapsed < 8_000, `gave up after ${elapsed} ms: the timeout did not bound the retries`);
      assert.ok(server.requests.length <= 2, `${server.requests.length} attempts within the bound`);
    });

    it('ends the call when the caller aborts: code aborted', async () => {
      const { backend, server } = await start({ server: { apiKey: KEY, faults: [{ kind: 'hang' }] } });
      const controller = new AbortController();
      const call = backend.complete({ ...REQUEST, signal: controller.signal });
      while (server.requests.length === 0) await delay(5);
      controller.abort();
      const error = await expectCode(call, 'aborted');
      assert.equal(error.retryable, false);
      assert.equal(server.requests.length, 1, 'an aborted call is not retried');
    });

    it('sends nothing when the signal is already aborted', async () => {
      const { backend, server } = await start();
      await expectCode(backend.complete({ ...REQUEST, signal: AbortSignal.abort() }), 'aborted');
      assert.equal(server.requests.length, 0);
    });

    it('reports a refused key as auth, without retrying and without the key in the message', async () => {
      const { backend, server } = await start({ apiKey: WRONG_KEY, server: { apiKey: KEY } });
      const error = await expectCode(backend.complete(REQUEST), 'auth');
      assert.equal(error.retryable, false);
      assert.equal(server.requests.length, 1);
      assert.equal(server.requests[0]!.answered, 401);
      for (const text of [error.message, String(error), error.stack ?? '', JSON.stringify(error)]) {
        assert.ok(!text.includes(WRONG_KEY), `the key leaked: ${text}`);
        assert.ok(!text.includes(WRONG_KEY.slice(-12)), `part of the key leaked: ${text}`);
      }
    });

    it('reports an empty answer as empty', async () => {
      const { backend } = await start({ server: { apiKey: KEY, responder: () => '' } });
      await expectCode(backend.complete(REQUEST), 'empty');
    });

    it('reports a 400 as bad_request without retrying', async () => {
      const { backend, server } = await start({ server: { apiKey: KEY, faults: [{ kind: 'status', status: 400, message: 'bad model' }] } });
      const error = await expectCode(backend.complete(REQUEST), 'bad_request');
      assert.match(error.message, /bad model/);
      assert.equal(server.requests.length, 1);
    });

    it('reports an unreachable server as connection', async () => {
      const { backend, server } = await start({ maxRetries: 0 });
      await server.close();
      await expectCode(backend.complete(REQUEST), 'connection');
    });
  });
}
