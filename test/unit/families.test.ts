/**
 * Families (daemon/evolution/selection/families.ts): the calls go to the family whose answers
 * have paid, a family that never paid is dismissed after a few answers but never given up for
 * good, and within a family a slower stepping stone is asked about once the better programs
 * are exhausted.
 */
import * as assert from 'node:assert/strict';
import type { Program } from '../../shared/evolution';
import { chooseFamily, familyParent, type FamilyRecord } from '../../daemon/evolution/selection/families';
import { Rng } from '../../daemon/evolution/rng';
import { editSignatures } from '../../daemon/evolution/mutation/edits';

const program = (id: string, objective: number, niche = ''): Program => ({
  id: id.padEnd(64, '0'),
  code: `# ${id}\n`,
  lineage: { parents: [], generation: 0, mutator: 'seed', exchanges: [], seed: 1, repairs: 0, island: 0, createdAt: '2026-01-01T00:00:00.000Z' },
  objective,
  correct: true,
  measurements: [],
  features: {},
  niche,
});

const family = (key: string, members: Program[], answers: number, improvements: number, ideas = 0): FamilyRecord => ({ key, members, answers, improvements, ideas });

/** How often each family is chosen in `draws` plans. */
function shares(families: FamilyRecord[], draws = 4000, novelty: (id: string) => number = () => 1): Map<string, number> {
  const rng = new Rng(7);
  const counts = new Map<string, number>();
  for (let draw = 0; draw < draws; draw++) {
    const chosen = chooseFamily(families, novelty, rng);
    if (chosen) counts.set(chosen.family.key, (counts.get(chosen.family.key) ?? 0) + 1 / draws);
  }
  return counts;
}

describe('families: where the calls go', () => {
  it('a family whose answers paid gets most calls, one that stopped paying keeps a share that does not fall to zero', () => {
    // The side branch paid early (3 improvements in 60 answers) and has stopped; the chain pays
    // one answer in eight.
    const split = shares([family('side', [program('s', 10)], 60, 3), family('chain', [program('c', 3)], 24, 3)]);
    assert.ok(split.get('chain')! > 0.6, `chain ${split.get('chain')}`);
    assert.ok(split.get('side')! > 0.02, `side ${split.get('side')}`);
  });

  it('a family never asked about gets calls at once, and is dismissed after a dozen answers that gave nothing', () => {
    const paying = family('paying', [program('p', 5)], 40, 5);
    const fresh = shares([paying, family('new', [program('n', 1)], 0, 0)]).get('new')!;
    const dismissed = shares([paying, family('new', [program('n', 1)], 12, 0)]).get('new') ?? 0;
    assert.ok(fresh > 0.25, `never asked: ${fresh}`);
    assert.ok(dismissed < 0.08, `after 12 answers without improvement: ${dismissed}`);
    assert.ok(dismissed > 0, 'a dismissed family is never given up for good');
  });

  it('a family whose every program is exhausted gets no call; none at all when every family is', () => {
    const tired = program('t', 9);
    const families = [family('tired', [tired], 100, 20), family('other', [program('o', 1)], 30, 0)];
    const novelty = (id: string): number => (id === tired.id ? 0.05 : 0.9);
    assert.deepEqual([...shares(families, 200, novelty).keys()], ['other']);
    assert.equal(chooseFamily(families, () => 0.05, new Rng(1)), undefined);
  });

  it("the best's family offers the climb's parent; another family its best program whose answers are new", () => {
    const best = program('best', 10);
    const climbed = program('relative', 9.9);
    const chosen = chooseFamily([family('top', [best, climbed], 0, 0)], () => 1, new Rng(3), 'top', climbed);
    assert.equal(chosen?.parent.id, climbed.id);
    // Within a family: the best fresh program, and the slower stepping stone once the others are exhausted.
    const stone = program('stone', 0.9);
    const faster = program('faster', 1.2);
    const record = family('chain', [faster, stone], 10, 0);
    assert.equal(familyParent(record, () => 1)?.id, faster.id);
    assert.equal(familyParent(record, (id) => (id === faster.id ? 0.1 : 1))?.id, stone.id);
  });

  it('a first idea (a correct child whose edit the run had not seen) is asked about before the neutral variants of better programs', () => {
    // In a valley: the stepping stone is slower than its parent's neutral variants, which are fresh too.
    const variants = [program('v1', 6.3), program('v2', 6.1), program('v3', 6.0)];
    const stone = program('stone', 4.9);
    const record = family('valley', [...variants, stone], 12, 0, 1);
    assert.equal(familyParent(record, () => 1)?.id, variants[0]!.id, 'without first ideas: the best fresh program');
    assert.equal(familyParent(record, () => 1, (id) => id === stone.id)?.id, stone.id);
    // Once its answers are mostly repeats, the family's best fresh program again.
    assert.equal(familyParent(record, (id) => (id === stone.id ? 0.3 : 1), (id) => id === stone.id)?.id, variants[0]!.id);
  });

  it("first ideas earn their family credit: a family of stepping stones keeps calls beside one whose only gains are repeats' rediscoveries", () => {
    const withIdeas = shares([family('side', [program('s', 12)], 40, 2, 0), family('stones', [program('t', 5)], 16, 0, 3)]).get('stones')!;
    const without = shares([family('side', [program('s', 12)], 40, 2, 0), family('stones', [program('t', 5)], 16, 0, 0)]).get('stones') ?? 0;
    assert.ok(withIdeas > 2 * without, `with first ideas ${withIdeas}, without ${without}`);
  });

  it('an edit has the same signature wherever it is made: the same step on a variant is no new idea', () => {
    const parent = 'def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n';
    const step = (code: string): string => code.replace('    for x in xs:\n        total += x\n', '    total = sum(xs)\n');
    const variant = `"""Adds."""\n\n${parent}`;
    assert.deepEqual(editSignatures(variant, step(variant)), editSignatures(parent, step(parent)));
    assert.notDeepEqual(editSignatures(parent, parent.replace('total = 0', 'total = 0.0')), editSignatures(parent, step(parent)));
  });
});
