import * as assert from 'node:assert/strict';
import { costOf, defaultPricing, estimateTokens, isLocalUrl, pricingFor, worstCaseSpend } from '../../daemon/evolution/llm/pricing';

describe('pricing', () => {
  it('prices a call from its usage in USD per million tokens', () => {
    assert.equal(costOf({ inputTokens: 1_000_000, outputTokens: 0 }, { inputPerMTok: 0.15, outputPerMTok: 0.6 }), 0.15);
    assert.ok(Math.abs(costOf({ inputTokens: 1000, outputTokens: 2000 }, { inputPerMTok: 3, outputPerMTok: 15 }) - 0.033) < 1e-12);
    assert.equal(costOf({ inputTokens: 1000, outputTokens: 2000 }, undefined), 0, 'an unknown price counts nothing');
  });

  it('finds a dated model by its longest known prefix', () => {
    assert.deepEqual(defaultPricing('gpt-4o-mini-2024-07-18'), defaultPricing('gpt-4o-mini'));
    assert.notDeepEqual(defaultPricing('gpt-4o-mini-2024-07-18'), defaultPricing('gpt-4o'));
    assert.deepEqual(defaultPricing('claude-3-5-haiku-latest'), { inputPerMTok: 0.8, outputPerMTok: 4 });
    assert.equal(defaultPricing('qwen2.5-coder:7b'), undefined);
  });

  it('lets the configured price override the table, and counts local servers as free', () => {
    const pricing = { inputPerMTok: 9, outputPerMTok: 99 };
    assert.deepEqual(pricingFor('gpt-4o-mini', pricing), pricing);
    assert.deepEqual(pricingFor('gpt-4o-mini'), defaultPricing('gpt-4o-mini'));
    assert.deepEqual(pricingFor('llama3', undefined, 'http://127.0.0.1:11434/v1'), { inputPerMTok: 0, outputPerMTok: 0 });
    assert.equal(pricingFor('llama3', undefined, 'https://openrouter.ai/api/v1'), undefined);
    assert.equal(pricingFor('llama3'), undefined);
  });

  it('bounds a run by (input tokens + max_tokens) × calls', () => {
    const bound = worstCaseSpend({ calls: 100, inputTokensPerCall: 2000, maxTokens: 4096, pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
    assert.equal(bound.tokens, 609_600);
    assert.ok(Math.abs(bound.usd - (200_000 * 1 + 409_600 * 2) / 1e6) < 1e-12);
    assert.deepEqual(worstCaseSpend({ calls: 0, inputTokensPerCall: 2000, maxTokens: 4096, pricing: { inputPerMTok: 1, outputPerMTok: 2 } }), { tokens: 0, usd: 0 });
  });

  it('estimates tokens as ceil(chars / 4)', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('abcd'), 1);
    assert.equal(estimateTokens('abcde'), 2);
    assert.equal(estimateTokens('x'.repeat(4000)), 1000);
  });

  it('tells local and private-network base URLs from public ones', () => {
    for (const url of ['http://localhost:11434/v1', 'http://127.0.0.1:8000/v1', 'http://[::1]:1234/v1', 'http://192.168.1.20:8000/v1', 'http://10.0.0.5/v1', 'http://172.20.0.2:11434', 'http://gpu-box.local:8000/v1']) {
      assert.equal(isLocalUrl(url), true, url);
    }
    for (const url of ['https://api.openai.com/v1', 'https://openrouter.ai/api/v1', 'http://172.32.0.1/v1', 'http://8.8.8.8/', 'not a url', 'https://fdexample.com/v1']) {
      assert.equal(isLocalUrl(url), false, url);
    }
  });
});
