/**
 * Every parent selector against the real archive (EvoDB) rather than the conformance suite's
 * FakeArchive (parentSelectorConformance builds its own archives, so it cannot be pointed at
 * EvoDB): failed programs, however they fail, are never parents or inspirations; islands are
 * respected; an archive without a correct program is a clear error.
 */
import * as assert from 'node:assert/strict';
import { EvoDB } from '../../daemon/evolution/evodb/EvoDB';
import { Rng } from '../../daemon/evolution/rng';
import { createSelector, SELECTOR_NAMES } from '../../daemon/evolution/selection/createSelector';
import type { SelectionOutcome } from '../../daemon/evolution/selection/ParentSelector';
import { GRID, makeProgram } from './evodbFixtures';

const IMPROVED: SelectionOutcome = { improvedParent: true, improvedBest: true, failed: false, gain: 0.3 };
const FAILED: SelectionOutcome = { improvedParent: false, improvedBest: false, failed: true, gain: 0 };

/** Correct programs over several niches (objective × code length), plus failed ones of every kind. */
function mixedArchive(islands = 1): { db: EvoDB; correct: Set<string>; failed: Set<string> } {
  const db = new EvoDB({ direction: 'maximize', features: GRID, islands });
  const correct = new Set<string>();
  const failed = new Set<string>();
  for (let i = 0; i < 12; i++) {
    const program = makeProgram(`ok${i}`, 0.5 + i * 0.5, { length: 5 + (i % 3) * 8, island: i % islands });
    db.add(program);
    correct.add(program.id);
  }
  for (let i = 0; i < 40; i++) {
    // Crashed (no score), incorrect with a tempting score, and "correct" with no score.
    const kind = i % 3;
    const program =
      kind === 0
        ? makeProgram(`crash${i}`, null, { island: i % islands })
        : kind === 1
          ? makeProgram(`wrong${i}`, 1_000 + i, { correct: false, length: 5 + (i % 3) * 8, island: i % islands })
          : makeProgram(`noscore${i}`, null, { correct: true, island: i % islands });
    db.add(program);
    failed.add(program.id);
  }
  return { db, correct, failed };
}

describe('parent selectors on the real EvoDB', () => {
  for (const name of SELECTOR_NAMES) {
    describe(name, () => {
      it('never selects a failed program as parent or inspiration, even when failure is all it hears', () => {
        const { db, correct, failed } = mixedArchive();
        const selector = createSelector(name);
        const rng = new Rng(17);
        const parents = new Set<string>();
        for (let step = 0; step < 300; step++) {
          const selection = selector.select(db, rng, { inspirations: 4 });
          parents.add(selection.parent.id);
          for (const program of [selection.parent, ...selection.inspirations]) {
            assert.ok(!failed.has(program.id), `step ${step}: selected the failed ${program.code}`);
            assert.ok(correct.has(program.id));
          }
          const ids = selection.inspirations.map((program) => program.id);
          assert.equal(new Set(ids).size, ids.length, 'duplicate inspiration');
          assert.ok(!ids.includes(selection.parent.id), 'the parent inspires itself');
          selector.feedback(selection, step % 5 === 0 ? IMPROVED : FAILED);
        }
        assert.ok(parents.size > 1, 'it looks beyond one parent');
      });

      it('selects on the island it is asked for', () => {
        const { db } = mixedArchive(2);
        const selector = createSelector(name);
        const rng = new Rng(5);
        for (let step = 0; step < 60; step++) {
          const selection = selector.select(db, rng, { island: 1, inspirations: 2 });
          assert.equal(selection.island, 1);
          for (const program of [selection.parent, ...selection.inspirations]) assert.equal(program.lineage.island, 1);
          selector.feedback(selection, step % 2 === 0 ? IMPROVED : FAILED);
        }
      });

      it('is a clear error on an archive that holds only failed programs, and picks the seed when it is alone', () => {
        const db = new EvoDB({ direction: 'maximize', features: GRID });
        db.add(makeProgram('crash', null));
        db.add(makeProgram('wrong', 99, { correct: false }));
        assert.throws(() => createSelector(name).select(db, new Rng(1)), /no correct program to select from/);
        const seed = makeProgram('seed', 1);
        db.add(seed);
        const selection = createSelector(name).select(db, new Rng(1), { inspirations: 3 });
        assert.equal(selection.parent.id, seed.id);
        assert.deepEqual(selection.inspirations, []);
      });
    });
  }
});
