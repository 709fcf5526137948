import * as assert from 'node:assert/strict';
import { EnsembleRouter } from '../../daemon/evolution/llm/EnsembleRouter';
import { Rng } from '../../daemon/evolution/rng';

const THREE = [
  { name: 'a', weight: 1 },
  { name: 'b', weight: 1 },
  { name: 'c', weight: 1 },
];

/** Runs `rounds` calls; `outcome(name)` is what each call on that backend brings. */
function simulate(router: EnsembleRouter, rng: Rng, rounds: number, outcome: (name: string) => { reward: number; costUsd: number }): string[] {
  const chosen: string[] = [];
  for (let i = 0; i < rounds; i++) {
    const name = router.choose(rng);
    chosen.push(name);
    router.feedback(name, outcome(name));
  }
  return chosen;
}

const share = (chosen: string[], name: string): number => chosen.filter((n) => n === name).length / chosen.length;

describe('EnsembleRouter', () => {
  it('weighted: picks in proportion to the weights, the same way for the same seed', () => {
    const backends = [
      { name: 'big', weight: 3 },
      { name: 'small', weight: 1 },
    ];
    const draw = (seed: number): string[] => {
      const router = new EnsembleRouter(backends, 'weighted');
      const rng = new Rng(seed);
      return Array.from({ length: 8000 }, () => {
        const name = router.choose(rng);
        router.feedback(name, { reward: 0, costUsd: 0 });
        return name;
      });
    };
    const first = draw(7);
    assert.deepEqual(draw(7), first);
    assert.notDeepEqual(draw(8), first);
    const big = share(first, 'big');
    assert.ok(big > 0.72 && big < 0.78, `big chosen ${big}`);
  });

  it('bandit: tries every backend before repeating one, counting calls in flight', () => {
    const router = new EnsembleRouter(THREE, 'bandit');
    const rng = new Rng(1);
    // Three parallel calls, no feedback yet: all three backends.
    const inFlight = [router.choose(rng), router.choose(rng), router.choose(rng)];
    assert.deepEqual([...inFlight].sort(), ['a', 'b', 'c']);
  });

  it('bandit: learns which backend improves most per dollar', () => {
    const router = new EnsembleRouter(THREE, 'bandit');
    const rng = new Rng(3);
    // a and b improve equally, b at ten times the price; c never improves.
    const chosen = simulate(router, rng, 600, (name) =>
      name === 'a' ? { reward: 1, costUsd: 0.01 } : name === 'b' ? { reward: 1, costUsd: 0.1 } : { reward: 0, costUsd: 0.001 },
    );
    const late = chosen.slice(300);
    assert.ok(share(late, 'a') > 0.6, `a chosen ${share(late, 'a')} of the late calls`);
    assert.ok(share(late, 'a') > share(late, 'b') && share(late, 'b') > 0 && share(late, 'c') > 0, 'the others are still explored');
  });

  it('bandit: counts failures (reward 0) as calls that bought nothing', () => {
    const router = new EnsembleRouter(
      [
        { name: 'flaky', weight: 1 },
        { name: 'steady', weight: 1 },
      ],
      'bandit',
    );
    const chosen = simulate(router, new Rng(5), 400, (name) => (name === 'flaky' ? { reward: 0, costUsd: 0.02 } : { reward: 0.5, costUsd: 0.02 }));
    assert.ok(share(chosen.slice(200), 'steady') > 0.6);
    const flaky = router.stats().find((stats) => stats.name === 'flaky')!;
    assert.equal(flaky.reward, 0);
    assert.ok(flaky.calls > 0);
    assert.ok(Math.abs(flaky.costUsd - flaky.calls * 0.02) < 1e-9);
  });

  it('reports per-backend totals', () => {
    const router = new EnsembleRouter(THREE, 'weighted');
    router.choose(new Rng(1));
    router.feedback('a', { reward: 0.5, costUsd: 0.01 });
    router.feedback('a', { reward: -3, costUsd: 0.02 });
    router.feedback('b', { reward: Number.NaN, costUsd: 0.03 });
    assert.deepEqual(router.stats(), [
      { name: 'a', weight: 1, calls: 2, reward: 0.5, costUsd: 0.03 },
      { name: 'b', weight: 1, calls: 1, reward: 0, costUsd: 0.03 },
      { name: 'c', weight: 1, calls: 0, reward: 0, costUsd: 0 },
    ]);
  });

  it('restores a saved state: the same rng then gives the same choices', () => {
    const outcome = (name: string): { reward: number; costUsd: number } => ({ reward: name === 'b' ? 1 : 0.2, costUsd: 0.01 });
    const original = new EnsembleRouter(THREE, 'bandit');
    const rng = new Rng(11);
    simulate(original, rng, 50, outcome);
    const saved = JSON.parse(JSON.stringify(original.state())) as unknown;
    const rngState = rng.state();

    const resumed = new EnsembleRouter(THREE, 'bandit');
    resumed.restore(saved);
    assert.deepEqual(resumed.stats(), original.stats());
    assert.deepEqual(simulate(resumed, new Rng(rngState), 50, outcome), simulate(original, rng, 50, outcome));
  });

  it('restores into a changed ensemble: new backends start fresh, dropped ones are forgotten', () => {
    const old = new EnsembleRouter(THREE, 'bandit');
    old.feedback('a', { reward: 1, costUsd: 0.5 });
    old.feedback('c', { reward: 2, costUsd: 0.5 });
    const changed = new EnsembleRouter(
      [
        { name: 'a', weight: 1 },
        { name: 'd', weight: 2 },
      ],
      'bandit',
    );
    changed.restore(old.state());
    assert.deepEqual(changed.stats(), [
      { name: 'a', weight: 1, calls: 1, reward: 1, costUsd: 0.5 },
      { name: 'd', weight: 2, calls: 0, reward: 0, costUsd: 0 },
    ]);
  });

  it('rejects a malformed saved state with a clear error and keeps its own', () => {
    const router = new EnsembleRouter(THREE, 'bandit');
    router.feedback('a', { reward: 1, costUsd: 0.1 });
    const before = router.stats();
    assert.throws(() => router.restore({ version: 1, mode: 'bandit', arms: [{ name: 'a', calls: -1, reward: 0, costUsd: 0 }] }), /invalid saved state: arms\.0\.calls/);
    assert.throws(() => router.restore({ version: 2, mode: 'bandit', arms: [] }), /invalid saved state/);
    assert.throws(() => router.restore('nonsense'), /invalid saved state/);
    assert.deepEqual(router.stats(), before);
  });

  it('refuses bad configurations and unknown names', () => {
    assert.throws(() => new EnsembleRouter([], 'weighted'), /no backends/);
    assert.throws(() => new EnsembleRouter([{ name: 'a', weight: 1 }, { name: 'a', weight: 2 }], 'weighted'), /two backends are named "a"/);
    assert.throws(() => new EnsembleRouter([{ name: 'a', weight: 0 }], 'weighted'), /weight 0/);
    assert.throws(() => new EnsembleRouter(THREE, 'bandit').feedback('z', { reward: 1, costUsd: 0 }), /unknown backend "z"/);
  });
});
