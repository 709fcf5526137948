/**
 * Budget guardrails of `peagen evolve run`, against the scripted bad_sort model on the OpenAI
 * wire: the worst-case spend is printed before the run starts, and the hard limits hold by
 * what the server actually answered, not only by what the run believes it spent. The runs are
 * bad_sort_ops (the same program, so the same moves, judged by counted instructions in a
 * fraction of a second): the limits are the point, not the timing.
 */
import * as assert from 'node:assert/strict';
import { badSortResponder } from '../fixtures/badSortMoves';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { EvolveProject, NO_CONFIRMATION, parseJson, type RunOutput, serverUsage } from '../fixtures/evolveFixtures';
import { startOpenAiServer, type WireServer } from '../fixtures/llmWireServers';

const WORST_CASE = /worst-case spend: (\d+) LLM calls, ([\d,]+) tokens, \$(\d+\.\d\d)/;

describe('peagen evolve run budget limits (real CLI, scripted model)', function () {
  this.timeout(300_000);
  let project: EvolveProject;
  let server: WireServer;

  beforeEach(async () => {
    project = new EvolveProject();
    server = await startOpenAiServer({ responder: badSortResponder({ seed: 2 }), latencyMs: 20 });
  });
  afterEach(async () => {
    await server.close();
    project.cleanup();
  });

  const evolve = (evaluations: number, ...limits: string[]) =>
    project.run(['--json', 'evolve', 'run', badSortOpsDir(), ...NO_CONFIRMATION, '--sync', '--quick', '--evaluations', String(evaluations), ...limits, '--project', project.dir], { OPENAI_BASE_URL: server.baseUrl });

  /** The worst-case line, which must come before the run starts. */
  function worstCase(stderr: string): { calls: number; tokens: number } {
    const match = WORST_CASE.exec(stderr);
    assert.ok(match, `no worst-case spend line in:\n${stderr}`);
    const starting = stderr.indexOf('starting run');
    assert.ok(starting > 0 && match.index < starting, 'the worst case is printed before the run starts');
    return { calls: Number(match[1]), tokens: Number(match[2]!.replace(/,/g, '')) };
  }

  it('--max-llm-calls 5: stops by max_llm_calls after exactly 5 calls (hard, but not early), as the server counted them', async () => {
    const result = await evolve(20, '--max-llm-calls', '5');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(worstCase(result.stderr).calls, 5, 'the call limit bounds the worst case');
    const report = parseJson<RunOutput>(result);
    assert.equal(report.stopReason, 'max_llm_calls');
    assert.equal(report.progress.llmCalls, 5, 'the last jobs get fewer repairs so that their worst case fits: every allowed call is made');
    assert.equal(server.requests.length, 5, `the server saw ${server.requests.length} calls`);
    assert.equal(serverUsage(server).calls, report.progress.llmCalls);
    assert.ok(report.progress.evaluations < 20);
  });

  it('--budget-tokens: stops by budget_tokens, and never spends more tokens than the budget', async () => {
    // About a dozen calls of the scripted model: enough to show the last jobs trimmed to fit.
    const budget = 30_000;
    // An evaluation limit far out of the budget's reach: candidates made with no call (splits,
    // reverts, transplants) are evaluations that spend no tokens, so a tight one could bind first.
    const result = await evolve(200, '--budget-tokens', String(budget));
    assert.equal(result.code, 0, result.stderr);
    // 200 evaluations (each possibly followed by a repair job), 5 calls per job (1 + 2 format repairs + 2 re-asks).
    const worst = worstCase(result.stderr);
    assert.equal(worst.calls, 200 * 2 * 5);
    assert.ok(worst.tokens > budget, 'the budget, not the evaluation limit, binds');
    const report = parseJson<RunOutput>(result);
    assert.equal(report.stopReason, 'budget_tokens');
    const spent = report.progress.tokens.inputTokens + report.progress.tokens.outputTokens;
    assert.ok(spent > 0 && spent <= budget, `spent ${spent} of ${budget}`);
    const answered = serverUsage(server);
    assert.ok(answered.inputTokens + answered.outputTokens <= budget, `the server answered ${answered.inputTokens + answered.outputTokens} tokens`);
    assert.equal(answered.inputTokens + answered.outputTokens, spent);
  });
});
