/**
 * An objective that is a score (spread_points: a percentage, maximized) reads as a score
 * everywhere a user sees it: the CLI's progress and end lines, report.md, the default niches,
 * the Evolution view, proposal titles and the end-of-run notification say "score 67.7%
 * (seed 61.5%)" or "+6.2 points over the seed's 61.5%", never "1.1x". A speedup keeps its
 * factor ("2.6x the seed"), word for word as before.
 */
import * as assert from 'node:assert/strict';
import type { RunProgress } from '../../shared/evolution';
import { comparesByFactor, objectiveValue, seedComparison, shortComparison, type ObjectiveTerms } from '../../shared/objectiveText';
import { progressLine } from '../../daemon/cli/runProgress';
import { renderReportMarkdown, type RunReport } from '../../daemon/evolution/controller/report';
import { FeatureSpace, objectiveEdges } from '../../daemon/evolution/evodb/features';
import { RunState, SEARCH_POLICY } from '../../daemon/evolution/controller/RunState';
import type { RunSettings } from '../../shared/runManifest';
import { nicheLabel } from '../../shared/nicheLabel';
import { eliteRow, formatObjective, lineageSteps, nicheGroups, nicheRow, runRow } from '../../extension/evolutionView/evolutionModel';
import { runEndSummary } from '../../extension/evolve/runEndSummary';
import { programTitle } from '../../extension/evolve/programMapping';

const score: ObjectiveTerms = { name: 'score', direction: 'maximize', unit: '%' };
const speedup: ObjectiveTerms = { name: 'speedup', direction: 'maximize', unit: 'x' };
const combined: ObjectiveTerms = { name: 'combined_score', direction: 'maximize' };
const time: ObjectiveTerms = { name: 'time', direction: 'minimize', unit: 'ms' };

function progress(terms: ObjectiveTerms, seed: number | null, best: number | null, extra: Partial<RunProgress> = {}): RunProgress {
  return {
    runId: 'r1',
    example: 'spread_points',
    state: 'finished',
    direction: terms.direction,
    objectiveName: terms.name,
    ...(terms.unit && { objectiveUnit: terms.unit }),
    seedObjective: seed,
    best: best === null ? null : { id: 'b'.repeat(64), objective: best, generation: 2, confirmed: true },
    generation: 3,
    evaluations: 30,
    failedEvaluations: 15,
    llmCalls: 0,
    tokens: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    patchYield: { firstTry: 0, afterRepair: 0, answers: 0 },
    evaluationsPerMinute: 300,
    elapsedMs: 6000,
    mutator: 'offline',
    ...extra,
  };
}

function report(terms: ObjectiveTerms, seed: number, best: number, llmCalls = 0): RunReport {
  const gain = best - seed;
  return {
    runId: 'r1',
    example: 'spread_points',
    objectiveName: terms.name,
    ...(terms.unit && { objectiveUnit: terms.unit }),
    direction: terms.direction,
    stopReason: 'evaluations',
    mutator: 'offline',
    executor: 'bwrap',
    seed: { id: 'a'.repeat(64), objective: seed },
    best: {
      id: 'b'.repeat(64),
      file: '/runs/r1/best/spread_points.py',
      objective: best,
      measurements: [{ seed: 1, objective: best + 0.4 }, { seed: 2, objective: best }],
      generation: 2,
      improvement: best / seed,
      lineage: [
        { id: 'a'.repeat(64), mutator: 'seed', objective: seed, generation: 0 },
        { id: 'b'.repeat(64), mutator: 'offline', objective: best, generation: 2 },
      ],
    },
    progress: progress(terms, seed, best, { llmCalls }),
    niches: [{ key: 'score=4|codeLength=5', label: 'score 65–70% · 2500–3000 characters', islands: 1, best: { id: 'b'.repeat(64), objective: best } }],
    parentWasBestShare: 0.5,
    failedEvaluationShare: 0.5,
    duplicatesSkipped: 0,
    failedProposals: 0,
    patchYieldByModel: [],
    milestones: [],
    timeline: [],
    engineOverheadMsPerCandidate: 1,
    economics: {
      callsPerEvaluation: llmCalls > 0 ? llmCalls / 30 : null,
      callsByKind: { first: { calls: llmCalls, successes: 0 }, format: { calls: 0, successes: 0 }, known: { calls: 0, successes: 0 }, evaluation: { calls: 0, successes: 0 } },
      duplicates: { exact: 0, normalized: 0 },
      splits: { jobs: 0, improvements: 0 },
      reverts: { jobs: 0, kept: 0 },
      transplants: { jobs: 0, improvements: 0 },
      siblings: { jobs: 0, improvements: 0 },
      doublingsPer100Calls: llmCalls > 0 ? (100 * Math.log2(best / seed)) / llmCalls : null,
      doublingsPerUsd: null,
      gainPer100Calls: llmCalls > 0 ? (100 * gain) / llmCalls : null,
    },
  };
}

describe('objectives that are scores, not speedups', () => {
  it('compares a score by difference and a speedup, a time or a cost by factor', () => {
    assert.equal(comparesByFactor(score), false);
    assert.equal(comparesByFactor(combined), false, 'a maximized objective without a unit (OpenEvolve combined_score) is a score');
    assert.equal(comparesByFactor(speedup), true);
    assert.equal(comparesByFactor({ name: 'speedup', direction: 'maximize' }), true, 'a speedup declared before units were');
    assert.equal(comparesByFactor(time), true);
  });

  it('words a value and its comparison with the seed in the objective’s terms', () => {
    assert.equal(objectiveValue(67.6881, score), '67.688%');
    assert.equal(objectiveValue(12, time), '12.000 ms');
    assert.equal(objectiveValue(2.3456, speedup), '2.346', 'a speedup’s x is kept for its factor');
    assert.equal(objectiveValue(null, score), '—');
    assert.equal(seedComparison(score, 61.517, 67.688), "+6.171 points over the seed's 61.517%");
    assert.equal(seedComparison(score, 61.5, 60), "−1.500 points under the seed's 61.500%");
    assert.equal(seedComparison(combined, 0, 0.25), "+0.250 over the seed's 0.000", 'a score of 0 still compares');
    assert.equal(seedComparison(speedup, 1.04, 2.704), "2.6x the seed's 1.040");
    assert.equal(seedComparison(time, 30, 10), "3.0x the seed's 30.000 ms");
    assert.equal(shortComparison(score, 61.517, 67.688), 'seed 61.517%');
    assert.equal(shortComparison(speedup, 1, 1.7), '1.7x');
    assert.equal(shortComparison(speedup, 0, 1.7), undefined, 'no factor over a seed of 0');
  });

  it('the CLI progress line shows a score next to the seed’s, a speedup as before', () => {
    assert.match(progressLine(progress(score, 61.517, 67.688)), /^best score 67\.688% \(seed 61\.517%\) · gen 3 · 30 evals \(15 failed\)/);
    assert.match(progressLine(progress(speedup, 1.2, 2.4)), /^best speedup 2\.400 \(2\.0x\) · gen 3/);
    // Doublings per 100 calls mean nothing for a score.
    assert.doesNotMatch(progressLine(progress(score, 50, 80, { llmCalls: 10 })), /doublings/);
    assert.match(progressLine(progress(speedup, 1, 4, { llmCalls: 10 })), /20\.00 doublings\/100 calls/);
  });

  it('report.md words a score’s result, lineage, niches and gain per call in points, without factor milestones', () => {
    const text = renderReportMarkdown(report(score, 61.517, 67.688, 20));
    assert.match(text, /- Seed: score 61\.517%\./);
    assert.match(text, /- Best: score 67\.688%, \*\*\+6\.171 points over the seed's 61\.517%\*\* \(generation 2\)/);
    assert.match(text, /- Measurements of the best: 68\.088% \(seed 1\), 67\.688% \(seed 2\); the lower counts\./);
    assert.match(text, /the score is what the evaluator computed from the program's answers/);
    assert.doesNotMatch(text, /timed output/);
    assert.match(text, /\| generation \| mutator \| model \| score \| program \|/);
    assert.match(text, /\| 2 \| offline \| {2}\| 67\.688% \|/);
    assert.match(text, /\| ★ score 65–70% · 2500–3000 characters \| 67\.688% \| 1 \|/);
    assert.match(text, /Improvement per call: \+30\.855 points of score per 100 calls\./);
    assert.doesNotMatch(text, /\dx\b/, 'no factor anywhere');
  });

  it('report.md keeps a speedup’s factor and doublings', () => {
    const text = renderReportMarkdown(report(speedup, 1.04, 2.704, 20));
    assert.match(text, /- Best: speedup 2\.704, \*\*2\.6x\*\* the seed \(generation 2\)/);
    assert.match(text, /doublings of the speedup per 100 calls/);
    assert.match(text, /every timed output was checked/);
  });

  it('default niches: a percentage every 5 points, another score every quarter doubling, a speedup every doubling', () => {
    assert.deepEqual(objectiveEdges(score).slice(0, 3), [5, 10, 15]);
    const scoreSpace = FeatureSpace.defaults('maximize', { name: 'score', unit: '%' });
    const label = (space: FeatureSpace, objective: number, unit?: string): string =>
      nicheLabel(space.nicheKey(space.features({ code: 'x'.repeat(2600), objective })), { objectiveName: 'score', objectiveUnit: unit, features: space.descriptors });
    // The seed and the best of a spread_points run land in different niches (one doubling would hold both).
    assert.equal(label(scoreSpace, 61.5, '%'), 'score 60–65% · 2500–3000 characters');
    assert.equal(label(scoreSpace, 67.7, '%'), 'score 65–70% · 2500–3000 characters');
    const plain = FeatureSpace.defaults('maximize', { name: 'combined_score' });
    assert.notEqual(plain.features({ code: '', objective: 0.52 })['objective'], plain.features({ code: '', objective: 0.87 })['objective'], 'a score from 0.52 to 0.87 moves to another niche');
    // A speedup's grid is the one archives always had.
    assert.deepEqual(FeatureSpace.defaults('maximize', { name: 'speedup', unit: 'x' }).descriptors, FeatureSpace.defaults('maximize').descriptors);
    assert.deepEqual(objectiveEdges(speedup), [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
  });

  it('a run of an example that declares no niches gets the grid of its objective', () => {
    const base: Omit<RunSettings, 'direction' | 'objectiveName'> = { islands: 1, selector: 'epsilon-greedy', mutator: 'offline', usesLlm: false, backends: [], routing: 'weighted', childrenPerGeneration: 2, inspirations: 2, repairFailedChildren: false, confirmBest: true, seed: 1, policy: SEARCH_POLICY };
    const objectiveBins = (state: RunState): number[] => state.archive.space.descriptors.find((d) => d.from === 'objective')!.bins;
    assert.deepEqual(objectiveBins(new RunState({ ...base, direction: 'maximize', objectiveName: 'score', objectiveUnit: '%' })), objectiveEdges(score));
    assert.deepEqual(objectiveBins(new RunState({ ...base, direction: 'maximize', objectiveName: 'speedup', objectiveUnit: 'x' })), objectiveEdges(speedup));
    const declared = [{ name: 'score', from: 'objective', bins: [60, 70] }];
    assert.deepEqual(objectiveBins(new RunState({ ...base, direction: 'maximize', objectiveName: 'score', objectiveUnit: '%', features: declared })), [60, 70], 'declared niches win');
  });

  it('the Evolution view, proposal titles and the end notification show the score in its unit', () => {
    assert.equal(formatObjective(67.6881, '%'), '67.69%');
    assert.equal(formatObjective(12.34, 'x'), '12.34', 'a speedup stays as the view always showed it');
    const row = runRow({ runId: 'r1', example: 'spread_points', dir: '/w', state: 'finished', startedAt: '2026-01-01T00:00:00Z', best: 67.69, evaluations: 30 }, progress(score, 61.517, 67.688));
    assert.match(row.description, /^finished · score 67\.69% · 30 evaluations/);
    assert.match(row.tooltip, /Best score: 67\.69% \(seed 61\.52%\)/);
    const seedStep = { id: 'a'.repeat(64), objective: 61.517, correct: true, lineage: { parents: [], generation: 0, mutator: 'seed', exchanges: [], seed: 1, repairs: 0, island: 0, createdAt: '' } };
    const bestStep = { ...seedStep, id: 'b'.repeat(64), objective: 67.688, lineage: { ...seedStep.lineage, parents: ['a'.repeat(64)], generation: 2, mutator: 'offline' } };
    assert.deepEqual(lineageSteps([seedStep], bestStep, 'score', '%').map((step) => step.label), ['score 61.52%', 'score 67.69%']);
    // A niche and its elite, on the example's declared 5-point grid.
    const space = FeatureSpace.defaults('maximize', { name: 'score', unit: '%' });
    const niche = space.nicheKey(space.features({ code: 'x'.repeat(2600), objective: 67.688 }));
    const program = { ...bestStep, code: '', measurements: [], features: {}, niche };
    const [group] = nicheGroups({ direction: 'maximize', bestId: program.id, elites: [{ niche, island: 0, program }] });
    const axes = { objectiveName: 'score', objectiveUnit: '%', features: space.descriptors };
    const nicheText = nicheRow(group!, axes);
    assert.equal(nicheText.label, 'score 65–70% · 2500–3000 characters');
    assert.equal(nicheText.description, 'score 67.69% · ★ best');
    const eliteText = eliteRow(group!.elites[0]!, axes, true);
    assert.equal(eliteText.label, '★ score 67.69%');
    assert.match(eliteText.tooltip, /^The best program of the run\nscore: 67\.69%\n/);
    assert.equal(programTitle('score', { objective: 67.688, lineage: bestStep.lineage }, '%'), 'score 67.7% (gen 2, offline)');
    assert.equal(programTitle('speedup', { objective: 12.3, lineage: bestStep.lineage }, 'x'), 'speedup 12.3 (gen 2, offline)');
    assert.equal(runEndSummary(progress(score, 61.517, 67.688, { stopReason: 'evaluations' })), "Peagen: run r1 finished (evaluations): 30 evaluations, best score 67.688% (+6.171 points over the seed's 61.517%).");
    assert.equal(runEndSummary(progress(speedup, 1.2, 2.4)), "Peagen: run r1 finished: 30 evaluations, best speedup 2.400 (2.0x the seed's 1.200).");
  });
});
