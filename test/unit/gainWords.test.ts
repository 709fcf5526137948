/**
 * What a user reads about a run's measured gain outside the daemon: the end notification, the
 * proposals' titles, and a proposal taken back because its gain was within the noise (nothing
 * to accept, and the proposal says why).
 */
import * as assert from 'node:assert/strict';
import { runEndSummary } from '../../extension/evolve/runEndSummary';
import { measuredTitle, reviewTitle } from '../../extension/evolve/reviewTitle';
import type { ProposalInput } from '../../extension/proposals/proposal';
import { ProposalStore, summarize } from '../../extension/proposals/proposalStore';
import { GAIN, GainConfirmationSchema, NO_MEASURABLE_IMPROVEMENT, type GainConfirmation } from '../../shared/evolution';
import { runProgress } from '../fixtures/runProgress';

const GAINED: GainConfirmation = { programId: 'b'.repeat(64), measure: 'ratio', value: 1.42, low: 1.3, high: 1.55, pairs: 3, verdict: GAIN, zeroSpread: false, measured: [], elapsedMs: 9000 };
const NOISE: GainConfirmation = { ...GAINED, value: 1.03, low: 0.82, high: 1.29, pairs: 5, verdict: NO_MEASURABLE_IMPROVEMENT };

const PROGRESS = runProgress({
  runId: 'r1',
  example: 'f',
  state: 'finished',
  best: { id: 'b'.repeat(64), objective: 1.1, generation: 2, confirmed: true },
  evaluations: 12,
  failedEvaluations: 0,
  evaluationsPerMinute: 1,
  elapsedMs: 1,
  stopReason: 'evaluations',
});

describe('the measured gain in the editor', () => {
  it('the end notification shows the interval beside the figure, and below the bar says there is nothing to accept', () => {
    assert.match(runEndSummary({ ...PROGRESS, confirmation: GAINED }), /best speedup 1\.100 \(1\.1x the seed's 1\.000\) \[95% CI 1\.30-1\.55\]\.$/);
    const noise = runEndSummary({ ...PROGRESS, confirmation: NOISE });
    assert.match(noise, /\[95% CI 0\.82-1\.29\]\. No measurable improvement: speedup 1\.03x the seed \[95% CI 0\.82-1\.29\] \(5 pairs measured again, interleaved; the interval holds 1\.0\): nothing to accept\.$/);
    assert.doesNotMatch(runEndSummary(PROGRESS), /CI|measurable/, 'a run without a confirmation says what it said before');
  });

  it('titles the reduced best with its own measured interval', () => {
    const reduction = { bestId: 'b'.repeat(64), bestObjective: 2.7, bestChangedLines: 14, changes: 4, evaluations: 6, reduced: { id: 'r'.repeat(64), objective: 2.6, changedLines: 3, measured: [2.6], checks: {}, confirmation: { ...GAINED, value: 2.6, low: 2.4, high: 2.8 } } };
    assert.match(reviewTitle({ objectiveName: 'speedup', direction: 'maximize', seedObjective: 1 }, reduction), / · measured again against the seed: 2\.60x \[95% CI 2\.40-2\.80\]$/);
    assert.equal(measuredTitle(GAINED), 'measured again against the seed: 1.42x [95% CI 1.30-1.55]');
  });

  it('a withdrawn proposal is no longer open, says why, and is never reopened or retitled', () => {
    const store = new ProposalStore();
    const input = { uri: { toString: () => 'file:///w/f.js' }, baseText: 'a\nb\n', region: { startLine: 0, endLine: 1 }, replacement: 'c', title: 'speedup 1.1 (gen 2)', source: { kind: 'evolve' } } as unknown as ProposalInput;
    const kept = store.add(input);
    const withdrawn = store.add(input);
    store.retitle(kept.id, `speedup 1.1 (gen 2) · ${measuredTitle(GAINED)}`);
    store.withdraw(withdrawn.id, 'no measurable improvement');
    store.retitle(withdrawn.id, 'something else');
    store.setState(withdrawn.id, 'withdrawn');
    assert.deepEqual(store.openFor('file:///w/f.js').map((record) => record.id), [kept.id]);
    assert.equal(summarize(kept).title, 'speedup 1.1 (gen 2) · measured again against the seed: 1.42x [95% CI 1.30-1.55]');
    assert.equal(summarize(withdrawn).state, 'withdrawn');
    assert.equal(summarize(withdrawn).withdrawnBecause, 'no measurable improvement');
    assert.equal(summarize(withdrawn).title, 'speedup 1.1 (gen 2)');
  });

  it('a proposal awaiting its measurement says so until confirmed, then carries its measured title; a withdrawn one is never confirmed', () => {
    const store = new ProposalStore();
    const input = { uri: { toString: () => 'file:///w/f.js' }, baseText: 'a\nb\n', region: { startLine: 0, endLine: 1 }, replacement: 'c', title: 'speedup 1.1 (gen 2)', source: { kind: 'evolve' }, awaiting: 'not yet measured' } as unknown as ProposalInput;
    const best = store.add(input);
    const earlier = store.add(input);
    assert.equal(summarize(best).awaiting, 'not yet measured');
    store.await(best.id, 'not measured again: the run ended before confirming it');
    assert.equal(summarize(best).awaiting, 'not measured again: the run ended before confirming it');
    store.withdraw(earlier.id, 'superseded by a better child of the run');
    store.confirm(earlier.id, 'never');
    store.confirm(best.id, `speedup 1.1 (gen 2) · ${measuredTitle(GAINED)}`);
    assert.equal(summarize(best).awaiting, undefined);
    assert.equal(summarize(best).title, 'speedup 1.1 (gen 2) · measured again against the seed: 1.42x [95% CI 1.30-1.55]');
    assert.equal(summarize(earlier).state, 'withdrawn');
    assert.equal(summarize(earlier).awaiting, 'not yet measured');
  });

  it('the confirmation a client reads is checked: a verdict other than the two is refused', () => {
    assert.equal(GainConfirmationSchema.safeParse(GAINED).success, true);
    assert.equal(GainConfirmationSchema.safeParse({ ...GAINED, verdict: 'probably' }).success, false);
    assert.equal(GainConfirmationSchema.safeParse({ ...GAINED, pairs: -1 }).success, false);
  });
});
