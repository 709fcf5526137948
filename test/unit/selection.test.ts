import * as assert from 'node:assert/strict';
import { Rng } from '../../daemon/evolution/rng';
import { AdaptiveEpsilonGreedySelector, EXPLOIT, EXPLORE } from '../../daemon/evolution/selection/adaptiveEpsilonGreedy';
import { createSelector, SELECTOR_NAMES } from '../../daemon/evolution/selection/createSelector';
import { chooseInspirations } from '../../daemon/evolution/selection/inspirations';
import type { Selection } from '../../daemon/evolution/selection/ParentSelector';
import { ThompsonSelector } from '../../daemon/evolution/selection/thompson';
import { TournamentSelector } from '../../daemon/evolution/selection/tournament';
import { Ucb1Selector } from '../../daemon/evolution/selection/ucb1';
import { FAILED, FakeArchive, IMPROVED, ladderArchive, makeProgram, NOT_BETTER, parentSelectorConformance } from '../conformance/parentSelector';

for (const name of SELECTOR_NAMES) parentSelectorConformance(name, () => createSelector(name));

const PARENT_ONLY = { improvedParent: true, improvedBest: false, failed: false, gain: 0.1 };

/** A feedback target; the selectors that do not key on the arm ignore it. */
function pick(arm: string, archive: FakeArchive): Pick<Selection, 'arm' | 'parent' | 'island'> {
  return { arm, parent: archive.best()!, island: 0 };
}

describe('createSelector', () => {
  it('builds every named selector, and epsilon-greedy is the one named first', () => {
    assert.deepEqual([...SELECTOR_NAMES], ['epsilon-greedy', 'ucb1', 'thompson', 'tournament']);
    for (const name of SELECTOR_NAMES) assert.equal(createSelector(name).name, name);
  });

  it('rejects an unknown name, listing the known ones', () => {
    assert.throws(() => createSelector('roulette'), /unknown parent selector "roulette": use one of epsilon-greedy, ucb1, thompson, tournament/);
  });

  it('passes options on and rejects bad or unknown ones clearly', () => {
    const selector = createSelector('epsilon-greedy', { epsilon: 0.3 }) as AdaptiveEpsilonGreedySelector;
    assert.equal(selector.epsilon, 0.3);
    assert.equal((createSelector('tournament', { size: 5 }) as TournamentSelector).size, 5);
    assert.throws(() => createSelector('ucb1', { exploration: -1 }), /bad options for parent selector "ucb1": exploration/);
    assert.throws(() => createSelector('thompson', { temperature: 2 }), /bad options for parent selector "thompson"/);
    assert.throws(() => createSelector('tournament', { size: 9 }), /minSize <= size <= maxSize/);
  });
});

describe('adaptive epsilon-greedy', () => {
  it('starts at ε = 0.15 and multiplies it by 0.96 on each improvement of the best, down to 0.02', () => {
    const archive = ladderArchive(3);
    const selector = new AdaptiveEpsilonGreedySelector();
    assert.equal(selector.epsilon, 0.15);
    selector.feedback(pick(EXPLOIT, archive), IMPROVED);
    assert.ok(Math.abs(selector.epsilon - 0.144) < 1e-12);
    selector.feedback(pick(EXPLOIT, archive), IMPROVED);
    assert.ok(Math.abs(selector.epsilon - 0.13824) < 1e-12);
    for (let i = 0; i < 200; i++) selector.feedback(pick(EXPLOIT, archive), IMPROVED);
    assert.equal(selector.epsilon, 0.02);
  });

  it('multiplies ε by 1.05 after every 8 consecutive feedbacks without improvement, up to 0.5', () => {
    const archive = ladderArchive(3);
    const selector = new AdaptiveEpsilonGreedySelector();
    for (let i = 0; i < 7; i++) selector.feedback(pick(EXPLOIT, archive), i % 2 === 0 ? NOT_BETTER : FAILED);
    assert.equal(selector.epsilon, 0.15, 'seven are not a window');
    selector.feedback(pick(EXPLOIT, archive), NOT_BETTER);
    assert.ok(Math.abs(selector.epsilon - 0.1575) < 1e-12);
    // An improvement of the parent alone resets the count without touching ε.
    for (let i = 0; i < 7; i++) selector.feedback(pick(EXPLORE, archive), NOT_BETTER);
    selector.feedback(pick(EXPLORE, archive), PARENT_ONLY);
    for (let i = 0; i < 7; i++) selector.feedback(pick(EXPLORE, archive), NOT_BETTER);
    assert.ok(Math.abs(selector.epsilon - 0.1575) < 1e-12);
    selector.feedback(pick(EXPLORE, archive), NOT_BETTER);
    assert.ok(Math.abs(selector.epsilon - 0.1575 * 1.05) < 1e-12);
    for (let i = 0; i < 8 * 100; i++) selector.feedback(pick(EXPLOIT, archive), FAILED);
    assert.equal(selector.epsilon, 0.5);
  });

  it('explores less than ε while only exploiting pays, and more while only exploring pays', () => {
    const archive = ladderArchive(3);
    const exploitPays = new AdaptiveEpsilonGreedySelector({ decay: 1 });
    const explorePays = new AdaptiveEpsilonGreedySelector({ decay: 1 });
    for (let i = 0; i < 20; i++) {
      exploitPays.feedback(pick(EXPLOIT, archive), IMPROVED);
      exploitPays.feedback(pick(EXPLORE, archive), NOT_BETTER);
      explorePays.feedback(pick(EXPLORE, archive), IMPROVED);
      explorePays.feedback(pick(EXPLOIT, archive), NOT_BETTER);
    }
    assert.equal(exploitPays.epsilon, 0.15);
    assert.equal(explorePays.epsilon, 0.15);
    assert.ok(exploitPays.explorationProbability() < 0.1, String(exploitPays.explorationProbability()));
    assert.ok(explorePays.explorationProbability() > 0.25, String(explorePays.explorationProbability()));
  });

  it('exploits the best and explores the other elites uniformly', () => {
    const archive = ladderArchive(5);
    const best = archive.best()!;
    const rng = new Rng(9);
    const alwaysExplore = new AdaptiveEpsilonGreedySelector({ epsilon: 1, maxEpsilon: 1 });
    const counts = new Map<string, number>();
    for (let i = 0; i < 800; i++) {
      const selection = alwaysExplore.select(archive, rng);
      assert.equal(selection.arm, EXPLORE);
      counts.set(selection.parent.niche!, (counts.get(selection.parent.niche!) ?? 0) + 1);
    }
    assert.ok(!counts.has(best.niche!), 'exploring picked the best');
    assert.deepEqual([...counts.keys()].sort(), ['n1', 'n2', 'n3', 'n4']);
    for (const count of counts.values()) assert.ok(count > 150 && count < 250, `uneven exploration: ${[...counts.values()].join(', ')}`);

    const exploitSelections = Array.from({ length: 100 }, () => new AdaptiveEpsilonGreedySelector().select(archive, rng));
    const exploited = exploitSelections.filter((selection) => selection.arm === EXPLOIT);
    assert.ok(exploited.length > 70);
    assert.ok(exploited.every((selection) => selection.parent.id === best.id));
  });

  it("exploits the island's best on a multi-island archive", () => {
    const archive = new FakeArchive({ islands: 2 }).add(
      makeProgram({ tag: 'a', objective: 10, island: 0 }),
      makeProgram({ tag: 'b', objective: 3, island: 1 }),
      makeProgram({ tag: 'c', objective: 2, island: 1 }),
    );
    const selector = new AdaptiveEpsilonGreedySelector({ epsilon: 0.02 });
    const rng = new Rng(1);
    for (let i = 0; i < 50; i++) {
      const selection = selector.select(archive, rng, { island: 1 });
      if (selection.arm === EXPLOIT) assert.equal(selection.parent.niche, 'b');
    }
  });

  it('falls back to the best when exploring finds no other elite', () => {
    const archive = ladderArchive(1);
    const selection = new AdaptiveEpsilonGreedySelector({ epsilon: 1, maxEpsilon: 1 }).select(archive, new Rng(1));
    assert.equal(selection.parent.id, archive.best()!.id);
    assert.deepEqual(selection.inspirations, []);
  });
});

describe('ucb1', () => {
  it('tries every niche once before it repeats one, and a new niche as soon as it appears', () => {
    const archive = ladderArchive(6);
    const selector = new Ucb1Selector();
    const rng = new Rng(4);
    const firstRound = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const selection = selector.select(archive, rng);
      firstRound.add(selection.arm);
      selector.feedback(selection, selection.arm === 'n2' ? PARENT_ONLY : NOT_BETTER);
    }
    assert.equal(firstRound.size, 6);
    assert.equal(selector.select(archive, rng).arm, 'n2', 'the one niche that paid is pulled next');
    archive.add(makeProgram({ tag: 'newcomer', objective: 0.5 }));
    assert.equal(selector.select(archive, rng).arm, 'newcomer');
  });

  it('spreads selections still waiting for feedback over the niches', () => {
    const archive = ladderArchive(4);
    const selector = new Ucb1Selector();
    const rng = new Rng(8);
    const arms = Array.from({ length: 8 }, () => selector.select(archive, rng).arm);
    for (const niche of ['n1', 'n2', 'n3', 'n4']) assert.equal(arms.filter((arm) => arm === niche).length, 2);
  });

  it('rewards 1 for improving the parent, 2 for improving the best, 0 for failing', () => {
    const archive = ladderArchive(2);
    const selector = new Ucb1Selector();
    selector.feedback(pick('n1', archive), PARENT_ONLY);
    selector.feedback(pick('n1', archive), IMPROVED);
    selector.feedback(pick('n1', archive), FAILED);
    assert.deepEqual(selector.nicheStats('n1'), { pulls: 3, feedbacks: 3, reward: 3 });
  });
});

describe('thompson', () => {
  it('counts improvements of the best as 1 + bonus successes and a failure or no gain as one failure', () => {
    const archive = ladderArchive(2);
    const selector = new ThompsonSelector();
    selector.feedback(pick('n1', archive), IMPROVED);
    selector.feedback(pick('n1', archive), PARENT_ONLY);
    selector.feedback(pick('n1', archive), FAILED);
    selector.feedback(pick('n1', archive), NOT_BETTER);
    assert.deepEqual(selector.nicheBelief('n1'), { successes: 3, failures: 2 });
  });

  it('favours a niche whose children keep improving, even a weak one', () => {
    const archive = ladderArchive(6);
    const selector = new ThompsonSelector();
    const rng = new Rng(12);
    let weakest = 0;
    for (let i = 0; i < 400; i++) {
      const selection = selector.select(archive, rng);
      if (i >= 100 && selection.arm === 'n1') weakest++;
      selector.feedback(selection, selection.arm === 'n1' ? PARENT_ONLY : NOT_BETTER);
    }
    assert.ok(weakest > 240, `n1 chosen ${weakest} times in 300`);
  });
});

describe('adaptive tournament', () => {
  it('grows by one per improvement up to 8 and shrinks by one per 8 stagnant feedbacks down to 2', () => {
    const archive = ladderArchive(3);
    const selector = new TournamentSelector();
    assert.equal(selector.size, 3);
    selector.feedback(pick('n1', archive), PARENT_ONLY);
    assert.equal(selector.size, 4);
    for (let i = 0; i < 10; i++) selector.feedback(pick('n1', archive), IMPROVED);
    assert.equal(selector.size, 8);
    for (let i = 0; i < 7; i++) selector.feedback(pick('n1', archive), FAILED);
    assert.equal(selector.size, 8);
    selector.feedback(pick('n1', archive), NOT_BETTER);
    assert.equal(selector.size, 7);
    for (let i = 0; i < 8 * 20; i++) selector.feedback(pick('n1', archive), NOT_BETTER);
    assert.equal(selector.size, 2);
  });

  it('never lets the worst elite win a tournament of two or more', () => {
    const archive = ladderArchive(5);
    const selector = new TournamentSelector();
    const rng = new Rng(2);
    for (let i = 0; i < 300; i++) assert.notEqual(selector.select(archive, rng).arm, 'n1');
  });
});

describe('chooseInspirations', () => {
  it('takes the top half by objective, then elites of niches not yet shown', () => {
    // Two islands, so one niche can hold two elites.
    const archive = new FakeArchive({ direction: 'minimize', islands: 2 });
    const spec: Array<[string, number]> = [['k1', 0], ['k2', 0], ['k2', 1], ['k3', 0], ['k3', 1], ['k0', 0], ['k1', 1]];
    spec.forEach(([niche, island], i) => archive.add(makeProgram({ tag: `p${i + 1}`, objective: i + 1, niche, island })));
    const parent = archive.best()!; // p1, niche k1
    const seen = new Set<string>();
    for (let seed = 0; seed < 30; seed++) {
      const chosen = chooseInspirations(archive, parent, 4, new Rng(seed));
      assert.deepEqual(chosen.slice(0, 2).map((p) => p.objective), [2, 3], 'the top two after the parent');
      assert.deepEqual(chosen.slice(2).map((p) => p.niche).sort(), ['k0', 'k3'], 'then niches not yet shown: k0 and k3, not k1 again');
      for (const p of chosen.slice(2)) seen.add(String(p.objective));
    }
    assert.deepEqual([...seen].sort(), ['4', '5', '6'], 'either elite of k3, at random');
  });

  it('rejects a bad count', () => {
    const archive = ladderArchive(3);
    assert.throws(() => chooseInspirations(archive, archive.best()!, -1, new Rng(1)), /non-negative integer/);
  });
});
