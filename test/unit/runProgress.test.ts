/**
 * The progress line never lies: the evaluations running are on it with their time and limit,
 * the ETA says when one may run to its limit, the line keeps ticking between snapshots, and
 * without a TTY a long evaluation gets a line of its own.
 */
import * as assert from 'node:assert/strict';
import type { RunProgress } from '../../shared/evolution';
import { duration, etaText, ProgressDisplay, progressAged, progressLine, runningText } from '../../daemon/cli/runProgress';
import { runProgress } from '../fixtures/runProgress';

function progress(overrides: Partial<RunProgress> = {}): RunProgress {
  return runProgress({ objectiveUnit: 'x', ...overrides });
}

const stalled: RunProgress['inFlight'] = [
  { label: '#19', elapsedMs: 252_000, limitMs: 300_000 },
  { label: '#20', elapsedMs: 3_000, limitMs: 300_000 },
];

describe('the progress line', () => {
  it('names the evaluations in flight with their elapsed time and limit', () => {
    assert.equal(runningText(stalled), '2 running: #19 4m12s/5m00s, #20 3s/5m00s');
    assert.match(progressLine(progress({ inFlight: stalled, etaMs: 3_000, etaMaxMs: 48_000 })), / · 2 running: #19 4m12s\/5m00s, #20 3s\/5m00s · 12s · ETA 3s–48s$/);
    assert.equal(runningText(undefined), undefined);
    assert.equal(runningText([1, 2, 3, 4, 5].map((n) => ({ label: `#${n}`, elapsedMs: 1000, limitMs: 60_000 }))), '5 running: #1 1s/1m00s, #2 1s/1m00s, #3 1s/1m00s +2 more');
  });

  it('gives the ETA as a range when an evaluation in flight may run to its limit, a single figure otherwise', () => {
    assert.equal(etaText({ etaMs: 3_000, etaMaxMs: 288_000 }), 'ETA 3s–4m48s');
    assert.equal(etaText({ etaMs: 3_000 }), 'ETA 3s');
    assert.equal(etaText({ etaMs: 3_000, etaMaxMs: 3_200 }), 'ETA 3s');
    assert.equal(etaText({}), undefined);
    assert.doesNotMatch(progressLine(progress()), /ETA/);
    assert.equal(duration(2 * 3_600_000 + 5 * 60_000), '2h05m');
  });

  it('on a narrow terminal leaves out the rate and the generation before what is running, the time or the ETA', () => {
    const p = progress({ inFlight: stalled, etaMs: 3_000, etaMaxMs: 48_000, llmCalls: 40, tokens: { inputTokens: 9_000, outputTokens: 1_000 }, patchYield: { firstTry: 0.5, afterRepair: 0.75, answers: 40 } });
    const narrow = progressLine(p, 100);
    assert.ok(narrow.length <= 100, narrow);
    assert.match(narrow, /^best speedup 1\.100 \(1\.1x\) · .*2 running: #19 4m12s\/5m00s, #20 3s\/5m00s · 12s · ETA 3s–48s$/);
    assert.doesNotMatch(narrow, /calls|yield/);
    assert.match(progressLine(p), /40 calls .* yield 50%\/75%|yield 50%\/75% .* 40 calls/, 'a wide line keeps everything');
  });

  it('ages a snapshot: the run and its evaluations older, the ETA nearer, never below zero; a finished run stays as it was', () => {
    const aged = progressAged(progress({ inFlight: stalled, etaMs: 3_000, etaMaxMs: 48_000 }), 5_000);
    assert.equal(aged.elapsedMs, 17_000);
    assert.deepEqual(aged.inFlight?.map((entry) => entry.elapsedMs), [257_000, 8_000]);
    assert.equal(aged.etaMs, 0);
    assert.equal(aged.etaMaxMs, 43_000);
    const finished = progress({ state: 'finished' });
    assert.equal(progressAged(finished, 5_000), finished);
  });
});

describe('ProgressDisplay', () => {
  it('on a TTY redraws the line each tick with the running evaluation\'s time moving on', () => {
    let now = 1_000_000;
    const written: string[] = [];
    const display = new ProgressDisplay(true, (text) => written.push(text), () => now);
    try {
      display.update(progress({ inFlight: [{ label: '#19', elapsedMs: 10_000, limitMs: 300_000 }], etaMs: 1_000, etaMaxMs: 290_000 }));
      now += 62_000;
      display.tick();
      assert.match(written.at(-1)!, /1 running: #19 1m12s\/5m00s · 1m14s · ETA 0s–3m48s$/);
    } finally {
      display.done();
    }
  });

  it('without a TTY prints a line when an evaluation has run long, once per evaluation, and otherwise stays quiet between its 30 s lines', () => {
    let now = 1_000_000;
    const written: string[] = [];
    const display = new ProgressDisplay(false, (text) => written.push(text), () => now);
    try {
      display.update(progress({ inFlight: [{ label: '#19', elapsedMs: 500, limitMs: 4_000 }] }));
      assert.equal(written.length, 1, 'the first snapshot is printed');
      now += 1_000;
      display.tick();
      assert.equal(written.length, 1, 'a short evaluation is not news');
      now += 1_000;
      display.tick();
      assert.equal(written.length, 2, 'past half its limit, the evaluation gets a line');
      assert.match(written[1]!, /1 running: #19 3s\/4s/);
      now += 1_000;
      display.tick();
      assert.equal(written.length, 2, 'once');
      assert.ok(written.every((line) => line.endsWith('\n') && !line.includes('\r')), 'plain lines, no redraws');
    } finally {
      display.done();
    }
  });
});
