import * as assert from 'node:assert/strict';
import { EvoDB } from '../../daemon/evolution/evodb/EvoDB';
import { FeatureSpace } from '../../daemon/evolution/evodb/features';
import { ExampleConfigSchema } from '../../shared/evaluation';
import { makeProgram } from './evodbFixtures';

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

describe('FeatureSpace: structural axes', () => {
  const speedup = { name: 'speedup', unit: 'x', direction: 'maximize' as const };
  const SEED = ['def sort(xs):', '    for i in range(len(xs)):', '        for j in range(len(xs) - 1):', '            if xs[j] > xs[j + 1]:', '                xs[j], xs[j + 1] = xs[j + 1], xs[j]', '    return xs', ''].join('\n');
  /** The seed with a needless copy dropped: the same family, a little faster. */
  const NEUTRAL = SEED.replace('    return xs', '    return list(xs)  # a copy');
  /** A heap: another family, its first step no faster than the seed (a stepping stone). */
  const HEAP = ['import heapq', 'def sort(xs):', '    heapq.heapify(xs)', '    out = []', '    while xs:', '        out.append(heapq.heappop(xs))', '    return out', ''].join('\n');

  it('a Python or JavaScript program gets objective x loops x built-ins x recursion x containers; any other keeps objective x code length', () => {
    const python = FeatureSpace.forNewRun('maximize', speedup, 'python');
    assert.deepEqual(
      python.descriptors.map(({ name, from, bins, language }) => ({ name, from, bins: from === 'objective' ? 'objective' : bins, language })),
      [
        { name: 'objective', from: 'objective', bins: 'objective', language: undefined },
        { name: 'loops', from: 'structure:loops', bins: [1, 2, 3], language: 'python' },
        { name: 'builtins', from: 'structure:builtins', bins: [1, 3], language: 'python' },
        { name: 'recursion', from: 'structure:recursion', bins: [1], language: 'python' },
        { name: 'containers', from: 'structure:containers', bins: [1, 2, 3], language: 'python' },
      ],
    );
    assert.deepEqual(FeatureSpace.forNewRun('maximize', speedup, undefined).descriptors, FeatureSpace.defaults('maximize', speedup).descriptors);
    const cells = (space: FeatureSpace): number => space.descriptors.reduce((product, descriptor) => product * (descriptor.bins.length + 1), 1);
    // 13 speedup bins x 4 x 3 x 2 x 4 = 1248 cells, beside the old grid's 13 x 17 = 221. The
    // archive holds the occupied ones only, and a run's programs fill few structures: the grid
    // may be finer than the old one, not orders of magnitude.
    assert.ok(cells(python) <= 6 * cells(FeatureSpace.defaults('maximize', speedup)), `${cells(python)} cells`);
  });

  it('bins a program by its structure and names its family without the objective', () => {
    const space = FeatureSpace.forNewRun('maximize', speedup, 'python');
    const features = space.features({ code: HEAP, objective: 3 });
    assert.deepEqual(features, { objective: 3, loops: 1, builtins: 1, recursion: 0, containers: 0 });
    assert.equal(space.nicheKey(features), 'objective=3|loops=1|builtins=1|recursion=0|containers=0');
    assert.equal(space.familyKey(features), 'loops=1|builtins=1|recursion=0|containers=0');
    assert.equal(space.familyKey(space.features({ code: HEAP, objective: 40 })), space.familyKey(features), 'one family at any objective');
    assert.equal(FeatureSpace.defaults('maximize').familyKey({ objective: 2, codeLength: 3 }), 'codeLength=3');
  });

  it('keeps a stepping stone of another family in its own niche while neutral variants of the seed improve', () => {
    const grids = {
      structural: FeatureSpace.forNewRun('maximize', speedup, 'python').descriptors,
      'objective x code length': FeatureSpace.defaults('maximize', speedup).descriptors,
    };
    const kept: Record<string, boolean> = {};
    for (const [grid, features] of Object.entries(grids)) {
      const db = new EvoDB({ direction: 'maximize', features });
      const heap = makeProgram(HEAP, 1.05, { length: HEAP.length });
      db.add(makeProgram(SEED, 1, { length: SEED.length }));
      db.add(heap);
      db.add(makeProgram(NEUTRAL, 1.3, { length: NEUTRAL.length }));
      kept[grid] = db.elites().some((elite) => elite.id === heap.id);
      if (grid === 'structural') assert.equal(db.familyOf(heap), 'loops=1|builtins=1|recursion=0|containers=0');
    }
    // Under the old grid the heap shares the seed's niche (same speedup bin, same length bin) and is evicted.
    assert.deepEqual(kept, { structural: true, 'objective x code length': false });
  });

  it("resolves an example's grid: declared axes get the program's language, undeclared ones the structural default", () => {
    const objective = speedup;
    const declared = [{ name: 'depth', from: 'structure:loops', bins: [1, 2] }, { name: 'speedup', from: 'objective', bins: [1, 2] }];
    assert.deepEqual(FeatureSpace.resolve({ objective, features: declared }, 'fib.js'), [
      { name: 'depth', from: 'structure:loops', bins: [1, 2], language: 'javascript' },
      { name: 'speedup', from: 'objective', bins: [1, 2] },
    ]);
    assert.equal(FeatureSpace.resolve({ objective, language: 'python' }, 'sort.py')![1]!.language, 'python');
    assert.equal(FeatureSpace.resolve({ objective, language: 'rust' }, 'main.rs'), undefined, 'another language records no grid: the old default');
    assert.equal(FeatureSpace.resolve({ objective, features: [{ name: 'len', from: 'codeLength', bins: [9] }], language: 'rust' }, 'main.rs')!.length, 1);
  });

  it('refuses a structure axis it cannot read, and an unknown one, saying what to write', () => {
    assert.throws(
      () => FeatureSpace.resolve({ objective: speedup, language: 'rust', features: [{ name: 'loops', from: 'structure:loops', bins: [1] }] }, 'main.rs'),
      /feature loops: structure:loops reads Python or JavaScript, and the example's language "rust" is neither; set the example's "language" to python or javascript/,
    );
    assert.throws(() => new FeatureSpace([{ name: 'loops', from: 'structure:loops', bins: [1] }]), /needs its language/);
    const example = { name: 'x', program: 'a.py', evaluator: ['python3', 'e.py'], objective: speedup };
    const bad = ExampleConfigSchema.safeParse({ ...example, features: [{ name: 'calls', from: 'structure:calls', bins: [1] }] });
    assert.equal(bad.success, false);
    assert.match(bad.error.issues[0]!.message, /structure:loops, structure:builtins, structure:recursion or structure:containers/);
    assert.equal(ExampleConfigSchema.safeParse({ ...example, features: [{ name: 'l', from: 'structure:loops', bins: [1], language: 'ruby' }] }).success, false);
    assert.equal(ExampleConfigSchema.safeParse({ ...example, features: [{ name: 'l', from: 'structure:recursion', bins: [1] }] }).success, true);
  });
});
