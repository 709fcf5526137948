/**
 * `peagen evolve run examples/bad_sort` end to end, as a user runs it: the real CLI process,
 * real evaluations of the example (with --quick), and either no LLM at all (the offline
 * mutator) or the scripted bad_sort "model" behind a local server that speaks the OpenAI or
 * the Anthropic wire format, through the official SDKs.
 *
 * Speedups are timing measurements (±30% between runs on a loaded machine): the assertions
 * ask for large effects with a wide margin, never for an exact figure.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { programId } from '../../shared/programId';
import { RunDir } from '../../daemon/evolution/controller/runDir';
import { badSortResponder } from '../fixtures/badSortMoves';
import { BAD_SORT_DIR, EvolveProject, filesUnder, NO_CONFIRMATION, parseJson, readJournalEvents, readReportJson, type RunOutput, serverUsage } from '../fixtures/evolveFixtures';
import { startAnthropicServer, startOpenAiServer, type WireServer } from '../fixtures/llmWireServers';

const OPENAI_KEY = 'sk-test-evolve-run-0123456789abcdef';
const ANTHROPIC_KEY = 'sk-ant-test-evolve-run-fedcba9876543210';

interface EvalOutput {
  correct: boolean;
  objective: number | null;
}

/**
 * The report's promise about its best: correct on every measurement, the less favourable
 * measurement counts, and (when `confirmed`) measured twice, on two seeds, before it became
 * the best. A stop that cuts off a confirmation never admits the unconfirmed measurement
 * (test/unit/runState.test.ts), so every best was measured twice unless it is the seed.
 */
function assertBest(report: RunOutput, { confirmed }: { confirmed: boolean }): NonNullable<RunOutput['best']> {
  const best = report.best;
  assert.ok(best, 'the run has a best program');
  if (confirmed) {
    assert.equal(best.measurements.length, 2, `a new best is measured twice (a confirmation on another seed): ${JSON.stringify(best.measurements)}`);
    assert.notEqual(best.measurements[0]!.seed, best.measurements[1]!.seed, 'the confirmation uses another seed');
  }
  const values = best.measurements.map((m) => m.objective);
  assert.ok(values.length >= 1 && values.every((value): value is number => value !== null), 'every measurement is correct');
  assert.equal(best.objective, Math.min(...values), 'the lower measurement counts');
  assert.equal(programId(fs.readFileSync(best.file, 'utf8')), best.id, 'best/<program> holds the best program');
  return best;
}

/** No file of the run, nor anything the CLI printed, carries the key. */
function assertKeyNowhere(runDir: string, key: string, printed: string): void {
  const files = filesUnder(runDir);
  assert.ok(files.some((file) => path.basename(file) === 'llm.pack'), 'the LLM exchanges are recorded');
  for (const file of files) assert.ok(!fs.readFileSync(file, 'utf8').includes(key), `${path.relative(runDir, file)} contains the API key`);
  assert.ok(!printed.includes(key), 'the CLI printed the API key');
}

/** The report's LLM figures are the sum of the exchanges the run recorded (llm.pack). */
function assertReportMatchesRecordedExchanges(report: RunOutput): void {
  let calls = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const event of readJournalEvents(report.runDir)) {
    if (event.type !== 'proposal') continue;
    for (const hash of event.exchanges) {
      const exchange = new RunDir(report.runDir).getExchange(hash);
      calls++;
      inputTokens += exchange.usage.inputTokens;
      outputTokens += exchange.usage.outputTokens;
    }
  }
  assert.deepEqual({ calls: report.progress.llmCalls, ...report.progress.tokens }, { calls, inputTokens, outputTokens });
}

describe('peagen evolve run examples/bad_sort (real CLI, real evaluations)', function () {
  this.timeout(300_000);
  let project: EvolveProject;
  let server: WireServer | undefined;

  beforeEach(() => {
    project = new EvolveProject();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    project.cleanup();
  });

  it('without an LLM: says the offline mutator works, and finds a confirmed, correct, several-fold faster program', async () => {
    const result = await project.run(['--json', 'evolve', 'run', BAD_SORT_DIR, '--sync', '--evaluations', '8', '--quick', '--project', project.dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /mutator: offline — no LLM is configured/);
    const report = parseJson<RunOutput>(result);
    assert.equal(report.stopReason, 'evaluations');
    assert.equal(report.mutator, 'offline');
    assert.equal(report.progress.evaluations, 8);
    assert.equal(report.progress.llmCalls, 0);
    assert.deepEqual(readReportJson(report.runDir), (({ runDir: _, ...rest }) => rest)(report), 'report.json is what --json printed');
    assert.ok(fs.existsSync(path.join(report.runDir, 'report.md')));

    const best = assertBest(report, { confirmed: true });
    assert.ok(report.seed.objective !== null && report.seed.objective > 0);
    assert.equal(best.lineage[0]!.id, report.seed.id, 'the lineage starts at the seed');
    assert.equal(best.lineage.at(-1)!.id, best.id);

    // The best program, re-evaluated on its own by `peagen eval`, is correct and faster than the
    // seed, re-evaluated beside it on the same inputs: the medians of three pairs, each on other
    // inputs. One pair on a busy machine once read the seed at 1.99x itself and the best at 2.88x.
    const reevaluate = async (seed: number, file?: string): Promise<EvalOutput> => {
      const check = await project.run(['--json', 'eval', BAD_SORT_DIR, ...(file ? ['--program', file] : []), '--seed', String(seed), '--sync', '--quick']);
      assert.equal(check.code, 0, check.stderr);
      return parseJson<EvalOutput>(check);
    };
    const pairs: [EvalOutput, EvalOutput][] = [];
    for (const seed of [11, 12, 13]) pairs.push([await reevaluate(seed, best.file), await reevaluate(seed)]);
    for (const [again, seedAgain] of pairs) {
      assert.equal(again.correct, true);
      assert.ok(again.objective !== null && seedAgain.objective !== null);
    }
    const median = (values: number[]): number => [...values].sort((a, b) => a - b)[1]!;
    const again = median(pairs.map(([program]) => program.objective!));
    const seedAgain = median(pairs.map(([, seed]) => seed.objective!));
    assert.ok(again > 1.5 * seedAgain, `re-evaluated (medians of 3): ${again} vs the seed's ${seedAgain}`);
    // Measured (3 runs): the offline mutator deletes the selection sort (the bubble pass then
    // sorts), 4.7-5.6x the seed. Deleting only the final bubble pass is worth ~1.5-2x, so a
    // 2.5x floor demands a real improvement. The run measures the seed once, and one seed
    // measurement 1.75x too high made a 4.3x program 2.48x: the floor holds for the run's
    // figure or for the pairs measured again, independent measurements of the same programs.
    const improvements = [best.improvement ?? 0, again / seedAgain];
    assert.ok(Math.max(...improvements) >= 2.5, `best ${best.objective} vs seed ${report.seed.objective}: ${best.improvement}x; measured again ${improvements[1]!.toFixed(2)}x`);
  });

  it('with a scripted model on the OpenAI wire: reaches the target (about 10x the seed), and the key stays out of the run', async () => {
    // A helpful model (mostly improving moves, the default noise of malformed answers).
    server = await startOpenAiServer({ responder: badSortResponder({ seed: 7, improveProbability: 0.95, harmfulProbability: 0 }), latencyMs: 20, apiKey: OPENAI_KEY });
    // Measured: the target is reached after 13-23 evaluations (about 15-40 s); 48 leaves room.
    const result = await project.run(
      ['--json', 'evolve', 'run', BAD_SORT_DIR, ...NO_CONFIRMATION, '--sync', '--quick', '--evaluations', '48', '--target', '13', '--project', project.dir],
      { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: server.baseUrl },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /mutator: llm-patch on openai/);
    const report = parseJson<RunOutput>(result);
    assert.equal(report.stopReason, 'target', `stopped by ${report.stopReason} after ${report.progress.evaluations} evaluations, best ${report.best?.objective}`);
    assert.equal(report.mutator, 'llm-patch');
    const best = assertBest(report, { confirmed: true });
    assert.ok(best.objective >= 13);
    // 13 is about 10x a seed that measures near 1; the seed's own timing varies (0.6 to 1.5 on
    // a loaded machine), so the factor is checked loosely and the target exactly.
    assert.ok(best.improvement !== null && best.improvement >= 5, `${best.improvement}x`);
    // The target itself was reached by a confirmed program: both of its measurements at least 13.
    const events = readJournalEvents(report.runDir);
    const confirmedAtTarget = events.some(
      (event) =>
        event.type === 'evaluation' &&
        event.round === 'confirm' &&
        (event.evaluation.objective ?? 0) >= 13 &&
        events.some((first) => first.type === 'evaluation' && first.round === 'first' && first.job === event.job && (first.evaluation.objective ?? 0) >= 13),
    );
    assert.ok(confirmedAtTarget, 'a program measured twice at or above the target');
    // Every step is the model's (a call's child, or another answer of that call: a sibling), or a
    // candidate made from its children with no call (a split, a revert or a transplant of one of
    // its edits), and at least one step is a call's child.
    const steps = best.lineage.slice(1);
    assert.ok(steps.every((step) => (step.mutator === 'llm-patch' && step.model === 'openai/gpt-4o-mini') || ['sibling', 'split', 'revert', 'transplant'].includes(step.mutator)), JSON.stringify(best.lineage));
    assert.ok(steps.some((step) => step.mutator === 'llm-patch'), JSON.stringify(best.lineage));
    // The milestones are the factors the best passed over the seed. Which ones depends on the
    // seed's own measurement (a target of 13 is 8.7x a seed measured at 1.5), so they are
    // checked against the run's own improvement, not a fixed factor.
    assert.deepEqual(
      report.milestones.map((milestone) => milestone.factor),
      [2, 5, 10, 25, 50, 100].filter((factor) => factor <= best.improvement!),
      `milestones ${JSON.stringify(report.milestones)} for a best ${best.improvement}x the seed`,
    );
    assert.ok(report.milestones.every((milestone, i) => i === 0 || milestone.elapsedMs >= report.milestones[i - 1]!.elapsedMs), 'a higher factor is never reached earlier');

    assert.ok(server.requests.length > 0 && server.requests.every((request) => request.presentedKey === OPENAI_KEY), 'every call presented the key');
    assertReportMatchesRecordedExchanges(report);
    // The target stop cancels calls in flight, whose answers the run never sees: the server
    // may have answered a few more than the run recorded, never fewer.
    const answered = serverUsage(server);
    assert.ok(report.progress.llmCalls <= answered.calls && answered.calls - report.progress.llmCalls <= 6, `run ${report.progress.llmCalls} calls, server ${answered.calls}`);
    assertKeyNowhere(report.runDir, OPENAI_KEY, result.stdout + result.stderr);
  });

  it('with a scripted model on the OpenAI wire: the calls and tokens of the report are exactly what the server answered', async () => {
    server = await startOpenAiServer({ responder: badSortResponder({ seed: 3 }), latencyMs: 20, apiKey: OPENAI_KEY });
    const result = await project.run(['--json', 'evolve', 'run', BAD_SORT_DIR, ...NO_CONFIRMATION, '--sync', '--quick', '--evaluations', '4', '--project', project.dir], {
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: server.baseUrl,
    });
    assert.equal(result.code, 0, result.stderr);
    const report = parseJson<RunOutput>(result);
    assert.equal(report.stopReason, 'evaluations');
    assert.equal(report.progress.evaluations, 4);
    const answered = serverUsage(server);
    assert.equal(answered.calls, server.requests.length, 'no call was refused');
    assert.ok(answered.calls >= 4, 'at least one call per evaluated child');
    // A gentle stop lets every job finish: nothing the server answered goes unaccounted.
    assert.deepEqual({ calls: report.progress.llmCalls, ...report.progress.tokens }, answered);
    assertReportMatchesRecordedExchanges(report);
    assertKeyNowhere(report.runDir, OPENAI_KEY, result.stdout + result.stderr);
  });

  it('with a scripted model on the Anthropic wire (configured in peagen.json): evolves, accounts every token, keeps the key out', async () => {
    server = await startAnthropicServer({ responder: badSortResponder({ seed: 5 }), latencyMs: 20, apiKey: ANTHROPIC_KEY });
    // The Anthropic base URL is configurable only in peagen.json (not from the environment).
    const config = project.writeConfig({ llm: { backends: [{ name: 'claude', provider: 'anthropic', model: 'claude-3-5-haiku-latest', baseUrl: server.baseUrl }] } });
    const result = await project.run(['--json', '--config', config, 'evolve', 'run', BAD_SORT_DIR, ...NO_CONFIRMATION, '--sync', '--quick', '--evaluations', '3', '--project', project.dir], {
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /mutator: llm-patch on claude \(claude-3-5-haiku-latest\)/);
    const report = parseJson<RunOutput>(result);
    assert.equal(report.stopReason, 'evaluations');
    assert.equal(report.progress.evaluations, 3);
    // (@anthropic-ai/sdk 1.x presents the key as a Bearer token, not in x-api-key.)
    assert.ok(server.requests.length >= 3 && server.requests.every((request) => request.presentedKey === ANTHROPIC_KEY), 'every call presented the key');
    assert.deepEqual({ calls: report.progress.llmCalls, ...report.progress.tokens }, serverUsage(server));
    assertReportMatchesRecordedExchanges(report);
    const children = readJournalEvents(report.runDir).filter((event) => event.type === 'proposal' && event.ok);
    assert.ok(children.length >= 3 && children.every((event) => event.type === 'proposal' && event.model?.startsWith('claude/')));
    assert.ok(report.best && report.best.objective > 0);
    assertKeyNowhere(report.runDir, ANTHROPIC_KEY, result.stdout + result.stderr);
  });
});
