/**
 * Per-parent credit: how often a parent's answers are new, and the climbing choice built on
 * it (the best and its close relatives while they yield, down the ranking once they are
 * exhausted).
 */
import * as assert from 'node:assert/strict';
import type { Program } from '../../shared/evolution';
import { ParentYield } from '../../daemon/evolution/credit/parentYield';
import { climbingParent, EXHAUSTED, FRESH } from '../../daemon/evolution/selection/climb';
import type { YieldView } from '../../daemon/evolution/selection/ParentSelector';
import { makeProgram } from '../conformance/parentSelector';

describe('ParentYield', () => {
  it('a parent never asked is fresh; answers that repeat make it stale; new children keep it fresh', () => {
    const yields = new ParentYield();
    assert.equal(yields.novelty('p'), 1);
    for (const child of ['a', 'b', 'c', 'd']) yields.noteAnswer('p', child);
    const fresh = yields.novelty('p');
    assert.ok(fresh > 0.9, `four new children of four answers: ${fresh}`);
    for (let i = 0; i < 16; i++) yields.noteAnswer('p', ['a', 'b', 'c', 'd'][i % 4]!);
    const stale = yields.novelty('p');
    assert.ok(stale < EXHAUSTED, `twenty answers that repeat four children: ${stale}`);
    assert.equal(yields.answers('p'), 20);
    assert.equal(yields.distinct('p'), 4);
    assert.equal(yields.novelty('q'), 1, 'another parent is untouched');
  });

  it('tracks the Good-Turing unseen share: singletons over answers, smoothed', () => {
    const yields = new ParentYield();
    for (const child of ['a', 'a', 'b', 'c', 'c', 'c', 'd']) yields.noteAnswer('p', child);
    // Children seen once: b and d.
    assert.equal(yields.novelty('p'), (2 + 1) / (7 + 1));
    assert.equal(yields.novelty('p', 2), (2 + 1) / (7 + 2 + 1), 'answers in flight count as repeats');
  });

  it('an answer the run already had from another parent counts as a repeat, not as a new child of this one', () => {
    const yields = new ParentYield();
    // Two edits made in the other order: both answers land on programs the run already has.
    yields.noteAnswer('p', 'ab', true);
    yields.noteAnswer('p', 'ba', true);
    assert.equal(yields.novelty('p'), (0 + 1) / (2 + 1), 'nothing new to the run: no singles');
    assert.equal(yields.distinct('p'), 2);
    // The same two answers new to the run would have kept the parent fresh.
    const fresh = new ParentYield();
    fresh.noteAnswer('p', 'ab');
    fresh.noteAnswer('p', 'ba');
    assert.equal(fresh.novelty('p'), 1);
    // A later repeat of a known child stays a repeat; a new child still counts once.
    yields.noteAnswer('p', 'ab');
    yields.noteAnswer('p', 'c');
    assert.equal(yields.novelty('p'), (1 + 1) / (4 + 1));
  });

  it('survives state() → JSON → constructor, singletons included', () => {
    const yields = new ParentYield();
    for (const child of ['a', 'a', 'b']) yields.noteAnswer('p', child);
    yields.noteImprovement('p');
    const copy = new ParentYield(JSON.parse(JSON.stringify(yields.state())));
    assert.equal(copy.novelty('p'), yields.novelty('p'));
    assert.equal(copy.improvements('p'), 1);
    copy.noteAnswer('p', 'b');
    yields.noteAnswer('p', 'b');
    assert.equal(copy.novelty('p'), yields.novelty('p'));
  });
});

describe('climbingParent', () => {
  const program = (tag: string, objective: number): Program => makeProgram({ tag, objective });
  const best = program('best', 10);
  const relative = program('relative', 9.8);
  const ancestor = program('ancestor', 6);
  const weak = program('weak', 2);
  const top = [best, relative, ancestor, weak];

  function view(novelty: Record<string, number>): YieldView {
    return {
      top: () => top,
      // makeProgram names each program's niche by its tag: the novelty of each is given by tag.
      novelty: (id) => novelty[top.find((p) => p.id === id)!.niche!] ?? 1,
      tied: (a, b) => Math.abs(Math.log(a / b)) <= 0.1,
    };
  }

  it('asks about the best while it yields', () => {
    assert.deepEqual(climbingParent(best, view({ best: 1, relative: 1 })), { parent: best, descended: false }, 'a tie goes to the better ranked');
    assert.deepEqual(climbingParent(best, view({ best: 0.6, relative: 0.5 })), { parent: best, descended: false });
  });

  it('moves to a close relative (tied within the noise) whose answers are newer', () => {
    assert.deepEqual(climbingParent(best, view({ best: 0.4, relative: 0.9 })), { parent: relative, descended: false });
  });

  it('never counts a program outside the noise band as a relative', () => {
    assert.deepEqual(climbingParent(best, view({ best: 0.4, relative: 0.3, ancestor: 1 })), { parent: best, descended: false }, 'the best still yields more than the threshold');
  });

  it('once the best and its relatives are exhausted, descends the ranking to the first that is not', () => {
    assert.deepEqual(climbingParent(best, view({ best: EXHAUSTED * 0.5, relative: EXHAUSTED * 0.8, ancestor: EXHAUSTED * 0.9, weak: 0.9 })), { parent: weak, descended: true });
    assert.deepEqual(climbingParent(best, view({ best: EXHAUSTED * 0.5, relative: EXHAUSTED * 0.8, ancestor: 0.8, weak: 0.9 })), { parent: ancestor, descended: true });
  });

  it('descends to a fresh program (most answers new) before a better-ranked one that earlier descents half exhausted', () => {
    const half = (EXHAUSTED + FRESH) / 2;
    assert.deepEqual(climbingParent(best, view({ best: EXHAUSTED / 2, relative: EXHAUSTED / 2, ancestor: half, weak: FRESH })), { parent: weak, descended: true });
    assert.deepEqual(climbingParent(best, view({ best: EXHAUSTED / 2, relative: EXHAUSTED / 2, ancestor: half, weak: half })), { parent: ancestor, descended: true }, 'none fresh: the best ranked not exhausted');
  });

  it('parsimony: of the best and its relatives, the shortest are asked first, the longer ones once those are exhausted', () => {
    // The best carries a helper nothing calls any more (what a partial idea leaves behind).
    const bloated: Program = { ...program('bloated', 10.2), code: `def unused(xs):\n    return xs\n\n\n${best.code}` };
    const ranked = [bloated, best, relative, ancestor, weak];
    const view = (novelty: Record<string, number>): YieldView => ({
      top: () => ranked,
      novelty: (id) => novelty[ranked.find((p) => p.id === id)!.niche!] ?? 1,
      tied: (a, b) => Math.abs(Math.log(a / b)) <= 0.1,
    });
    assert.deepEqual(climbingParent(bloated, view({})), { parent: best, descended: false }, 'the shorter tie, though measured a little lower');
    assert.deepEqual(climbingParent(bloated, view({ best: EXHAUSTED / 2, relative: EXHAUSTED / 2 })), { parent: bloated, descended: false }, 'the longer tie once the shorter ones are exhausted');
    assert.deepEqual(climbingParent(bloated, view({ best: EXHAUSTED / 2, relative: EXHAUSTED / 2, bloated: EXHAUSTED / 2 })), { parent: ancestor, descended: true });
  });

  it('when everything is exhausted, takes the freshest of all', () => {
    assert.deepEqual(climbingParent(best, view({ best: EXHAUSTED * 0.3, relative: EXHAUSTED * 0.4, ancestor: EXHAUSTED * 0.9, weak: EXHAUSTED * 0.6 })), { parent: ancestor, descended: true });
  });
});
