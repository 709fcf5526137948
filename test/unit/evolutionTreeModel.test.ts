/**
 * What the Evolution view shows for the daemon's answers: niches labelled by the ranges they
 * hold in the run's units, elites grouped
 * by niche with the run's best first and marked, live progress winning over the summary on
 * disk (a running run gets the stop-run context value), and lineage seed → elite.
 */
import { runProgress } from '../fixtures/runProgress';
import * as assert from 'node:assert/strict';
import type { NicheElite, RunProgress, RunSummary } from '../../shared/evolution';
import {
  clockTime,
  ELITE,
  eliteRow,
  formatNumber,
  lineageSteps,
  NICHE,
  nicheGroups,
  nicheRow,
  RUN,
  RUN_RUNNING,
  runRow,
} from '../../extension/evolutionView/evolutionModel';

const id = (n: number): string => n.toString(16).padStart(64, '0');

function elite(n: number, niche: string, objective: number | null, extra: { generation?: number; model?: string; island?: number; parents?: string[] } = {}): NicheElite {
  return {
    niche,
    island: extra.island ?? 0,
    program: {
      id: id(n),
      objective,
      correct: objective !== null,
      measurements: [],
      features: {},
      niche,
      lineage: {
        parents: extra.parents ?? [],
        generation: extra.generation ?? 1,
        mutator: extra.model ? 'llm-patch' : 'offline',
        ...(extra.model && { model: extra.model }),
        exchanges: [],
        seed: 1,
        repairs: 0,
        island: extra.island ?? 0,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    },
  };
}

const summary: RunSummary = { runId: 'r1', example: 'bad_sort', dir: '/w/.peagen/runs/r1', state: 'finished', startedAt: '2026-01-01T00:00:00Z', best: 4.5, evaluations: 8 };

function progress(overrides: Partial<RunProgress>): RunProgress {
  return runProgress({ runId: 'r1', example: 'bad_sort', best: { id: id(2), objective: 6.25, generation: 3, confirmed: true }, generation: 3, evaluations: 5, failedEvaluations: 0, evaluationsPerMinute: 10, elapsedMs: 30_000, ...overrides });
}

/** The run's axes as GetElites answers them for bad_sort: the default grid of a maximized speedup. */
const speedupAxes = {
  objectiveName: 'speedup',
  objectiveUnit: 'x',
  features: [
    { name: 'objective', from: 'objective', bins: [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] },
    { name: 'codeLength', from: 'codeLength', bins: Array.from({ length: 16 }, (_, index) => (index + 1) * 500) },
  ],
};

describe('Evolution view model', function () {
  it('formats objectives to four significant digits and a dash for none', function () {
    assert.equal(formatNumber(4.123456), '4.123');
    assert.equal(formatNumber(1234.5), '1235');
    assert.equal(formatNumber(null), '—');
    assert.equal(formatNumber(2e7), '2.00e+7');
  });

  it('groups elites by niche, the niche of the best first, then by their strongest elite', function () {
    const groups = nicheGroups({
      direction: 'maximize',
      bestId: id(3),
      elites: [elite(1, 'objective=1|codeLength=1', 1.5), elite(2, 'objective=4|codeLength=1', 9), elite(3, 'objective=3|codeLength=1', 6), elite(4, 'objective=1|codeLength=1', 1.8, { island: 1 }), elite(5, 'objective=0|codeLength=1', null)],
    });
    assert.deepEqual(
      groups.map((group) => [group.key, group.holdsBest, group.elites.map((e) => e.program.objective)]),
      [
        ['objective=3|codeLength=1', true, [6]],
        ['objective=4|codeLength=1', false, [9]],
        ['objective=1|codeLength=1', false, [1.8, 1.5]],
        ['objective=0|codeLength=1', false, [null]],
      ],
    );
  });

  it('ranks a minimized objective lowest first', function () {
    const groups = nicheGroups({ direction: 'minimize', bestId: null, elites: [elite(1, 'a=1', 5), elite(2, 'a=2', 2)] });
    assert.deepEqual(
      groups.map((group) => group.key),
      ['a=2', 'a=1'],
    );
  });

  it('shows an elite with its objective, generation and model, and marks the best', function () {
    const best = eliteRow(elite(7, 'objective=4|codeLength=1', 6.25, { generation: 4, model: 'openai/gpt-x' }), speedupAxes, true);
    assert.equal(best.label, '★ speedup 6.25');
    assert.equal(best.description, 'generation 4 · openai/gpt-x · best of the run');
    assert.match(best.tooltip, /Generation 4, mutator llm-patch, model openai\/gpt-x/);
    assert.match(best.tooltip, /\nIsland 0, niche speedup 4–8x · 500–1000 characters\n/);
    assert.equal(best.contextValue, ELITE);
    const other = eliteRow(elite(8, 'objective=2|codeLength=1', 1.5, { generation: 2 }), speedupAxes, false);
    assert.equal(other.label, 'speedup 1.5');
    assert.equal(other.description, 'generation 2 · offline');
  });

  it('summarises a niche by its strongest elite, named by the speedups and code lengths it holds', function () {
    const [group] = nicheGroups({ direction: 'maximize', bestId: id(1), elites: [elite(1, 'objective=4|codeLength=6', 6.25)] });
    const row = nicheRow(group!, speedupAxes);
    assert.equal(row.label, 'speedup 4–8x · 3000–3500 characters');
    assert.equal(row.description, 'speedup 6.25 · ★ best');
    assert.match(row.tooltip, /^Niche speedup 4–8x · 3000–3500 characters \(objective=4\|codeLength=6\)\n1 elite;/);
    assert.equal(row.contextValue, NICHE);
  });

  it('names a niche of the structural grid by its loops, built-ins and recursion', function () {
    const structuralAxes = {
      ...speedupAxes,
      features: [
        speedupAxes.features[0]!,
        { name: 'loops', from: 'structure:loops', bins: [1, 2, 3], language: 'python' as const },
        { name: 'builtins', from: 'structure:builtins', bins: [1, 3], language: 'python' as const },
        { name: 'recursion', from: 'structure:recursion', bins: [1], language: 'python' as const },
      ],
    };
    const [best, other] = nicheGroups({
      direction: 'maximize',
      bestId: id(1),
      elites: [elite(1, 'objective=4|loops=2|builtins=1|recursion=1', 6.25), elite(2, 'objective=2|loops=0|builtins=2|recursion=0', 1.5)],
    });
    const row = nicheRow(best!, structuralAxes);
    assert.equal(row.label, 'speedup 4–8x · loops 2 · 1–2 built-ins · recursive');
    assert.match(row.tooltip, /^Niche speedup 4–8x · loops 2 · 1–2 built-ins · recursive \(objective=4\|loops=2\|builtins=1\|recursion=1\)\n/);
    assert.equal(nicheRow(other!, structuralAxes).label, 'speedup 1–2x · no loops · 3+ built-ins · not recursive');
  });

  it('opens the end niches, and names bins in words when the daemon sent no edges', function () {
    const [high, low] = nicheGroups({ direction: 'maximize', bestId: null, elites: [elite(1, 'objective=0|codeLength=0', 0.3), elite(2, 'objective=12|codeLength=16', 2000)] });
    assert.equal(nicheRow(low!, speedupAxes).label, 'speedup < 0.5x · < 500 characters');
    assert.equal(nicheRow(high!, speedupAxes).label, 'speedup ≥ 1024x · ≥ 8000 characters');
    assert.equal(nicheRow(low!, { objectiveName: 'speedup' }).label, 'objective bin 0 · code length bin 0');
  });

  it('shows a run from its live progress while it runs, with the context value Stop Run needs', function () {
    const running = runRow({ ...summary, state: 'interrupted' }, progress({}));
    assert.equal(running.contextValue, RUN_RUNNING);
    assert.equal(running.label, 'bad_sort');
    assert.equal(running.description, `running · speedup 6.25 · 5 evaluations · started ${clockTime(summary.startedAt)}`);
    assert.match(running.tooltip, /^Run r1 of bad_sort/);
    const done = runRow(summary, undefined);
    assert.equal(done.contextValue, RUN);
    assert.match(done.description, /^finished · best 4.5 · 8 evaluations · started \d\d:\d\d$/);
    assert.equal(runRow(summary, progress({ state: 'finished', stopReason: 'evaluations' })).contextValue, RUN);
  });

  it('lists a lineage from the seed to the elite', function () {
    const seed = elite(1, 'a=1', 1, { generation: 0 }).program;
    seed.lineage.mutator = 'seed';
    const middle = elite(2, 'a=2', 2, { generation: 1, parents: [id(1)] }).program;
    const last = elite(3, 'a=3', 4, { generation: 2, parents: [id(2)], model: 'openai/gpt-x' }).program;
    const steps = lineageSteps([seed, middle], last, 'speedup');
    assert.deepEqual(
      steps.map((step) => [step.label, step.description, step.detail.split(' · ')[0]]),
      [
        ['speedup 1', 'generation 0 · seed', 'seed'],
        ['speedup 2', 'generation 1 · offline', 'ancestor 1'],
        ['speedup 4', 'generation 2 · llm-patch · openai/gpt-x', 'this elite'],
      ],
    );
    assert.equal(steps[2]!.programId, id(3));
  });
});
