/**
 * The dashboard's data shaping (history → numbers and series, token rates over a window), its
 * page (a strict CSP: nothing by default, our script only by nonce) and the chart scaling of
 * media/dashboard.js.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { RunProgress } from '../../shared/evolution';
import { contentSecurityPolicy, dashboardHtml } from '../../extension/dashboard/dashboardHtml';
import { DashboardHistory, METRICS, tokenRates } from '../../extension/dashboard/dashboardModel';
import { runProgress } from '../fixtures/runProgress';

function progress(overrides: Partial<RunProgress>): RunProgress {
  return runProgress({ runId: 'r1', example: 'bad_sort', best: null, generation: 0, evaluations: 0, failedEvaluations: 0, evaluationsPerMinute: 0, elapsedMs: 0, ...overrides });
}

const status = (pending: number): { queue: { pending: number; inFlight: number; delayed: number; dead: number } } => ({ queue: { pending, inFlight: 0, delayed: 0, dead: 0 } });

describe('dashboard model', function () {
  it('shows nothing but a hint before any run reports', function () {
    const model = new DashboardHistory().model();
    assert.equal(model.run, null);
    assert.match(model.caption, /No run has reported yet/);
    for (const metric of METRICS) assert.equal(model.display[metric], '—', metric);
  });

  it('shapes the run so far into the latest numbers and one series per metric on the run clock', function () {
    const history = new DashboardHistory();
    const t0 = 1_000_000;
    history.recordStatus(status(9), t0 - 5_000); // before the run: not on its chart
    history.recordProgress(progress({ evaluations: 1, elapsedMs: 2_000, evaluationsPerMinute: 30 }), t0 + 2_000);
    history.recordStatus(status(3), t0 + 3_000);
    history.recordProgress(
      progress({
        evaluations: 4,
        elapsedMs: 12_000,
        evaluationsPerMinute: 20,
        best: { id: 'x', objective: 3.5, generation: 2, confirmed: true },
        tokens: { inputTokens: 800, outputTokens: 200 },
        patchYield: { firstTry: 0.5, afterRepair: 0.75, answers: 4 },
        mutator: 'llm-patch',
      }),
      t0 + 12_000,
    );
    history.recordStatus(status(1), t0 + 13_000);
    const model = history.model();
    assert.deepEqual(model.metrics, { bestObjective: 3.5, evaluations: 4, evaluationsPerMinute: 20, tokensPerSecond: 100, pendingTasks: 1, patchYield: 0.5 });
    assert.deepEqual(model.display, {
      bestObjective: '3.5',
      evaluations: '4',
      evaluationsPerMinute: '20.0',
      tokensPerSecond: '100.0',
      pendingTasks: '1',
      patchYield: '50% (75% after repair)',
    });
    assert.deepEqual(model.series.evaluations, [
      [2, 1],
      [12, 4],
    ]);
    assert.deepEqual(model.series.bestObjective, [[12, 3.5]]);
    assert.deepEqual(model.series.pendingTasks, [
      [3, 3],
      [13, 1],
    ]);
    assert.deepEqual(model.series.patchYield, [[12, 0.5]]);
    assert.equal(model.run?.objectiveName, 'speedup');
    assert.match(model.caption, /bad_sort · run r1 · running · 12 s · llm-patch/);
  });

  it('follows the run that reported last', function () {
    const history = new DashboardHistory();
    history.recordProgress(progress({ runId: 'a', evaluations: 7 }));
    history.recordProgress(progress({ runId: 'b', evaluations: 2 }));
    assert.equal(history.model().run?.runId, 'b');
    assert.equal(history.model().metrics.evaluations, 2);
  });

  it('averages token rates over the last 30 s of the run, and has none for the first sample', function () {
    const at = (seconds: number, tokens: number): RunProgress => progress({ elapsedMs: seconds * 1000, tokens: { inputTokens: tokens, outputTokens: 0 } });
    assert.deepEqual(tokenRates([at(0, 0)]), []);
    assert.deepEqual(tokenRates([at(0, 0), at(10, 1000), at(20, 1000), at(50, 4000)]), [
      [10, 100],
      [20, 50],
      [50, 100], // from the sample at 20 s: the one at 10 s is more than 30 s back
    ]);
  });

  it('keeps a long run bounded but whole: the start thins out, the latest stays', function () {
    const history = new DashboardHistory();
    for (let evaluation = 1; evaluation <= 5000; evaluation++) history.recordProgress(progress({ evaluations: evaluation, elapsedMs: evaluation * 1000 }), evaluation * 1000);
    const series = history.model().series.evaluations;
    assert.ok(series.length <= 600, `${series.length} samples`);
    assert.equal(series[0]![1], 1);
    assert.equal(series.at(-1)![1], 5000);
  });
});

describe('dashboard page', function () {
  const html = dashboardHtml({ cspSource: 'https://webview.example', nonce: 'N0nce', scriptUri: 'https://webview.example/media/dashboard.js', styleUri: 'https://webview.example/media/dashboard.css' });

  it('allows nothing by default, our stylesheet from the webview origin and scripts only by nonce', function () {
    assert.equal(contentSecurityPolicy('https://webview.example', 'N0nce'), "default-src 'none'; style-src https://webview.example; script-src 'nonce-N0nce'");
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src https:\/\/webview.example; script-src 'nonce-N0nce'">/);
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    assert.deepEqual(scripts, ['<script nonce="N0nce" src="https://webview.example/media/dashboard.js">']);
    assert.doesNotMatch(html, /\sstyle="|\son[a-z]+="|https?:\/\/(?!webview\.example)/);
  });

  it('has a number and a chart for every metric', function () {
    for (const metric of METRICS) {
      assert.match(html, new RegExp(`data-metric="${metric}"`));
      assert.match(html, new RegExp(`<svg[^>]*data-chart="${metric}"`));
    }
  });

  it('scales a series into the chart box (media/dashboard.js), y upwards, flat series mid-height', function () {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { chartPoints } = require(path.join(__dirname, '..', '..', '..', 'media', 'dashboard.js')) as { chartPoints: (series: [number, number][], w?: number, h?: number, pad?: number) => string };
    assert.equal(
      chartPoints(
        [
          [0, 0],
          [5, 10],
          [10, 5],
        ],
        100,
        20,
        0,
      ),
      '0.0,20.0 50.0,0.0 100.0,10.0',
    );
    assert.equal(
      chartPoints(
        [
          [0, 3],
          [10, 3],
        ],
        100,
        20,
        0,
      ),
      '0.0,10.0 100.0,10.0',
    );
    assert.equal(chartPoints([], 100, 20, 0), '');
  });
});
