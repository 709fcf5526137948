import * as assert from 'node:assert/strict';
import { FeatureSpace } from '../../daemon/evolution/evodb/features';

describe('FeatureSpace', () => {
  const space = new FeatureSpace([
    { name: 'speedup', from: 'objective', bins: [1, 2, 4] },
    { name: 'codeLength', from: 'codeLength', bins: [10, 20] },
    { name: 'lines', from: 'lines', bins: [2, 3] },
    { name: 'memory', from: 'metric:peakMb', bins: [100] },
  ]);

  it('puts a value in the bin counting the edges at or below it', () => {
    assert.deepEqual(
      [0.5, 1, 1.5, 2, 3.99, 4, 1000].map((value) => FeatureSpace.bin([1, 2, 4], value)),
      [0, 1, 1, 2, 2, 3, 3],
    );
  });

  it('reads the objective, code length, lines and metrics', () => {
    const features = space.features({ code: 'a\nbb\nccc\n'.padEnd(12, ' '), objective: 2.5, metrics: { peakMb: 150 } });
    assert.deepEqual(features, { speedup: 2, codeLength: 1, lines: 2, memory: 1 });
    assert.equal(space.nicheKey(features), 'speedup=2|codeLength=1|lines=2|memory=1');
    assert.deepEqual(FeatureSpace.parseNicheKey(space.nicheKey(features)), features);
  });

  it('counts lines without counting a trailing newline as one', () => {
    const lines = (code: string): number | undefined => space.value(space.descriptors[2]!, { code, objective: null });
    assert.deepEqual(['', 'x', 'x\n', 'x\ny', 'x\ny\n'].map(lines), [0, 1, 1, 2, 2]);
  });

  it('puts a failed program (no objective) and a missing metric in bin 0', () => {
    assert.deepEqual(space.features({ code: '', objective: null }), { speedup: 0, codeLength: 0, lines: 0, memory: 0 });
    assert.equal(space.features({ code: '', objective: 8, metrics: { other: 1e9 } }).memory, 0);
  });

  it('has defaults for both directions: log-spaced objective edges and code length every 500 chars', () => {
    for (const direction of ['maximize', 'minimize'] as const) {
      const defaults = FeatureSpace.defaults(direction);
      assert.deepEqual(
        defaults.descriptors.map((descriptor) => descriptor.from),
        ['objective', 'codeLength'],
      );
      const objectiveEdges = defaults.descriptors[0]!.bins;
      objectiveEdges.slice(1).forEach((edge, index) => assert.equal(edge / objectiveEdges[index]!, 2));
      assert.equal(defaults.descriptors[1]!.bins[0], 500);
      assert.equal(defaults.descriptors[1]!.bins.at(-1), 8000);
    }
    // A speedup of 3 and one of 5 are different niches; a 0.01 s runtime and a 100 s one too.
    const maximize = FeatureSpace.defaults('maximize');
    assert.notEqual(maximize.features({ code: '', objective: 3 }).objective, maximize.features({ code: '', objective: 5 }).objective);
    const minimize = FeatureSpace.defaults('minimize');
    assert.notEqual(minimize.features({ code: '', objective: 0.01 }).objective, minimize.features({ code: '', objective: 100 }).objective);
  });

  it('rejects descriptors that would make niches ambiguous or wrong', () => {
    assert.throws(() => new FeatureSpace([{ name: 'x', from: 'objective', bins: [2, 1] }]), /strictly ascending/);
    assert.throws(() => new FeatureSpace([{ name: 'x', from: 'objective', bins: [1, 1] }]), /strictly ascending/);
    assert.throws(
      () =>
        new FeatureSpace([
          { name: 'x', from: 'objective', bins: [1] },
          { name: 'x', from: 'lines', bins: [1] },
        ]),
      /declared twice/,
    );
    assert.throws(() => new FeatureSpace([{ name: 'a|b', from: 'objective', bins: [1] }]), /may not contain/);
    assert.throws(() => new FeatureSpace([{ name: 'x', from: 'bogus', bins: [1] }]), /expected objective/);
    assert.throws(() => FeatureSpace.parseNicheKey('speedup'), /not a niche key/);
  });
});
