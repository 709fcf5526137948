/**
 * A gain is a gain only when it is measured to be one: the interval on the seed → best ratio
 * from interleaved re-measures (daemon/evolution/confirm/), the rule that stops measuring, and
 * the loop that measures seed, best, seed, best through the evaluation it is given.
 */
import * as assert from 'node:assert/strict';
import { confirmGain, pairSeed } from '../../daemon/evolution/confirm/confirmGain';
import { gainInterval, isGain, stopDecision, tQuantile975, type MeasuredPair } from '../../daemon/evolution/confirm/interval';
import { reduceBest } from '../../daemon/evolution/reduce/reduceBest';
import type { Evaluation } from '../../shared/evaluation';
import { GAIN, NO_MEASURABLE_IMPROVEMENT } from '../../shared/evolution';
import { confidenceText, confirmationLine } from '../../shared/gainText';
import { programId } from '../../shared/programId';

function evaluation(objective: number | null): Evaluation {
  return { correct: objective !== null, objective, direction: 'maximize', metrics: {}, executor: 'process', exitCode: 0, wallMs: 3 };
}

const pairs = (...values: [number, number][]): MeasuredPair[] => values.map(([seed, best]) => ({ seed, best }));

describe('the interval on a gain (paired log-ratios, Student t)', () => {
  it('uses the t quantiles: 12.706 for one degree of freedom, 2.042 for 30, towards 1.96 beyond', () => {
    assert.equal(tQuantile975(1), 12.706);
    assert.equal(tQuantile975(30), 2.042);
    assert.ok(Math.abs(tQuantile975(60) - 2.0003) < 0.002, String(tQuantile975(60)));
    assert.ok(Math.abs(tQuantile975(1000) - 1.9623) < 0.001);
    assert.throws(() => tQuantile975(0), /whole number/);
  });

  it('computes exp(mean ± t·sd/√n) of the paired log-ratios, by hand', () => {
    const measured = pairs([1, 2], [1, 2.2], [1.1, 2]);
    const logs = measured.map((p) => Math.log(p.best / p.seed));
    const mean = logs.reduce((a, b) => a + b) / 3;
    const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / 2);
    const half = (4.303 * sd) / Math.sqrt(3);
    const interval = gainInterval(measured, 'maximize', true);
    assert.equal(interval.measure, 'ratio');
    assert.ok(Math.abs(interval.value - Math.exp(mean)) < 1e-12);
    assert.ok(Math.abs(interval.low - Math.exp(mean - half)) < 1e-12);
    assert.ok(Math.abs(interval.high - Math.exp(mean + half)) < 1e-12);
    assert.ok(isGain(interval));
  });

  it('orients a minimized objective (a time): the seed over the best, so 2x faster reads 2', () => {
    const interval = gainInterval(pairs([10, 5], [10.2, 5.1], [9.9, 5]), 'minimize', true);
    assert.ok(interval.value > 1.95 && interval.value < 2.05, String(interval.value));
    assert.ok(isGain(interval));
  });

  it('takes a score, or a factor objective with a value ≤ 0, by its difference', () => {
    const score = gainInterval(pairs([60, 70], [61, 70.5], [60.5, 71]), 'maximize', false);
    assert.equal(score.measure, 'difference');
    assert.ok(score.value > 9.5 && score.value < 10.5);
    assert.equal(gainInterval(pairs([0, 1], [0, 1.1]), 'maximize', true).measure, 'difference');
  });

  it('noise is no gain: the identical program measured at 0.99, 1.10, 0.79 against 0.82, 1.10, 1.18 (the issue\'s figures)', () => {
    const interval = gainInterval(pairs([0.99, 0.82], [1.1, 1.1], [0.79, 1.18]), 'maximize', true);
    assert.ok(interval.low < 1 && interval.high > 1, JSON.stringify(interval));
    assert.equal(isGain(interval), false);
  });

  it('a deterministic objective (zero spread) is a gain only when the strict improvement reproduces on every pair', () => {
    const same = gainInterval(pairs([3, 3], [3, 3]), 'maximize', false);
    assert.equal(same.zeroSpread, true);
    assert.equal(isGain(same), false);
    const better = gainInterval(pairs([1, 3], [1, 3]), 'maximize', false);
    assert.equal(better.zeroSpread, true);
    assert.equal(isGain(better), true);
    assert.equal(stopDecision(pairs([1, 3], [1, 3]), 'maximize', false, 5), 'gain');
    assert.equal(stopDecision(pairs([3, 3], [3, 3]), 'maximize', false, 5), 'no_gain', 'more pairs of a deterministic objective say the same');
    // Not every pair better: spread, no gain.
    assert.equal(isGain(gainInterval(pairs([1, 3], [1, 1]), 'maximize', false)), false);
  });
});

describe('when to stop measuring', () => {
  it('waits for two pairs, stops at once when the interval excludes 1.0 on the good side', () => {
    assert.equal(stopDecision(pairs([1, 30]), 'maximize', true, 5), 'continue');
    assert.equal(stopDecision(pairs([1, 30], [1.02, 31]), 'maximize', true, 5), 'gain');
  });

  it('stops without a gain when the interval lies below 1.0, or when more pairs could not lift it within the budget', () => {
    assert.equal(stopDecision(pairs([1, 0.5], [1, 0.51]), 'maximize', true, 5), 'no_gain');
    // Mean below "no change" with spread, three pairs: 5 pairs at the same mean and spread would not help.
    assert.equal(stopDecision(pairs([1, 0.95], [1, 1.1], [1, 0.9]), 'maximize', true, 5), 'no_gain');
    // Two pairs of a small but real-looking gain: more pairs might show it.
    assert.equal(stopDecision(pairs([1, 1.2], [1, 1.1]), 'maximize', true, 5), 'continue');
  });

  it('decides on what there is at the budget', () => {
    const noisy = pairs([1, 1.2], [1, 0.9], [1, 1.3], [1, 0.95], [1, 1.1]);
    assert.equal(stopDecision(noisy.slice(0, 2), 'maximize', true, 2), 'no_gain');
    assert.equal(stopDecision(noisy, 'maximize', true, 5), 'no_gain');
  });
});

describe('confirmGain: seed and best measured again, interleaved', () => {
  it('measures seed, best, seed, best with one evaluation seed per pair, and stops when the gain shows', async () => {
    const asked: [string, number][] = [];
    const outcome = await confirmGain({
      seedCode: 'seed',
      code: 'best',
      programId: programId('best'),
      direction: 'maximize',
      byFactor: true,
      runSeed: 7,
      evaluate: (code, seed) => {
        asked.push([code, seed]);
        return Promise.resolve(evaluation(code === 'seed' ? 1 + 0.01 * asked.length : 3 + 0.01 * asked.length));
      },
    });
    assert.deepEqual(asked, [['seed', pairSeed(7, 0)], ['best', pairSeed(7, 0)], ['seed', pairSeed(7, 1)], ['best', pairSeed(7, 1)]]);
    assert.equal(outcome.confirmation.verdict, GAIN);
    assert.equal(outcome.confirmation.pairs, 2);
    assert.equal(outcome.evaluations, 4);
    assert.ok(outcome.confirmation.low > 1);
    assert.match(confidenceText(outcome.confirmation), /^\[95% CI \d\.\d\d-\d\.\d\d\]$/);
    assert.match(confirmationLine('speedup', outcome.confirmation), /^gain confirmed: speedup 2\.\d\dx the seed \[95% CI/);
  });

  it('says "no measurable improvement" for noise, within its pair budget', async () => {
    // A fixed sequence of noisy timings around 1.0 for both programs.
    const noise = [0.99, 0.82, 1.1, 1.1, 0.79, 1.18, 1.05, 0.93, 0.97, 1.04];
    let i = 0;
    const outcome = await confirmGain({ seedCode: 'a', code: 'b', programId: programId('b'), direction: 'maximize', byFactor: true, runSeed: 1, maxPairs: 5, evaluate: () => Promise.resolve(evaluation(noise[i++]!)) });
    assert.equal(outcome.confirmation.verdict, NO_MEASURABLE_IMPROVEMENT);
    assert.ok(outcome.confirmation.pairs >= 2 && outcome.confirmation.pairs <= 5);
    assert.ok(outcome.confirmation.low < 1 && outcome.confirmation.high > 1);
    assert.match(confirmationLine('speedup', outcome.confirmation), /^no measurable improvement: .*nothing to accept$/);
  });

  it('a best that fails a re-measure is no gain, with the reason', async () => {
    let n = 0;
    const outcome = await confirmGain({ seedCode: 'a', code: 'b', programId: programId('b'), direction: 'maximize', byFactor: true, runSeed: 1, evaluate: (code) => Promise.resolve(evaluation(code === 'a' ? 1 : ++n === 2 ? null : 5)) });
    assert.equal(outcome.confirmation.verdict, NO_MEASURABLE_IMPROVEMENT);
    assert.match(outcome.confirmation.reason ?? '', /candidate failed a re-measure/);
  });

  it('begins no pair past its time budget once it has the two an interval needs', async () => {
    let clock = 0;
    let evaluations = 0;
    const outcome = await confirmGain({
      seedCode: 'a',
      code: 'b',
      programId: programId('b'),
      direction: 'maximize',
      byFactor: true,
      runSeed: 1,
      maxMs: 1500,
      now: () => clock,
      evaluate: (code) => {
        clock += 500;
        evaluations++;
        return Promise.resolve(evaluation(code === 'a' ? 1 : 1.05 + (evaluations % 4) * 0.1));
      },
    });
    assert.equal(outcome.confirmation.pairs, 2, 'two pairs whatever the time; a third (1 s each) would end past 1.5 s');
    assert.equal(outcome.evaluations, 4);
    assert.equal(outcome.confirmation.verdict, NO_MEASURABLE_IMPROVEMENT);
    assert.match(outcome.confirmation.reason ?? '', /time \(2 s\) ran out after 2 pairs/);
  });
});

describe('the reduction keeps a drop only when the same test says the gain stays', () => {
  const SEED = 'a = 1\n#\nb = 2\n';
  const BEST = 'a = 10\n#\nb = 20\n';
  const base = { seed: { code: SEED, objective: 1 }, best: { id: programId(BEST), code: BEST, objective: 3, measurements: [{ seed: 1, objective: 3, wallMs: 1 }] }, direction: 'maximize' as const, budget: 12 };

  it('keeps a drop whose trial is confirmed with the gain, and drops none whose trial is noise', async () => {
    const bestConfirmation = { programId: programId(BEST), measure: 'ratio' as const, value: 3, low: 2.8, high: 3.2, pairs: 2, verdict: GAIN, zeroSpread: false, measured: [], elapsedMs: 1 };
    for (const trialGains of [true, false]) {
      const tried: string[] = [];
      const reduction = await reduceBest({
        ...base,
        evaluate: () => Promise.reject(new Error('a confirmed reduction measures through the gain test only')),
        bestConfirmation,
        confirmTrial: (code, maxPairs) => {
          tried.push(code);
          assert.ok(maxPairs >= 2);
          // "b = 20" is where the gain is: without it, noise.
          const gains = trialGains && code.includes('b = 20');
          return confirmGain({ seedCode: SEED, code, programId: programId(code), direction: 'maximize', byFactor: true, runSeed: 1, maxPairs, evaluate: (program, s) => Promise.resolve(evaluation(program === SEED ? 1 + (s % 3) * 0.01 : gains ? 3 + (s % 2) * 0.01 : 1 + (s % 2) * 0.2)) });
        },
      });
      assert.ok(tried.length >= 1);
      if (trialGains) {
        assert.equal(reduction.reduced?.code, 'a = 1\n#\nb = 20\n');
        assert.equal(reduction.reduced?.confirmation?.verdict, GAIN);
      } else {
        assert.equal(reduction.reduced, undefined, 'a trial whose gain is not measurable keeps its change');
        assert.ok(reduction.trials.every((trial) => !trial.kept));
      }
    }
  });
});
