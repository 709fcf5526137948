/** "Peagen: Evolve Selection", "Peagen: Mutate Selection" and "Peagen: Stop Evolution Run". */
import * as vscode from 'vscode';
import type { Services } from '../services';
import type { EvolveApi } from './api';
import { evolveSelection, type EvolveSelectionOptions } from './evolveSelection';
import { mutateSelection, type MutateSelectionOptions } from './mutateSelection';
import { RunTracker } from './runTracker';

export function registerEvolve(services: Services): { api: EvolveApi; disposables: vscode.Disposable[] } {
  const tracker = new RunTracker(services);
  /** Commands show their errors; the API (options given by code) rejects with them instead. */
  const shown =
    <A extends unknown[], R>(name: string, action: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | undefined> => {
      try {
        return await action(...args);
      } catch (error) {
        services.output.error(`${name}: ${(error as Error).message}`);
        void vscode.window.showErrorMessage(`Peagen ${name}: ${(error as Error).message}`);
        return undefined;
      }
    };
  /** Editor menus pass the document's URI as the first argument; only a plain object is options. */
  const optionsOf = <T extends object>(arg: unknown): T => (arg && typeof arg === 'object' && !(arg instanceof vscode.Uri) ? (arg as T) : ({} as T));

  const stopRun = async (arg?: string | { runId?: string }): Promise<boolean> => {
    let runId = typeof arg === 'string' ? arg : arg?.runId;
    if (!runId) {
      const active = tracker.activeRuns();
      runId = active.length <= 1 ? active[0] : await vscode.window.showQuickPick(active, { title: 'Peagen: stop which run?' });
    }
    if (!runId) {
      void vscode.window.showInformationMessage('Peagen: no evolution run of this window is running.');
      return false;
    }
    const stopping = await tracker.stop(runId);
    void vscode.window.showInformationMessage(
      stopping ? `Peagen: stopping run ${runId}; it checkpoints, and \`peagen evolve run --resume ${runId}\` continues it.` : `Peagen: run ${runId} is not running in this daemon.`,
    );
    return stopping;
  };

  const disposables = [
    tracker,
    vscode.commands.registerCommand('peagen.evolveSelection', shown('Evolve Selection', (arg?: unknown) => evolveSelection(services, tracker, optionsOf<EvolveSelectionOptions>(arg)))),
    vscode.commands.registerCommand('peagen.mutateSelection', shown('Mutate Selection', (arg?: unknown) => mutateSelection(services, optionsOf<MutateSelectionOptions>(arg)))),
    vscode.commands.registerCommand('peagen.stopRun', shown('Stop Evolution Run', stopRun)),
  ];
  const api: EvolveApi = {
    async evolveSelection(options) {
      const started = await evolveSelection(services, tracker, options);
      if (!started) throw new Error('Evolve Selection did not start a run (a choice was cancelled, or an evaluator was scaffolded for review)');
      return started;
    },
    async mutateSelection(options) {
      const result = await mutateSelection(services, options);
      if (!result) throw new Error('Mutate Selection was cancelled');
      return result;
    },
    lastRun: () => tracker.lastRun(),
  };
  return { api, disposables };
}
