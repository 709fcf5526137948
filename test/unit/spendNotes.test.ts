/** What `evolve run` says about spend before it starts, with and without a budget. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigSchema } from '../../daemon/config';
import { prepareRun } from '../../daemon/evolution/controller/prepareRun';
import type { StopConditions } from '../../shared/runManifest';
import { BAD_SORT_DIR } from '../fixtures/evolveFixtures';

describe('the worst-case spend note before a run', () => {
  let projectDir: string;
  beforeEach(() => {
    projectDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-spend-'));
  });
  afterEach(() => fs.rmSync(projectDir, { recursive: true, force: true }));

  const spendNote = (stop: StopConditions): string => {
    const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
    const { notes } = prepareRun({ exampleDir: BAD_SORT_DIR, projectDir, stop, workers: 1 }, ConfigSchema.parse({}), env);
    return notes.find((note) => note.startsWith('worst-case spend')) ?? `no note in ${JSON.stringify(notes)}`;
  };

  it('is unbounded, and says how to cap it, when nothing limits the run', () => {
    assert.match(spendNote({ wallMs: 60_000 }), /^worst-case spend: unbounded .*--budget-tokens/);
  });

  it('names the budget that caps a run with no other limit', () => {
    assert.equal(spendNote({ wallMs: 60_000, budgetTokens: 50_000 }), 'worst-case spend: no evaluation, generation or call limit; the budget stops it at 50,000 tokens (--budget-tokens)');
  });

  it('gives the figures of a bounded run, and the budget beside them', () => {
    assert.match(spendNote({ evaluations: 4, budgetUsd: 0.5 }), /^worst-case spend: \d+ LLM calls, [\d,]+ tokens, \$\d+\.\d\d .*; the budget stops it at \$0\.50 \(--budget-usd\)$/);
  });
});
