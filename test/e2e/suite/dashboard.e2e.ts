/**
 * The dashboard as a user sees it: its webview's DOM (read by the browser driver) shows numbers
 * that move while a run started with the `peagen` CLI goes on, and the same values after the
 * panel was hidden behind another editor and shown again.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';
import { screenshot, webviewTexts } from './driver';
import { type CliRun, EXTENSION_ID, startCliRun, waitFor } from './helpers';





/** The dashboard's numbers as its DOM shows them, by `data-metric`. */
async function shownMetrics(): Promise<Record<string, string>> {
  const names = ['evaluations', 'bestObjective', 'evaluationsPerMinute', 'tokensPerSecond', 'pendingTasks', 'patchYield'];
  const texts = await Promise.all(names.map((name) => webviewTexts(`[data-metric="${name}"]`)));
  return Object.fromEntries(names.flatMap((name, index) => (texts[index]!.length > 0 ? [[name, texts[index]![0]!]] : [])));
}

function dashboardTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('peagen.dashboard'));
}

describe('Dashboard', function () {
  let api: PeagenApi;
  let folder: string;
  let run: CliRun | undefined;
  let runDir: string | undefined;

  before(async function () {
    this.timeout(60_000);
    api = await vscode.extensions.getExtension<PeagenApi>(EXTENSION_ID)!.activate();
    folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    await waitFor('the daemon to be running', 40_000, () => (api.state === 'running' || api.state === 'busy' ? true : undefined));
  });

  after(async function () {
    this.timeout(60_000);
    if (run && run.child.exitCode === null) run.child.kill('SIGINT');
    const report = await run?.done.catch(() => undefined);
    runDir ??= report?.runDir;
    if (runDir) {
      fs.rmSync(runDir, { recursive: true, force: true });
      // .peagen/runs and .peagen too, when this run made them and nothing else is in them.
      for (const dir of [path.dirname(runDir), path.dirname(path.dirname(runDir))]) {
        try {
          fs.rmdirSync(dir);
        } catch {}
      }
    }
    await vscode.window.tabGroups.close(dashboardTabs());
    const other = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.fsPath.endsWith(path.join('bad_sort', 'peagen.example.json')));
    await vscode.window.tabGroups.close(other);
  });

  it('shows numbers that rise while a run goes on, and the same values after being hidden and shown again', async function () {
    this.timeout(150_000);
    await vscode.commands.executeCommand('peagen.openDashboard');
    assert.equal(api.dashboard.isOpen(), true, 'Open Dashboard opened no panel');
    await waitFor('the dashboard webview', 30_000, async () => ((await webviewTexts('[data-metric="evaluations"]')).length > 0 ? true : undefined));

    // The page shows the last run the daemon saw (an earlier suite's) until this one reports.
    const [shownBefore] = await webviewTexts('[data-metric="evaluations"]');
    // No confirmation or reduction as the run ends: about 10 more evaluations this view does
    // not show differently (they have suites of their own). 40 evaluations of bad_sort_ops
    // (about 0.3 s each) give the page many seconds of a run to watch rise.
    run = startCliRun(folder, ['--evaluations', '40', '--mutator', 'offline', '--confirm-pairs', '0', '--reduce-budget', '0']);
    // Every value the page showed for this run, in order: it must climb while the run goes on.
    const shown: number[] = [];
    const describe = (): string => JSON.stringify(shown);
    await waitFor(
      'the evaluations on the dashboard to rise',
      120_000,
      async () => {
        const [text] = await webviewTexts('[data-metric="evaluations"]');
        if (shown.length === 0 && text === shownBefore) return undefined;
        if (text !== undefined && /^\d+$/.test(text) && Number(text) !== shown.at(-1)) shown.push(Number(text));
        return shown.length >= 2 && shown.at(-1)! > shown[0]! ? true : undefined;
      },
      describe,
    );
    assert.deepEqual(
      shown,
      [...shown].sort((a, b) => a - b),
      `evaluations went down: ${describe()}`,
    );

    const report = await run.done;
    runDir = report.runDir;
    // The run's last progress (its end) can reach the dashboard after the CLI returns; it
    // carries the final elapsed time, so the rate per minute changes with it once more.
    const final = await waitFor('the end of the run on the dashboard', 30_000, () => {
      const model = api.dashboard.model();
      const followed = model.run;
      return followed && followed.runId === report.runId && ['finished', 'interrupted', 'failed'].includes(followed.state) ? model : undefined;
    });
    assert.equal(final.run?.runId, report.runId, 'the dashboard follows the run the CLI started');
    const before = await waitFor('the final numbers on the dashboard', 30_000, async () => {
      const metrics = await shownMetrics();
      return metrics.evaluations === final.display.evaluations && metrics.bestObjective === final.display.bestObjective && metrics.evaluationsPerMinute === final.display.evaluationsPerMinute ? metrics : undefined;
    });
    assert.match(before.bestObjective ?? '', /^\d/, `best objective: ${JSON.stringify(before)}`);
    const charted = await webviewTexts('svg[data-chart="evaluations"] polyline');
    assert.equal(charted.length, 1, 'the evaluations chart has its line');

    // Hide it behind another editor in the same group, then show it again.
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder, 'bad_sort', 'peagen.example.json')));
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Active, preview: false });
    await waitFor('the dashboard to be hidden', 10_000, () => (api.dashboard.isVisible() ? undefined : true));
    assert.equal(api.dashboard.isOpen(), true);
    await vscode.commands.executeCommand('peagen.openDashboard');
    await waitFor('the dashboard to be visible again', 10_000, () => (api.dashboard.isVisible() ? true : undefined));
    const after = await waitFor('the dashboard to show its numbers again', 30_000, async () => {
      const metrics = await shownMetrics();
      return metrics.evaluations !== undefined && metrics.evaluations !== '—' ? metrics : undefined;
    });
    // The run's numbers (pending tasks is the queue's, which other work may change meanwhile).
    const ofRun = (metrics: Record<string, string>): Record<string, string | undefined> => ({
      evaluations: metrics.evaluations,
      bestObjective: metrics.bestObjective,
      evaluationsPerMinute: metrics.evaluationsPerMinute,
      tokensPerSecond: metrics.tokensPerSecond,
      patchYield: metrics.patchYield,
    });
    assert.deepEqual(ofRun(after), ofRun(before), 'the dashboard lost its values when hidden and shown again');
    await screenshot('dashboard');
  });
});
