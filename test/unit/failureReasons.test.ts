/**
 * Why children failed, as the end-of-run summary and report.md say it: the journal's failures
 * grouped by their kind and first line, counted, the most frequent first.
 */
import * as assert from 'node:assert/strict';
import { failureReasonsOf, normaliseReason, reasonsLine } from '../../daemon/evolution/controller/failureReasons';
import { offlineAdviceText, offlineFoundNothing } from '../../daemon/evolution/controller/modelAdvice';
import { renderReportMarkdown, type RunReport } from '../../daemon/evolution/controller/report';
import { runProgress } from '../fixtures/runProgress';

function failedEvaluation(reason: string, message: string, wallMs = 100): object {
  return { type: 'evaluation', job: 1, childId: 'c', round: 'first', seed: 1, evaluation: { correct: false, objective: null, direction: 'maximize', metrics: {}, failure: { reason, message }, executor: 'process', exitCode: 1, wallMs } };
}

const noApply = { type: 'proposal', job: 2, ok: false, reason: 'no_match', message: 'The search text of block 1 was not found in the program.\nBlock 1 searched for …' };

describe('failure reasons from the journal', () => {
  it('groups and counts, the most frequent first: patches that did not apply, failing tests by name, timeouts by their limit', () => {
    const tests = (name: string): object =>
      failedEvaluation('incorrect', `the project's tests failed:\n======\nFAIL: ${name} (test_mod.Tests.${name})\n------\nAssertionError: 3 != 4`);
    const events = [
      { type: 'seed', program: {} },
      ...Array.from({ length: 12 }, () => noApply),
      tests('test_x'),
      tests('test_x'),
      tests('test_x'),
      failedEvaluation('timeout', 'the evaluation ran past its deadline and was killed', 300_140),
      { type: 'evaluation', job: 9, childId: 'ok', round: 'first', seed: 1, evaluation: { correct: true, objective: 2, direction: 'maximize', metrics: {}, executor: 'process', exitCode: 0, wallMs: 5 } },
      { type: 'abandon', job: 3, reason: 'stopped: evaluations' },
    ];
    const groups = failureReasonsOf(events);
    assert.deepEqual(
      groups.map((group) => [group.count, group.reason, group.stage]),
      [
        [12, 'the patch did not apply', 'proposal'],
        [3, 'tests failed: test_x', 'evaluation'],
        [1, 'timed out after 300 s', 'evaluation'],
      ],
    );
    assert.equal(reasonsLine(groups), '12 the patch did not apply · 3 tests failed: test_x · 1 timed out after 300 s');
  });

  it('groups the same exception by its kind and the same message whatever its numbers, quoted names and paths', () => {
    const events = [
      failedEvaluation('incorrect', "input #1 (edge, n=1): raised NameError: name '_slow' is not defined (line 74 of the program)"),
      failedEvaluation('incorrect', "input #2 (edge, n=2): raised NameError: name 'b' is not defined (line 63 of the program)"),
      failedEvaluation('incorrect', 'input #0 (edge, n=0): output has 0 elements, input has 1'),
      failedEvaluation('incorrect', 'input #4 (random, n=50): output has 49 elements, input has 50'),
      failedEvaluation('crash', 'the evaluator exited with code 1 without metrics'),
      { type: 'abandon', job: 7, reason: 'the evaluate task failed: sandbox_failed: cannot open /tmp/peagen-ab12/x: ENOENT' },
      { type: 'abandon', job: 8, reason: 'the evaluate task failed: sandbox_failed: cannot open /tmp/peagen-cd34/x: ENOENT' },
    ];
    const groups = failureReasonsOf(events);
    assert.deepEqual(
      groups.map((group) => [group.count, group.reason]),
      [
        [2, 'raised NameError'],
        [2, 'output has N elements, input has N'],
        [2, 'the evaluate task failed: sandbox_failed: cannot open <path>: ENOENT'],
        // One of a kind keeps its own words, numbers and all.
        [1, 'the evaluator exited with code 1 without metrics'],
      ],
    );
    assert.equal(normaliseReason('line 12 of "/home/u/x.py" took 3.5 s'), 'line N of … took N s');
    assert.match(reasonsLine(groups), / \(and 1 more for 1 other reason\)$/);
  });

  it('never passes a candidate\'s control characters on to the terminal', () => {
    const [group] = failureReasonsOf([failedEvaluation('incorrect', 'output is \x1b[2J\x1b]0;owned\x07 wrong'), failedEvaluation('incorrect', "the project's tests failed:\nFAIL: test_\x1b[31mred (m.T)")]);
    assert.equal(group!.reason, 'output is  [2J ]0;owned  wrong');
    assert.ok(failureReasonsOf([failedEvaluation('incorrect', "the project's tests failed:\nFAIL: test_\x1b[31mred (m.T)")]).every((g) => !/\p{Cc}/u.test(g.reason)));
  });

  it('skips what it cannot read and what is not a failure, and counts nothing for a clean run', () => {
    const events = [null, 'text', 42, { type: 'evaluation', evaluation: 'nope' }, { type: 'proposal', ok: true }, { type: 'abandon', job: 1, reason: 'stopped: wall_time' }];
    assert.deepEqual(failureReasonsOf(events), []);
    assert.equal(reasonsLine([]), '');
  });

  it('report.md lists the reasons with their counts', () => {
    const markdown = renderReportMarkdown(reportWith({ failureReasons: failureReasonsOf([noApply, noApply, failedEvaluation('timeout', 'killed', 5_000)]) }));
    assert.match(markdown, /## Why children failed/);
    assert.match(markdown, /\| 2 \| the patch did not apply \| no child \|/);
    assert.match(markdown, /\| 1 \| timed out after 5 s \| evaluation \|/);
  });
});

describe('a run of the offline mutator that found nothing', () => {
  it('says what the offline mutator cannot do and how to add a model, with the real settings', () => {
    const nothing = reportWith({ mutator: 'offline' });
    assert.equal(offlineFoundNothing(nothing), true);
    const text = offlineAdviceText();
    assert.match(text, /cannot change an algorithm/);
    for (const setting of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', '"baseUrl"', 'Ollama', 'vLLM']) assert.ok(text.includes(setting), `the advice names ${setting}`);
    const markdown = renderReportMarkdown(nothing);
    assert.match(markdown, /## Without a model/);
    assert.match(markdown, /OPENAI_BASE_URL/);
  });

  it('says nothing of the kind when the run improved, or when a model did the work', () => {
    const improved = reportWith({ mutator: 'offline', best: { ...baseBest, id: 'better', objective: 2 } });
    assert.equal(offlineFoundNothing(improved), false);
    assert.doesNotMatch(renderReportMarkdown(improved), /Without a model/);
    assert.equal(offlineFoundNothing(reportWith({ mutator: 'llm-patch' })), false);
    // Minimizing: a lower time is the gain.
    assert.equal(offlineFoundNothing(reportWith({ mutator: 'offline', direction: 'minimize', best: { ...baseBest, id: 'slower', objective: 1.5 } })), true);
  });
});

const baseBest: NonNullable<RunReport['best']> = { id: 'seed', file: '/x/best/p.py', objective: 1, measurements: [{ seed: 1, objective: 1 }], generation: 0, improvement: 1, lineage: [] };

function reportWith(overrides: Partial<RunReport>): RunReport {
  return {
    runId: 'r',
    example: 'e',
    objectiveName: 'speedup',
    direction: 'maximize',
    stopReason: 'evaluations',
    mutator: 'offline',
    seed: { id: 'seed', objective: 1 },
    best: baseBest,
    progress: runProgress({ state: 'finished', best: null, generation: 1, evaluations: 3, failedEvaluations: 3, evaluationsPerMinute: 1, elapsedMs: 1000 }),
    parentWasBestShare: 0,
    failedEvaluationShare: 1,
    duplicatesSkipped: 0,
    failedProposals: 0,
    patchYieldByModel: [],
    milestones: [],
    timeline: [],
    engineOverheadMsPerCandidate: 0,
    economics: {
      callsPerEvaluation: null,
      callsByKind: { first: { calls: 0, successes: 0 }, format: { calls: 0, successes: 0 }, known: { calls: 0, successes: 0 }, evaluation: { calls: 0, successes: 0 } },
      duplicates: { exact: 0, normalized: 0 },
      splits: { jobs: 0, improvements: 0 },
      reverts: { jobs: 0, kept: 0 },
      transplants: { jobs: 0, improvements: 0 },
      siblings: { jobs: 0, improvements: 0 },
      doublingsPer100Calls: null,
      doublingsPerUsd: null,
    },
    ...overrides,
  };
}
