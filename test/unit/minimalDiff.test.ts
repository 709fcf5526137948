/**
 * Minimal-diff reduction of a best: the seed → best line changes, the programs between the two,
 * and the greedy drop that keeps 90% of the gain within a budget of evaluations. The journaled
 * outcome feeds the run state (snapshot, resume) like any other event.
 */
import * as assert from 'node:assert/strict';
import type { Evaluation } from '../../shared/evaluation';
import type { Program } from '../../shared/evolution';
import { programId } from '../../shared/programId';
import { changedLines, dropOrder, lineDiff, withChanges } from '../../daemon/evolution/reduce/minimalDiff';
import { reduceBest } from '../../daemon/evolution/reduce/reduceBest';
import { bestReductionOf, checksOf } from '../../daemon/evolution/reduce/bestReduction';
import { reductionSummary } from '../../daemon/evolution/controller/report';
import type { ReduceEvent } from '../../daemon/evolution/runEvents';
import { RunState, SEARCH_POLICY } from '../../daemon/evolution/controller/RunState';
import { applyEvent } from '../../daemon/evolution/controller/applyEvent';
import type { RunSettings } from '../../shared/runManifest';

const lines = (...parts: string[]): string => parts.map((line) => `${line}\n`).join('');
const SEED = lines('def bad_sort(xs):', '    out = list(xs)', '    slow(out)', '    return out', '', 'def helper():', '    return 1');
/** The real improvement (slow → sort, 1 line) and a useless edit (a comment and a no-op, 2 lines). */
const BEST = lines('def bad_sort(xs):', '    out = list(xs)', '    out.sort()', '    return out', '', 'def helper():', '    # the helper', '    unused = 0', '    return 1');

function evaluation(objective: number | null, metrics: Record<string, number> = {}): Evaluation {
  return { correct: objective !== null, objective, direction: 'maximize', metrics, executor: 'process', exitCode: 0, wallMs: 5 };
}

function best(code: string, objective: number, seeds = [1, 2]): Pick<Program, 'id' | 'code' | 'objective' | 'measurements'> {
  return { id: programId(code), code, objective, measurements: seeds.map((seed) => ({ seed, objective, wallMs: 5 })) };
}

const SPEEDUP = { name: 'speedup', direction: 'maximize' as const, unit: 'x' };

describe('minimal-diff reduction', () => {
  it('cuts the seed → best diff into changes; keeping all gives the best, none the seed, byte for byte', () => {
    const diff = lineDiff(SEED, BEST);
    assert.equal(diff.changes.length, 2);
    assert.equal(withChanges(diff, new Set([0, 1])), BEST);
    assert.equal(withChanges(diff, new Set()), SEED);
    assert.equal(changedLines(diff, [0, 1]), 3);
    assert.deepEqual(dropOrder(diff), [1, 0], 'the larger change is tried first');
    assert.equal(withChanges(diff, new Set([0])), SEED.replace('    slow(out)', '    out.sort()'));
  });

  it('never edits or drops a line the best left unchanged (a bundle header stays), whatever the changes kept', () => {
    const header = (file: string): string => `=== peagen file: ${file} ===`;
    const seed = lines(header('a.py'), 'x = 1', 'y = 2', header('b.py'), 'z = 3');
    const bestCode = lines(header('a.py'), 'x = 10', 'y = 2', header('b.py'), 'z = 30', 'w = 4');
    const diff = lineDiff(seed, bestCode);
    for (const keep of [[], [0], [1], [0, 1]]) {
      const candidate = withChanges(diff, new Set(keep)).split('\n');
      assert.deepEqual(candidate.filter((line) => line.startsWith('=== peagen file')), [header('a.py'), header('b.py')]);
      assert.ok(candidate.includes('y = 2'));
    }
    // Line endings and a missing final newline are the texts' own.
    const crlf = lineDiff('a\r\nb\r\nc', 'a\r\nB\r\nc');
    assert.equal(withChanges(crlf, new Set([0])), 'a\r\nB\r\nc');
    assert.equal(withChanges(crlf, new Set()), 'a\r\nb\r\nc');
  });

  it('drops the useless edit and keeps the one that buys the gain, measured with the best\'s own seeds', async () => {
    const real = SEED.replace('    slow(out)', '    out.sort()');
    const asked: { code: string; seed: number }[] = [];
    const reduction = await reduceBest({
      seed: { code: SEED, objective: 1 },
      best: best(BEST, 3),
      direction: 'maximize',
      budget: 8,
      evaluate: (code, seed) => {
        asked.push({ code, seed });
        return Promise.resolve(evaluation(code.includes('out.sort()') ? 2.9 : 1, { inputs_checked: 40 }));
      },
    });
    assert.ok(reduction.reduced, 'a reduced program');
    assert.equal(reduction.reduced.code, real);
    assert.equal(reduction.reduced.objective, 2.9);
    assert.deepEqual(reduction.keep, [0]);
    assert.deepEqual(reduction.changedLines, { reduced: 1, best: 3 });
    assert.deepEqual(reduction.reduced.measurements.map((m) => m.seed), [1, 2]);
    // The larger, useless change first, measured like the best (seeds 1 and 2); then dropping the
    // real one too would give the seed back: not measured.
    assert.deepEqual(asked.map((a) => a.seed), [1, 2]);
    assert.equal(reduction.evaluations, 2);
    assert.deepEqual(reduction.trials.map((t) => t.kept), [true]);
  });

  it('spends no confirmation on a trial out at its first measurement', async () => {
    const seed = lines('a = 1', '#', 'b = 2', '#', 'c = 3');
    const improved = lines('a = 10', '#', 'b = 20', 'b2 = 21', '#', 'c = 30');
    const asked: number[] = [];
    const reduction = await reduceBest({
      seed: { code: seed, objective: 1 },
      best: best(improved, 3),
      direction: 'maximize',
      budget: 8,
      evaluate: (code, measurementSeed) => {
        asked.push(measurementSeed);
        return Promise.resolve(evaluation(code.includes('b = 20') ? 3 : 1));
      },
    });
    // The largest change (b, 2 lines) first: out at its first measurement; then a and c, each measured twice and dropped.
    assert.deepEqual(reduction.trials.map((t) => [t.drop, t.kept]), [[1, false], [0, true], [2, true]]);
    assert.deepEqual(asked, [1, 1, 2, 1, 2]);
    assert.equal(reduction.reduced?.code, lines('a = 1', '#', 'b = 20', 'b2 = 21', '#', 'c = 3'));
    assert.deepEqual(reduction.changedLines, { reduced: 2, best: 4 });
  });

  it('keeps a change whose drop loses more than 10% of the gain, or breaks the program', async () => {
    for (const trial of [evaluation(2.7), evaluation(null)]) {
      const reduction = await reduceBest({ seed: { code: SEED, objective: 1 }, best: best(BEST, 3), direction: 'maximize', budget: 8, evaluate: () => Promise.resolve(trial) });
      assert.equal(reduction.reduced, undefined);
      assert.deepEqual(reduction.keep, [0, 1]);
    }
    // Exactly 90% of the gain (2.8 of 1 → 3) is enough.
    const enough = await reduceBest({ seed: { code: SEED, objective: 1 }, best: best(BEST, 3), direction: 'maximize', budget: 8, evaluate: (code) => Promise.resolve(evaluation(code.includes('out.sort()') ? 2.8 : 1)) });
    assert.ok(enough.reduced);
  });

  it('reads the gain in the objective\'s direction (minimize: lower is better)', async () => {
    const reduction = await reduceBest({
      seed: { code: SEED, objective: 100 },
      best: best(BEST, 10),
      direction: 'minimize',
      budget: 8,
      evaluate: (code) => Promise.resolve({ ...evaluation(code.includes('out.sort()') ? 18 : 100), direction: 'minimize' }),
    });
    assert.equal(reduction.reduced?.objective, 18, '90 of the 90 gained: kept');
  });

  it('stops at the budget and does nothing with budget 0 or a single change', async () => {
    let calls = 0;
    const count = (): Promise<Evaluation> => {
      calls++;
      return Promise.resolve(evaluation(1));
    };
    const cut = await reduceBest({ seed: { code: SEED, objective: 1 }, best: best(BEST, 3), direction: 'maximize', budget: 1, evaluate: count });
    assert.equal(cut.evaluations, 0, 'a trial needs two measurements (the best had two): one is not enough');
    assert.equal(calls, 0);
    const none = await reduceBest({ seed: { code: SEED, objective: 1 }, best: best(BEST, 3), direction: 'maximize', budget: 0, evaluate: count });
    assert.equal(none.evaluations, 0);
    const single = await reduceBest({ seed: { code: SEED, objective: 1 }, best: best(SEED.replace('slow', 'fast'), 3), direction: 'maximize', budget: 8, evaluate: count });
    assert.equal(single.evaluations, 0, 'dropping the only change gives the seed back');
    assert.equal(calls, 0);
  });

  it('summarises both figures for the report, the CLI and the proposal', () => {
    const program: Program = {
      id: programId('r'),
      code: 'r',
      lineage: { parents: [programId(BEST)], generation: 3, mutator: 'reduce', exchanges: [], seed: 1, repairs: 0, island: 0, createdAt: '2026-01-01T00:00:00Z' },
      evaluation: evaluation(2.6, { inputs_checked: 120, correctness_inputs: 20, eval_seconds: 1.5, speedup: 2.6 }),
      objective: 2.6,
      correct: true,
      measurements: [{ seed: 1, objective: 2.6, wallMs: 5 }, { seed: 2, objective: 2.65, wallMs: 5 }],
      features: {},
    };
    const fullBest = { ...program, id: programId(BEST), code: BEST, objective: 2.7, lineage: { ...program.lineage, mutator: 'llm-patch' } };
    const event: ReduceEvent = { type: 'reduce', best: fullBest.id, keep: [0], changes: 4, changedLines: { reduced: 3, best: 14 }, trials: [], evaluations: 6, budget: 8, program };
    const summary = bestReductionOf(event, fullBest)!;
    assert.deepEqual(summary.reduced?.checks, { inputs_checked: 120, correctness_inputs: 20 });
    assert.equal(reductionSummary(SPEEDUP, summary, { reduced: 2.6, best: 2.7 }), 'speedup 2.6x with 3 changed lines, 2.7x with all 14');
    assert.equal(bestReductionOf(event, { ...fullBest, id: programId('another best') }), undefined, 'a reduction of an older best is not the current best\'s');
    assert.deepEqual(checksOf({ tests_passed: 12, score: 0.5, speedup: 3, timing_inputs_per_repeat: 3, equivalence_checks: 40, tests: 7 }), { tests_passed: 12, equivalence_checks: 40, tests: 7 });
    const { reduced: _reduced, ...notReduced } = summary;
    void _reduced;
    assert.equal(reductionSummary(SPEEDUP, { ...notReduced, changes: 1 }, { reduced: null, best: 2.7 }), 'speedup 2.7x with 14 changed lines (one change, nothing to drop)');
    assert.equal(reductionSummary(SPEEDUP, summary, { reduced: 1.04, best: 1.06 }), 'speedup 1.04x with 3 changed lines, 1.06x with all 14', 'a small gain is not shown as 1.0x');
    assert.equal(reductionSummary(SPEEDUP, notReduced, { reduced: null, best: 2.7 }), 'speedup 2.7x with 14 changed lines (no change could be dropped in 6 evaluations)');
    // A score reads as its value in its unit, not as a factor over the seed.
    const score = { name: 'score', direction: 'maximize' as const, unit: '%' };
    assert.equal(reductionSummary(score, summary, { reduced: 1.1, best: 1.2 }), 'score 2.600% with 3 changed lines, 2.700% with all 14');
  });

  it('is kept by the run state: in its snapshot (resume), for the best it reduced only, and out of the archive', () => {
    const settings: RunSettings = { direction: 'maximize', objectiveName: 'speedup', islands: 1, selector: 'epsilon-greedy', mutator: 'offline', usesLlm: false, backends: [], routing: 'weighted', childrenPerGeneration: 1, inspirations: 0, repairFailedChildren: false, confirmBest: true, seed: 3, policy: SEARCH_POLICY };
    const at = '2026-01-01T00:00:00Z';
    const seedProgram: Program = { id: programId(SEED), code: SEED, lineage: { parents: [], generation: 0, mutator: 'seed', exchanges: [], seed: 3, repairs: 0, island: 0, createdAt: at }, evaluation: evaluation(1), objective: 1, correct: true, measurements: [{ seed: 3, objective: 1, wallMs: 1 }], features: {} };
    const reducedCode = SEED.replace('helper', 'helper2');
    const reduced: Program = { ...seedProgram, id: programId(reducedCode), code: reducedCode, lineage: { ...seedProgram.lineage, parents: [seedProgram.id], generation: 1, mutator: 'reduce' } };
    const state = new RunState(settings);
    applyEvent(state, { type: 'seed', program: seedProgram }, at);
    applyEvent(state, { type: 'reduce', best: seedProgram.id, keep: [0], changes: 2, changedLines: { reduced: 1, best: 3 }, trials: [], evaluations: 2, budget: 8, program: reduced }, at);
    assert.equal(state.bestReduction?.program?.id, reduced.id);
    assert.equal(state.archive.has(reduced.id), false, 'not a parent for the search');
    assert.deepEqual(state.drainAdmitted().map((program) => program.id), [seedProgram.id, reduced.id], 'stored with the run\'s programs');
    const resumed = new RunState(settings, state.snapshot(), (id) => [seedProgram, reduced].find((program) => program.id === id)!);
    assert.deepEqual(resumed.bestReduction, state.bestReduction);
    const other = new RunState(settings);
    applyEvent(other, { type: 'seed', program: seedProgram }, at);
    applyEvent(other, { type: 'reduce', best: programId('an older best'), keep: [], changes: 0, changedLines: { reduced: 0, best: 0 }, trials: [], evaluations: 0, budget: 8 }, at);
    assert.equal(other.bestReduction, undefined, 'a reduction of another best is not this best\'s');
    // Reduced to a program the archive has (here the seed itself): the archive's record is not replaced in the store.
    other.drainAdmitted();
    applyEvent(other, { type: 'reduce', best: seedProgram.id, keep: [], changes: 2, changedLines: { reduced: 0, best: 3 }, trials: [], evaluations: 2, budget: 8, program: { ...seedProgram, lineage: { ...reduced.lineage } } }, at);
    assert.deepEqual(other.drainAdmitted(), []);
  });
});
