/**
 * The Node evaluation harness library (harness/js/peagen-harness.js): what a user's own
 * evaluator relies on. The candidate runs in its own process without Node's powers, its
 * answers come back decoded, its time is measured here, and impossible timings are refused.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, tempDir } from '../fixtures/paths';

interface CallResult {
  output: unknown;
  type: string;
  error: string | null;
  mutated: boolean;
  argumentsAfter?: string | null;
  wallNs: number;
  roundTripNs: number;
  ipcNs: number;
}
interface CandidateProcess {
  loadNs: number;
  call(...args: unknown[]): Promise<CallResult>;
  callBatch(calls: unknown[][], options?: { settle?: boolean; maxNs?: number }): Promise<CallResult>;
  cpuNs(): number | null;
  close(): void;
}
interface Harness {
  projectModules(referenceSource: string, programFile: string): unknown;
  Candidate: { start(file: string, options?: Record<string, unknown>): Promise<CandidateProcess> };
  CandidateFailure: new (message: string) => Error;
  ImplausibleTiming: new (message: string) => Error;
  netTime(roundTripNs: number, echoNs: number[], floorNs?: number, fastestEchoNs?: number): { wallNs: number; ipcNs: number; atFloor: boolean };
  chargeUntimedWork(runs: Record<'candidate' | 'reference', UntimedRun[]>, referenceTimedNs: number[]): { charged: number[]; referenceOutsideNs: number };
}
interface UntimedRun {
  timedNs: number;
  outsideNs: number;
  wallNs: number;
  cpuNs: number | null;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const harness = require(path.join(REPO, 'harness', 'js', 'peagen-harness.js')) as Harness;

describe('peagen-harness (Node)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('harness');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const program = (source: string): string => {
    const file = path.join(dir, 'candidate.js');
    fs.writeFileSync(file, source);
    return file;
  };

  it('calls the program in its own process and decodes BigInt, undefined, arrays and objects', async () => {
    const c = await harness.Candidate.start(program('module.exports = { f: (x) => [BigInt(x) * 2n, undefined, { k: x }] };'), { entry: 'f' });
    try {
      const r = await c.call(21);
      assert.equal(r.error, null);
      assert.deepEqual(r.output, [42n, undefined, { k: 21 }]);
      assert.equal(r.type, 'object');
      assert.ok(r.wallNs > 0 && r.ipcNs > 0 && r.roundTripNs >= r.wallNs);
    } finally {
      c.close();
    }
  });

  it('RegExp and Date arguments and answers cross as themselves (two different dates are not equal answers)', async () => {
    const c = await harness.Candidate.start(program('module.exports = { f: (re, when) => [re.test("a{b}"), re.flags, new Date(when.getTime() + 1000)] };'), { entry: 'f' });
    try {
      const r = await c.call(/\{b\}/g, new Date(0));
      assert.equal(r.error, null);
      assert.deepEqual(r.output, [true, 'g', new Date(1000)]);
    } finally {
      c.close();
    }
  });

  it("imports the project's own modules the original imports by relative path (ESM, CommonJS, JSON, TypeScript's .js), and no others", async () => {
    const src = path.join(dir, 'src');
    fs.mkdirSync(path.join(src, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(src, 'lib', 'table.ts'), 'export const table: Record<string, number> = { a: 1 };\n');
    fs.writeFileSync(path.join(src, 'lib', 'util.cjs'), "const extra = require('./extra.json');\nexports.double = (x) => x * 2 + extra.plus;\n");
    fs.writeFileSync(path.join(src, 'lib', 'extra.json'), '{"plus": 0}');
    fs.writeFileSync(path.join(dir, 'answers.json'), '{"a": 1}');
    const original = "import { table } from './lib/table.js';\nimport { double } from './lib/util.cjs';\nexport function f(k) { return double(table[k]); }\n";
    const programFile = path.join(src, 'index.js');
    fs.writeFileSync(programFile, original);
    const modules = harness.projectModules(original, programFile);
    const candidate = path.join(dir, 'candidate.mjs');
    fs.writeFileSync(candidate, original.replace('return double(table[k]);', 'return double(table[k]) + 1;'));
    const c = await harness.Candidate.start(candidate, { entry: 'f', modules });
    try {
      assert.equal((await c.call('a')).output, 3);
    } finally {
      c.close();
    }
    // A module the original never imports (the tests' expected answers) stays out of reach.
    fs.writeFileSync(candidate, `import answers from '../answers.json';\n${original}`);
    await assert.rejects(harness.Candidate.start(candidate, { entry: 'f', modules }), /not allowed here/);
  });

  it('drops from TypeScript imports the names used only as types, as tsc and ts-jest do (Node\'s type stripping keeps them, and the import fails)', async () => {
    const src = path.join(dir, 'src');
    fs.mkdirSync(src, { recursive: true });
    fs.writeFileSync(path.join(src, 'types.ts'), 'export type Hsva = { h: number; s: number; v: number };\n');
    fs.writeFileSync(path.join(src, 'helpers.ts'), 'export const round = (x: number): number => Math.round(x);\n');
    const original =
      "import { Hsva } from './types';\nimport {\n  round,\n  type Hsva as Other,\n} from './helpers';\n\n" +
      'export function brightness(color: Hsva): number {\n  return round(color.v * 2.55);\n}\n';
    const programFile = path.join(src, 'hsv.ts');
    fs.writeFileSync(programFile, original);
    const modules = harness.projectModules(original, programFile);
    const c = await harness.Candidate.start(programFile, { entry: 'brightness', modules });
    try {
      assert.equal((await c.call({ h: 0, s: 0, v: 100 })).output, 255);
      // Its lines are where they were: an error's line number is the source's.
      assert.match((await c.call(null)).error ?? '', /TypeError/);
    } finally {
      c.close();
    }
  });

  it("calls a function the program defines without exporting it (a library's internal helper), CommonJS and ES module", async () => {
    for (const [file, source] of [
      ['helper.js', 'function isNumber(x) { return typeof x === "number"; }\nmodule.exports = function parse(a) { return !isNumber(a); };\n'],
      ['helper.mjs', 'function isNumber(x) { return typeof x === "number"; }\nexport default function parse(a) { return !isNumber(a); }\n'],
    ] as const) {
      fs.writeFileSync(path.join(dir, file), source);
      const c = await harness.Candidate.start(path.join(dir, file), { entry: 'isNumber' });
      try {
        assert.deepEqual([(await c.call(1)).output, (await c.call('1')).output], [true, false]);
      } finally {
        c.close();
      }
    }
  });

  it('tells whether the call changed its arguments without running its code: a getter, a proxy, a frozen or re-prototyped argument is a change', async () => {
    const c = await harness.Candidate.start(
      program(
        [
          'let ran = 0;',
          'const moves = {',
          "  getter: (xs) => Object.defineProperty(xs, 0, { get() { ran += 1; return 1; }, enumerable: true, configurable: true }),",
          '  proxy: (xs) => { xs[0] = new Proxy({}, { ownKeys() { ran += 1; return []; }, getPrototypeOf() { ran += 1; return Object.prototype; } }); },',
          '  freeze: (xs) => Object.freeze(xs),',
          '  proto: (xs) => Object.setPrototypeOf(xs, null),',
          "  hidden: (xs) => Object.defineProperty(xs, 'extra', { value: 1, enumerable: false }),",
          '  none: () => {},',
          '};',
          'module.exports = { f: (xs, move) => { moves[move](xs); return ran; } };',
        ].join('\n'),
      ),
      { entry: 'f' },
    );
    try {
      for (const move of ['getter', 'proxy', 'freeze', 'proto', 'hidden']) {
        const r = await c.call([1, 2], move);
        assert.equal(r.error, null, move);
        assert.equal(r.mutated, true, move);
        assert.equal(r.output, 0, `${move}: no code of the program ran after its call`);
      }
      const untouched = await c.call([1, 2], 'none');
      assert.deepEqual([untouched.mutated, untouched.output], [false, 0]);
    } finally {
      c.close();
    }
  });

  it('tells whether the call changed its arguments (a caller reusing them would see it), and what into, in time however large they are', async () => {
    const c = await harness.Candidate.start(program('module.exports = { f: (xs, keep) => { if (!keep) xs.push(0); return xs.length; } };'), { entry: 'f' });
    try {
      const kept = await c.call([1, 2], true);
      assert.deepEqual([kept.output, kept.mutated, kept.argumentsAfter], [2, false, null]);
      const pushed = await c.call([1, 2], false);
      assert.deepEqual([pushed.output, pushed.mutated], [3, true]);
      assert.notEqual((await c.call([1, 3], false)).argumentsAfter, pushed.argumentsAfter, 'left as another list: another answer');
      // 100,000 points: their snapshot is megabytes, which the reply carried whole, read and
      // compared in some 7 s (simplify-js timed out while the arguments were compared); now
      // within the call's 5 s, changed or not.
      const points = Array.from({ length: 100_000 }, (_, i) => ({ x: i, y: -i }));
      const same = await c.call(points, true);
      assert.deepEqual([same.output, same.mutated, same.argumentsAfter], [100_000, false, null]);
      const grown = await c.call(points, false);
      assert.deepEqual([grown.output, grown.mutated], [100_001, true]);
    } finally {
      c.close();
    }
  });

  it('typed arrays cross as themselves both ways, and a string of 24 MB and an answer of 18 MB cross within the time of a call (base64-js)', async () => {
    const c = await harness.Candidate.start(
      program('module.exports = { f: (bytes, n) => [bytes instanceof Uint8Array, bytes.length, new Float64Array([n, NaN, -0]), new BigInt64Array([-2n])], g: (s) => new Uint8Array(s.length * 3 / 4).fill(7) };'),
      { entry: 'f' },
    );
    try {
      const r = await c.call(Buffer.from('hi'), 1.5);
      assert.equal(r.error, null);
      assert.deepEqual(r.output, [true, 2, new Float64Array([1.5, NaN, -0]), new BigInt64Array([-2n])]);
    } finally {
      c.close();
    }
    // Reading a long line by += and searching it after each chunk was quadratic: this call took
    // minutes (89 MB: over 5), past the call's own time limit.
    const g = await harness.Candidate.start(path.join(dir, 'candidate.js'), { entry: 'g' });
    try {
      const big = await g.call('A'.repeat(24 * 1024 * 1024));
      assert.equal(big.error, null);
      assert.ok(big.output instanceof Uint8Array && big.output.length === 18 * 1024 * 1024 && big.output[0] === 7);
    } finally {
      g.close();
    }
  });

  it("gives the program a Buffer of its own realm (global and require('buffer')): the tests' Buffers arrive as Buffers and its Buffers come back as Node's", async () => {
    // A program that uses Buffer (jsesc, any base64 or byte-level helper) failed: "Buffer is not defined".
    const c = await harness.Candidate.start(
      program(
        "const { Buffer: Required } = require('buffer');\n" +
          'module.exports = { f: (b, text) => [Buffer.isBuffer(b), Required === Buffer, b.toString("hex"), Buffer.from(text, "utf8").toString("base64"), Buffer.concat([b, Buffer.from([0xff])]),\n' +
          '  Object.getPrototypeOf(Buffer.prototype) === Uint8Array.prototype, Buffer.constructor === Function, Buffer.byteLength(text)] };',
      ),
      { entry: 'f', allow: ['buffer'] },
    );
    try {
      const r = await c.call(Buffer.from('hé'), 'héllo wörld');
      assert.equal(r.error, null);
      const [isBuffer, sameModule, hex, base64, joined, ownUint8Array, ownFunction, byteLength] = r.output as unknown[];
      assert.deepEqual([isBuffer, sameModule, hex, base64, byteLength], [true, true, '68c3a9', Buffer.from('héllo wörld').toString('base64'), 13]);
      assert.ok(Buffer.isBuffer(joined), "Node's Buffer in the tests' process");
      assert.deepEqual([...(joined as Uint8Array)], [0x68, 0xc3, 0xa9, 0xff]);
      // Built from the realm's own intrinsics: nothing of the runner's is reachable through it.
      assert.deepEqual([ownUint8Array, ownFunction], [true, true]);
    } finally {
      c.close();
    }
  });

  it('reads an argument of non-ASCII text longer than one read whole (a character split between reads is joined)', async () => {
    const c = await harness.Candidate.start(program('module.exports = (s) => [s.length, s.includes("\\ufffd"), s.slice(-3)];'));
    try {
      assert.deepEqual((await c.call('é'.repeat(100_000) + 'ünï')).output, [100_003, false, 'ünï']);
    } finally {
      c.close();
    }
  });

  it('gives the program no process, no require beyond the allow-list and no code from strings', async () => {
    const c = await harness.Candidate.start(
      program(`module.exports = { f: (what) => {
        if (what === 'process') return typeof process + typeof global + typeof setTimeout;
        if (what === 'require') { try { require('fs'); return 'loaded fs'; } catch (e) { return e.message; } }
        try { return (function () {}).constructor('return 1')(); } catch (e) { return e.name; }
      } };`),
      { entry: 'f' },
    );
    try {
      assert.equal((await c.call('process')).output, 'undefinedundefinedundefined');
      assert.match(String((await c.call('require')).output), /not allowed/);
      assert.equal((await c.call('function')).output, 'EvalError');
    } finally {
      c.close();
    }
  });

  it('reports an exception of the program as the call error, and a hang as a CandidateFailure', async () => {
    const c = await harness.Candidate.start(program('module.exports = (x) => { if (x) for (;;); throw new RangeError("nope"); };'), { callTimeoutMs: 500 });
    try {
      assert.match((await c.call(0)).error ?? '', /RangeError: nope/);
      await assert.rejects(c.call(1), (err: Error) => err instanceof harness.CandidateFailure && /timeout/.test(err.message));
    } finally {
      c.close();
    }
  });

  it('calls the program once per argument list of a batch, in one timed request; a call that throws fails the batch, and settle says which calls return', async () => {
    const c = await harness.Candidate.start(program('module.exports = (x, y) => { if (x < 0) throw new RangeError("negative"); return [x + y]; };'));
    try {
      const r = await c.callBatch([
        [1, 2],
        [3, 4],
        [5, 0],
      ]);
      assert.equal(r.error, null);
      assert.deepEqual(r.output, [[3], [7], [5]]);
      assert.ok(r.wallNs > 0 && r.roundTripNs >= r.wallNs);
      assert.match((await c.callBatch([[1, 1], [-1, 1]])).error ?? '', /call 2 of the batch: RangeError: negative/);
      assert.deepEqual((await c.callBatch([[1, 1], [-1, 1], [2, 2]], { settle: true })).output, [true, false, true]);
    } finally {
      c.close();
    }
  });

  it('settling with maxNs, a call slower than that is not one the batch may use; with heapMb, a call that fills the heap ends the process as a failure', async () => {
    const c = await harness.Candidate.start(
      program('module.exports = (ms, n) => { const end = Date.now() + ms; while (Date.now() < end); const out = []; for (let i = 0; i < n; i += 1) out.push({ i }); return out.length; };'),
      { heapMb: 64 },
    );
    try {
      assert.deepEqual((await c.callBatch([[0, 0], [60, 0], [1, 10]], { settle: true, maxNs: 30e6 })).output, [true, false, true]);
      await assert.rejects(c.callBatch([[0, 1e8]], { settle: true }), (err: Error) => err instanceof harness.CandidateFailure && /process ended/.test(err.message));
    } finally {
      c.close();
    }
  });

  it('reads the arguments before the timed call without running any code of the program (no work can move there)', async () => {
    // Hooks a program could set at load on its own realm, each of which would see the
    // arguments while they are decoded or encoded, before the timed call.
    const hooks = [
      'let seen = 0;',
      "Object.defineProperty(Object.prototype, 'enumerable', { get() { seen += 1; return true; }, configurable: true });",
      "Object.defineProperty(Object.prototype, 'v', { get() { seen += 1; return undefined; }, configurable: true });",
      "Object.defineProperty(Array.prototype, '0', { set() { seen += 1; }, get() { return undefined; }, configurable: true });",
      "Object.defineProperty(RegExp.prototype, 'global', { get() { seen += 1; return false; }, configurable: true });",
      'const iterate = Array.prototype[Symbol.iterator];',
      'Array.prototype[Symbol.iterator] = function () { seen += 1; return iterate.call(this); };',
      'Object.defineProperty(Map, Symbol.hasInstance, { value: () => { seen += 1; return false; } });',
      'Object.defineProperty(Set, Symbol.hasInstance, { value: () => { seen += 1; return false; } });',
      'Map.prototype.set = function () { seen += 1; return this; };',
      'globalThis.Number = function () { seen += 1; return 0; };',
      'seen = 0; // its own defineProperty calls above read the hooked Object.prototype',
      'module.exports = { f: () => seen };',
    ].join('\n');
    const c = await harness.Candidate.start(program(hooks), { entry: 'f' });
    try {
      const r = await c.call([1, 2, [3]], { k: [4] }, new Map([[1, [2]]]), new Set([5]), -0, undefined, /a/gi);
      assert.equal(r.error, null);
      assert.equal(r.output, 0, 'no hook of the program ran before its call');
    } finally {
      c.close();
    }
  });

  it('refuses an answer faster than an empty round trip, and clamps unresolvable times to the floor', () => {
    assert.throws(() => harness.netTime(10_000, [80_000, 90_000, 100_000]), (err: Error) => err instanceof harness.ImplausibleTiming && /implausible timing/.test(err.message));
    assert.throws(() => harness.netTime(0, [50_000]), harness.ImplausibleTiming);
    assert.deepEqual(harness.netTime(60_000, [50_000, 70_000, 80_000], 1000), { wallNs: 1000, ipcNs: 70_000, atFloor: true });
    assert.equal(harness.netTime(1_070_000, [50_000, 70_000, 80_000]).wallNs, 1_000_000);
  });

  describe('work moved out of the timed call', () => {
    const ms = 1e6;
    // CPU outside the timed call, per round: fresh processes of one program on a loaded
    // two-core machine (a start beside another process runs ~25% slower).
    const loadedReference = [98.6, 72.6, 94.4, 73.9, 72.4];
    const loadedSameProgram = [89.8, 73.5, 103.9, 90.9, 93.2];
    const quiet = [71.2, 70.6, 71.4, 68.9, 71.3];
    const runsOf = (outsideMs: number[]): UntimedRun[] => outsideMs.map((outside) => ({ timedNs: 5 * ms, outsideNs: outside * ms, wallNs: 6 * ms, cpuNs: null }));
    /** The ms charged to each of the candidate's rounds. */
    const charges = (candidateMs: number[], referenceMs: number[]): number[] =>
      harness.chargeUntimedWork({ candidate: runsOf(candidateMs), reference: runsOf(referenceMs) }, referenceMs.map(() => 5 * ms)).charged.map((charged) => charged / ms - 5);

    it('charges nothing for the start-up noise of a loaded machine in most rounds (the same program scores 1, not 0.25)', () => {
      assert.deepEqual(charges(loadedSameProgram, loadedReference).map((charge) => charge > 0), [false, false, true, false, false]);
    });

    it('charges every round that did work while loading, even amid that noise; erratic loading does not widen the allowance', () => {
      assert.ok(charges(loadedSameProgram.map((x) => x + 250), loadedReference).every((charge) => charge > 200));
      const sometimes = charges(quiet.map((x, i) => x + (i % 2 === 0 ? 250 : 0)), quiet);
      assert.deepEqual(sometimes.map((charge) => charge > 240), [true, false, true, false, true], 'rounds that skipped the work are slow anyway');
      assert.ok(Math.abs(charges(quiet.map((x) => x + 10), quiet)[0]! - (10 - 2.5)) < 1e-9, 'all but the reference\'s own spread (2.5 ms) is charged');
      assert.ok(charges(quiet.map((x, i) => x + 20 + [0, 60, 5, 90, 30][i]!), quiet).every((charge) => charge > 15));
    });
  });
});
