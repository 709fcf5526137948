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
  wallNs: number;
  roundTripNs: number;
  ipcNs: number;
}
interface CandidateProcess {
  loadNs: number;
  call(...args: unknown[]): Promise<CallResult>;
  cpuNs(): number | null;
  close(): void;
}
interface Harness {
  Candidate: { start(file: string, options?: Record<string, unknown>): Promise<CandidateProcess> };
  CandidateFailure: new (message: string) => Error;
  ImplausibleTiming: new (message: string) => Error;
  netTime(roundTripNs: number, echoNs: number[], floorNs?: number, fastestEchoNs?: number): { wallNs: number; ipcNs: number; atFloor: boolean };
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

  it('refuses an answer faster than an empty round trip, and clamps unresolvable times to the floor', () => {
    assert.throws(() => harness.netTime(10_000, [80_000, 90_000, 100_000]), (err: Error) => err instanceof harness.ImplausibleTiming && /implausible timing/.test(err.message));
    assert.throws(() => harness.netTime(0, [50_000]), harness.ImplausibleTiming);
    assert.deepEqual(harness.netTime(60_000, [50_000, 70_000, 80_000], 1000), { wallNs: 1000, ipcNs: 70_000, atFloor: true });
    assert.equal(harness.netTime(1_070_000, [50_000, 70_000, 80_000]).wallNs, 1_000_000);
  });
});
