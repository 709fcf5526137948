/**
 * Niche labels in the user's units: a program placed by the archive's real binning
 * (FeatureSpace) gets a label naming the range its values fall in, open at the ends, and a bin
 * whose edges are unknown is still named in words, never by its raw key.
 */
import * as assert from 'node:assert/strict';
import { FeatureSpace } from '../../daemon/evolution/evodb/features';
import { binRange, nicheLabel, type NicheAxes } from '../../shared/nicheLabel';

/** The label of the niche the archive puts a program with this code and objective in. */
function labelOf(space: FeatureSpace, axes: Omit<NicheAxes, 'features'>, code: string, objective: number | null, metrics?: Record<string, number>): string {
  return nicheLabel(space.nicheKey(space.features({ code, objective, ...(metrics && { metrics }) })), { ...axes, features: space.descriptors });
}

describe('niche labels', () => {
  const speedup = { objectiveName: 'speedup', objectiveUnit: 'x' };

  it('says what the default grid’s bins hold: speedup doublings and 500-character steps', () => {
    const space = FeatureSpace.defaults('maximize');
    assert.equal(labelOf(space, speedup, 'x'.repeat(3163), 5), 'speedup 4–8x · 3000–3500 characters');
    assert.equal(labelOf(space, speedup, 'x'.repeat(3000), 4), 'speedup 4–8x · 3000–3500 characters', 'an edge belongs to the bin above it');
    assert.equal(labelOf(space, speedup, 'x'.repeat(499), 1), 'speedup 1–2x · < 500 characters');
  });

  it('opens the end bins: below the first edge and from the last one up', () => {
    const space = FeatureSpace.defaults('maximize');
    assert.equal(labelOf(space, speedup, 'x'.repeat(9000), 0.3), 'speedup < 0.5x · ≥ 8000 characters');
    assert.equal(labelOf(space, speedup, '', 5000), 'speedup ≥ 1024x · < 500 characters');
  });

  it('writes a unit that is a word after a space, and leaves it out when the example declares none', () => {
    const space = FeatureSpace.defaults('minimize');
    assert.equal(labelOf(space, { objectiveName: 'time', objectiveUnit: 'ms' }, 'x'.repeat(600), 0.0015), 'time 0.0009766–0.001953 ms · 500–1000 characters');
    assert.equal(labelOf(space, { objectiveName: 'time' }, 'x'.repeat(600), 300_000), 'time 262144–524288 · 500–1000 characters');
  });

  it('labels declared axes: lines, metrics by their name, an objective axis by the objective’s name', () => {
    const space = new FeatureSpace([
      { name: 'fast', from: 'objective', bins: [1, 2, 4, 8, 16, 32, 64, 128] },
      { name: 'size', from: 'lines', bins: [20, 40, 80] },
      { name: 'peakMb', from: 'metric:peak_mb', bins: [100, 200] },
    ]);
    const code = 'line\n'.repeat(50);
    assert.equal(labelOf(space, speedup, code, 6, { peak_mb: 150 }), 'speedup 4–8x · 40–80 lines · peak mb 100–200');
    assert.equal(labelOf(space, speedup, code, 500, { peak_mb: 10 }), 'speedup ≥ 128x · 40–80 lines · peak mb < 100');
  });

  it('names a bin whose edges it does not know by its axis and number, never by the key', () => {
    assert.equal(nicheLabel('objective=4|codeLength=7', speedup), 'objective bin 4 · code length bin 7', 'no axes known (an older daemon)');
    const features = [{ name: 'objective', from: 'objective', bins: [1, 2] }];
    assert.equal(nicheLabel('objective=1|latency_ms=2', { ...speedup, features }), 'speedup 1–2x · latency ms bin 2', 'an axis the grid does not declare');
    assert.equal(nicheLabel('objective=9', { ...speedup, features }), 'objective bin 9', 'a bin past the edges');
    assert.equal(nicheLabel('', speedup), 'the only niche');
    assert.equal(nicheLabel('not a key', speedup), 'not a key');
  });

  it('says what the structural grid’s bins hold in words: loops, built-ins, recursion, containers', () => {
    const space = FeatureSpace.forNewRun('maximize', { name: 'speedup', unit: 'x' }, 'python');
    const heapSort = 'import heapq\ndef sort(xs):\n    heapq.heapify(xs)\n    return [heapq.heappop(xs) for _ in range(len(xs))]\n';
    assert.equal(labelOf(space, speedup, heapSort, 5), 'speedup 4–8x · loops 1 · 1–2 built-ins · not recursive · no maps or sets');
    const quick = 'def q(xs):\n    if len(xs) < 2:\n        return xs\n    return q([x for x in xs[1:] if x < xs[0]]) + [xs[0]] + q([x for x in xs[1:] if x >= xs[0]])\n';
    assert.equal(labelOf(space, speedup, quick, 1.5), 'speedup 1–2x · loops 1 · no built-ins · recursive · no maps or sets');
    const flat = 'def s(xs):\n    return sorted(set(min(xs), max(xs)))\n';
    assert.equal(labelOf(space, speedup, flat, 40), 'speedup 32–64x · no loops · 3+ built-ins · not recursive · sets');
    const counting = 'def c(xs):\n    seen = {}\n    for x in xs:\n        seen[x] = 1\n    return len(set(seen))\n';
    assert.equal(labelOf(space, speedup, counting, 2).split(' · ')[4], 'maps and sets');
    const deep = 'for a in x:\n    for b in a:\n        for c in b:\n            for d in c:\n                pass\n';
    assert.equal(labelOf(space, speedup, deep, 1).split(' · ')[1], 'loops 3+');
  });

  it('labels declared structure edges by the counts they hold', () => {
    const axes = (from: string, bins: number[]) => ({ ...speedup, features: [{ name: 'axis', from, bins }] });
    assert.equal(nicheLabel('axis=1', axes('structure:builtins', [1, 2, 5])), '1 built-in');
    assert.equal(nicheLabel('axis=2', axes('structure:builtins', [1, 2, 5])), '2–4 built-ins');
    assert.equal(nicheLabel('axis=3', axes('structure:builtins', [1, 2, 5])), '5+ built-ins');
    assert.equal(nicheLabel('axis=0', axes('structure:loops', [2])), 'loops 0–1');
    assert.equal(nicheLabel('axis=1', axes('structure:loops', [2])), 'loops 2+');
    assert.equal(nicheLabel('axis=1', axes('structure:loops', [1.5])), 'axis ≥ 1.5', 'edges between counts: the range as numbers');
    assert.equal(nicheLabel('axis=0', axes('structure:loops', [0, 2])), 'axis < 0', 'a bin no count can be in: the range as numbers');
    assert.equal(nicheLabel('axis=1', axes('structure:containers', [1, 2, 3])), 'maps');
    assert.equal(nicheLabel('axis=0', axes('structure:containers', [2])), 'axis < 2', 'a bin of maps and of none: the range as numbers');
  });

  it('spells out a range with a negative edge', () => {
    assert.equal(binRange([-4, -2, 0], 1), '-4 to -2');
    assert.equal(binRange([-4, -2, 0], 3, '%'), '≥ 0%');
    assert.equal(binRange([1, 2], 5), undefined);
  });
});
