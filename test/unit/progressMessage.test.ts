import * as assert from 'node:assert/strict';
import type { RunProgress } from '../../shared/evolution';
import { progressMessage } from '../../extension/evolve/progressMessage';

describe("the line of a followed run's progress notification in the editor", () => {
  const progress: RunProgress = {
    runId: 'r',
    example: 'bad_sort',
    state: 'running',
    direction: 'maximize',
    objectiveName: 'speedup',
    objectiveUnit: 'x',
    seedObjective: 1,
    best: { id: 'b'.repeat(64), objective: 2.345, generation: 3, confirmed: false },
    generation: 3,
    evaluations: 40,
    failedEvaluations: 0,
    llmCalls: 20,
    tokens: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    patchYield: { firstTry: 0, afterRepair: 0, answers: 0 },
    evaluationsPerMinute: 10,
    elapsedMs: 1000,
    mutator: 'offline',
  };

  it('says the generation, the evaluations and the best', () => {
    assert.match(progressMessage(progress), /^generation 3 · 40 evaluations · best speedup 2\.3\dx?$/);
  });

  it('says what the run waits for that nobody provides (a daemon without workers)', () => {
    const notice = 'no worker on the queue serves evaluate tasks (none started, or they stopped)';
    assert.match(progressMessage({ ...progress, notice }), new RegExp(`· waiting: ${notice.replace(/[()]/g, '\\$&')}$`));
  });
});
