/**
 * The ParentSelector contract as a mocha suite. Every selector runs this file unchanged:
 *
 *   parentSelectorConformance('ucb1', () => createSelector('ucb1'));
 *
 * Everything is seeded (the run's Rng, scripted feedback), so each statistical assertion has
 * one fixed outcome: it passes or fails the same way on every run, with a wide margin.
 * `FakeArchive` is the in-memory ArchiveView the suite (and the selectors' own tests) use.
 */
import * as assert from 'node:assert/strict';
import { programId } from '../../shared/programId';
import type { ArchiveView, ParentSelector, Selection, SelectionOutcome } from '../../daemon/evolution/selection/ParentSelector';
import { Rng } from '../../daemon/evolution/rng';
import type { Program } from '../../shared/evolution';

export interface ProgramSpec {
  /** Unique per archive: the program's code is derived from it, and its id from the code. */
  tag: string;
  objective: number | null;
  correct?: boolean;
  niche?: string;
  island?: number;
}

export function makeProgram(spec: ProgramSpec): Program {
  const code = `def solve(xs):  # ${spec.tag}\n    return sorted(xs)\n`;
  return {
    id: programId(code),
    code,
    lineage: {
      parents: [],
      generation: 0,
      mutator: 'seed',
      exchanges: [],
      seed: 0,
      repairs: 0,
      island: spec.island ?? 0,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
    objective: spec.objective,
    correct: spec.correct ?? spec.objective !== null,
    measurements: [],
    features: {},
    niche: spec.niche ?? spec.tag,
  };
}

export interface FakeArchiveOptions {
  direction?: 'maximize' | 'minimize';
  islands?: number;
  /** elites() also lists failed programs: an archive bug selectors must survive. */
  leakFailed?: boolean;
  /** best() returns the failed program with the highest objective, if any: another such bug. */
  bestLies?: boolean;
}

/** MAP-Elites in a few lines: per island and niche, the best correct program is the elite. */
export class FakeArchive implements ArchiveView {
  readonly direction: 'maximize' | 'minimize';
  readonly islands: number;
  private readonly programs = new Map<string, Program>();

  constructor(private readonly options: FakeArchiveOptions = {}) {
    this.direction = options.direction ?? 'maximize';
    this.islands = options.islands ?? 1;
  }

  add(...programs: Program[]): this {
    for (const program of programs) this.programs.set(program.id, program);
    return this;
  }

  get(id: string): Program | undefined {
    return this.programs.get(id);
  }

  elites(island?: number): readonly Program[] {
    const champions = new Map<string, Program>();
    const leaked: Program[] = [];
    for (const program of this.programs.values()) {
      if (island !== undefined && program.lineage.island !== island) continue;
      if (!isCorrect(program)) {
        if (this.options.leakFailed) leaked.push(program);
        continue;
      }
      const key = `${program.lineage.island}/${program.niche ?? program.id}`;
      const incumbent = champions.get(key);
      if (incumbent === undefined || this.beats(program, incumbent)) champions.set(key, program);
    }
    // Failed programs first, so a selector that trusts archive order would trip over them.
    return [...leaked, ...champions.values()];
  }

  best(island?: number): Program | undefined {
    let best: Program | undefined;
    for (const program of this.programs.values()) {
      if (island !== undefined && program.lineage.island !== island) continue;
      const eligible = this.options.bestLies ? program.objective !== null : isCorrect(program);
      if (eligible && (best === undefined || this.beats(program, best, this.options.bestLies))) best = program;
    }
    return best;
  }

  private beats(a: Program, b: Program, preferFailed = false): boolean {
    if (preferFailed && isCorrect(a) !== isCorrect(b)) return !isCorrect(a);
    return this.direction === 'maximize' ? a.objective! > b.objective! : a.objective! < b.objective!;
  }
}

function isCorrect(program: Program): boolean {
  return program.correct && program.objective !== null;
}

export const IMPROVED: SelectionOutcome = { improvedParent: true, improvedBest: true, failed: false, gain: 0.2 };
export const NOT_BETTER: SelectionOutcome = { improvedParent: false, improvedBest: false, failed: false, gain: -0.05 };
export const FAILED: SelectionOutcome = { improvedParent: false, improvedBest: false, failed: true, gain: 0 };

/** `count` correct programs, one per niche, objectives 1..count (so `n{count}` is the best). */
export function ladderArchive(count: number, options: FakeArchiveOptions = {}): FakeArchive {
  const archive = new FakeArchive(options);
  for (let i = 1; i <= count; i++) archive.add(makeProgram({ tag: `n${i}`, objective: i }));
  return archive;
}

/** A scripted outcome that depends only on the selection, so two runs can be fed identically. */
function scriptedOutcome(selection: Selection, step: number): SelectionOutcome {
  const digit = parseInt(selection.parent.id.slice(-1), 16) + step;
  return digit % 5 === 0 ? IMPROVED : digit % 3 === 0 ? FAILED : NOT_BETTER;
}

function fingerprint(selection: Selection): string {
  return [selection.parent.id.slice(0, 8), selection.arm, selection.island, ...selection.inspirations.map((p) => p.id.slice(0, 8))].join(' ');
}

/** Runs `steps` selections, feeding the scripted outcome back after each; returns their fingerprints. */
function drive(selector: ParentSelector, archive: ArchiveView, rng: Rng, steps: number): string[] {
  const trace: string[] = [];
  for (let step = 0; step < steps; step++) {
    const selection = selector.select(archive, rng);
    trace.push(fingerprint(selection));
    selector.feedback(selection, scriptedOutcome(selection, step));
  }
  return trace;
}

export function parentSelectorConformance(name: string, make: () => ParentSelector): void {
  describe(`ParentSelector conformance: ${name}`, () => {
    it('never selects a failed program, even when failed programs dominate the archive', () => {
      const archive = new FakeArchive({ leakFailed: true, bestLies: true });
      for (let i = 0; i < 3; i++) archive.add(makeProgram({ tag: `ok${i}`, objective: 1 + i }));
      for (let i = 0; i < 30; i++) {
        // Incorrect but scored (even far above every correct one), and scoreless ones.
        archive.add(makeProgram({ tag: `bad${i}`, objective: i % 2 === 0 ? 1000 + i : null, correct: false }));
      }
      const selector = make();
      const rng = new Rng(11);
      for (let step = 0; step < 300; step++) {
        const selection = selector.select(archive, rng);
        for (const program of [selection.parent, ...selection.inspirations]) {
          assert.ok(program.correct && program.objective !== null, `step ${step}: selected failed program ${program.niche}`);
        }
        // Feed it failure after failure from every parent: it must still not reach for a failed one.
        selector.feedback(selection, step % 4 === 0 ? IMPROVED : FAILED);
      }
    });

    it('gives inspirations that exclude the parent and failed programs, with no duplicates', () => {
      const archive = ladderArchive(12, { leakFailed: true });
      archive.add(makeProgram({ tag: 'broken', objective: null, correct: false }));
      const selector = make();
      const rng = new Rng(5);
      for (let step = 0; step < 100; step++) {
        const selection = selector.select(archive, rng, { inspirations: 4 });
        const ids = selection.inspirations.map((program) => program.id);
        assert.equal(ids.length, 4);
        assert.equal(new Set(ids).size, ids.length, 'duplicate inspiration');
        assert.ok(!ids.includes(selection.parent.id), 'the parent inspires itself');
        assert.ok(selection.inspirations.every((program) => program.correct && program.objective !== null));
        selector.feedback(selection, scriptedOutcome(selection, step));
      }
      const all = selector.select(archive, rng, { inspirations: 50 });
      assert.equal(all.inspirations.length, 11, 'every other correct program, once');
      assert.deepEqual(selector.select(archive, rng, { inspirations: 0 }).inspirations, []);
    });

    it('selects on the island it is asked for', () => {
      const archive = new FakeArchive({ islands: 2 });
      for (let i = 0; i < 6; i++) archive.add(makeProgram({ tag: `i${i}`, objective: 1 + i, island: i % 2 }));
      const selector = make();
      const rng = new Rng(3);
      for (let step = 0; step < 40; step++) {
        const selection = selector.select(archive, rng, { island: 1 });
        assert.equal(selection.island, 1);
        for (const program of [selection.parent, ...selection.inspirations]) assert.equal(program.lineage.island, 1);
        selector.feedback(selection, scriptedOutcome(selection, step));
      }
      assert.throws(() => selector.select(archive, rng, { island: 2 }), /island/);
    });

    it('makes the same choices given the same seed and the same feedback', () => {
      const archive = ladderArchive(9);
      const first = drive(make(), archive, new Rng(42), 200);
      const second = drive(make(), archive, new Rng(42), 200);
      assert.deepEqual(second, first);
      assert.ok(new Set(first).size > 1, 'the trace is not one choice repeated');
    });

    it('makes the same choices after state() → JSON → restore()', () => {
      const archive = ladderArchive(9);
      const original = make();
      const rng = new Rng(7);
      drive(original, archive, rng, 120);
      const saved = JSON.parse(JSON.stringify(original.state())) as unknown;
      const restored = make();
      restored.restore(saved);
      const rngState = rng.state();
      const expected = drive(original, archive, new Rng(rngState), 150);
      assert.deepEqual(drive(restored, archive, new Rng(rngState), 150), expected);
    });

    it('refuses to restore a malformed state with a clear error', () => {
      const selector = make();
      for (const bad of [null, 'garbage', 42, {}, { selector: 'someone-else' }]) {
        assert.throws(() => selector.restore(bad), /cannot restore/);
      }
    });

    it('learns from feedback: rewarding the best program raises its share of selections', () => {
      // Fixed seeds make the shares below the same on every run, and the bar is set far from
      // where any selector here lands: rewarded, the best must be missed at most 2/3 as often
      // as without feedback. Measured (seeds 1-3, 99, 2024, 12345): epsilon-greedy misses
      // 13-17% → 1-4%, ucb1 and thompson ~90% → 0%, tournament ~70% → ~20%.
      const archive = ladderArchive(10);
      const best = archive.best()!;
      const warmUp = 300;
      const measured = 1000;

      const untrained = make();
      const untrainedRng = new Rng(2024);
      let untrainedMisses = 0;
      for (let step = 0; step < measured; step++) {
        if (untrained.select(archive, untrainedRng).parent.id !== best.id) untrainedMisses++;
      }

      const trained = make();
      const trainedRng = new Rng(2024);
      let trainedMisses = 0;
      for (let step = 0; step < warmUp + measured; step++) {
        const selection = trained.select(archive, trainedRng);
        const hit = selection.parent.id === best.id;
        if (step >= warmUp && !hit) trainedMisses++;
        trained.feedback(selection, hit ? IMPROVED : NOT_BETTER);
      }
      const before = 1 - untrainedMisses / measured;
      const after = 1 - trainedMisses / measured;
      assert.ok(untrainedMisses > 0, 'without feedback the selector must sometimes look beyond the best');
      assert.ok(
        trainedMisses <= (untrainedMisses * 2) / 3,
        `share of the rewarded best: ${before.toFixed(3)} without feedback, ${after.toFixed(3)} with`,
      );
    });

    it('throws a clear error when the archive holds no correct program', () => {
      const selector = make();
      assert.throws(() => selector.select(new FakeArchive(), new Rng(1)), /no correct program to select from/);
      const onlyFailed = new FakeArchive({ leakFailed: true, bestLies: true }).add(
        makeProgram({ tag: 'x', objective: 5, correct: false }),
        makeProgram({ tag: 'y', objective: null, correct: false }),
      );
      assert.throws(() => selector.select(onlyFailed, new Rng(1)), /no correct program to select from/);
    });
  });
}
