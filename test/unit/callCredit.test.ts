/**
 * Per-kind call credit: a repair or re-ask gets the attempts its measured rate earns against
 * what a fresh call gives, down to none; and the credit survives a checkpoint.
 */
import * as assert from 'node:assert/strict';
import { CallCredit } from '../../daemon/evolution/credit/callCredit';
import { Rng } from '../../daemon/evolution/rng';

/** Mean attempts granted over many draws. */
function meanGrant(credit: CallCredit, kind: 'format' | 'known', max: number, seed = 1, draws = 400): number {
  const rng = new Rng(seed);
  let total = 0;
  for (let i = 0; i < draws; i++) total += credit.grant(kind, max, rng);
  return total / draws;
}

function teach(credit: CallCredit, kind: Parameters<CallCredit['note']>[0], calls: number, rate: number): void {
  for (let i = 0; i < calls; i++) credit.note(kind, 1, i < Math.round(calls * rate) ? 1 : 0);
}

describe('CallCredit', () => {
  it('with no data, tries each kind of repair (an optimistic start, not a refusal)', () => {
    const credit = new CallCredit();
    const mean = meanGrant(credit, 'format', 2);
    assert.ok(mean > 0.5 && mean < 1.5, `mean grant ${mean}`);
  });

  it('format repairs that fail while fresh calls give children: down to (almost) none', () => {
    const credit = new CallCredit();
    teach(credit, 'first', 60, 0.8);
    teach(credit, 'format', 20, 0);
    assert.ok(meanGrant(credit, 'format', 2) < 0.05, 'a repair that never works is no longer granted');
  });

  it('format repairs that work as well as fresh calls keep their attempts', () => {
    const credit = new CallCredit();
    teach(credit, 'first', 60, 0.6);
    teach(credit, 'format', 30, 0.9);
    assert.ok(meanGrant(credit, 'format', 2) > 1.5, 'a repair that works gets (nearly) all its attempts');
  });

  it('re-asks and format repairs are credited separately', () => {
    const credit = new CallCredit();
    teach(credit, 'first', 60, 0.5);
    teach(credit, 'format', 30, 0.9);
    teach(credit, 'known', 30, 0.05);
    assert.ok(meanGrant(credit, 'format', 2) > 1.5);
    assert.ok(meanGrant(credit, 'known', 2) < 0.1);
  });

  it('evaluation repairs are planned only while they give correct children as often as improve calls', () => {
    const rng = new Rng(3);
    const working = new CallCredit();
    teach(working, 'improve', 40, 0.4);
    teach(working, 'evaluation', 20, 0.7);
    const failing = new CallCredit();
    teach(failing, 'improve', 40, 0.4);
    teach(failing, 'evaluation', 20, 0);
    const share = (credit: CallCredit): number => Array.from({ length: 400 }, () => credit.prefersRepair(rng)).filter(Boolean).length / 400;
    assert.ok(share(working) > 0.85, `working repairs: ${share(working)}`);
    assert.ok(share(failing) < 0.02, `failing repairs: ${share(failing)}`);
  });

  it('recent calls count most: a kind that starts working again earns its attempts back', () => {
    const credit = new CallCredit();
    teach(credit, 'first', 100, 0.5);
    teach(credit, 'format', 40, 0);
    assert.ok(meanGrant(credit, 'format', 2) < 0.1);
    teach(credit, 'format', 100, 0.9);
    assert.ok(meanGrant(credit, 'format', 2) > 1.2);
  });

  it('draws the same numbers whatever the cap, and survives state() → JSON → constructor', () => {
    const credit = new CallCredit();
    teach(credit, 'first', 10, 0.5);
    teach(credit, 'known', 10, 0.3);
    const copy = new CallCredit(JSON.parse(JSON.stringify(credit.state())));
    const a = new Rng(9);
    const b = new Rng(9);
    for (let i = 0; i < 50; i++) {
      const wide = credit.grant('known', 3, a);
      assert.equal(copy.grant('known', 1, b), Math.min(1, wide), 'the cap cuts the same draws');
      assert.deepEqual(a.state(), b.state(), 'and the Rng advanced the same');
    }
    assert.throws(() => new CallCredit({ first: { calls: -1, successes: 0 } }));
  });
});
