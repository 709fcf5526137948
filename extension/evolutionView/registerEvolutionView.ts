/** The Evolution view: runs → niches → elites, refreshed from the daemon's run progress. */
import * as vscode from 'vscode';
import type { Services } from '../services';
import type { EvolutionViewApi } from './api';
import { EliteCommands } from './eliteCommands';
import { EvolutionTreeProvider } from './evolutionTree';

/** Resolves at the event's next firing, or after `timeoutMs` (a view that is already loaded fires none). */
function once(event: vscode.Event<void>, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    const subscription = event(done);
    function done(): void {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    }
  });
}

export function registerEvolutionView(services: Services): { api: EvolutionViewApi; disposables: vscode.Disposable[] } {
  const provider = new EvolutionTreeProvider(services.daemon, services.output);
  const view = vscode.window.createTreeView('peagen.evolution', { treeDataProvider: provider, showCollapseAll: true });
  const disposables: vscode.Disposable[] = [
    provider,
    view,
    vscode.commands.registerCommand('peagen.refreshEvolution', () => provider.refresh()),
    ...new EliteCommands(services).register(),
  ];

  const api: EvolutionViewApi = {
    snapshot: () => provider.snapshot(),
    async revealRun(runId, levels = 2) {
      if (!view.visible) {
        // A view shown now loads its root first; revealing before that finds no node.
        const loaded = once(provider.onDidLoadRuns, 10_000);
        await vscode.commands.executeCommand('workbench.view.extension.peagen');
        await loaded;
      }
      const node = await provider.findRun(runId);
      if (!node) throw new Error(`the Evolution view does not list run ${runId}`);
      // The workbench may not have rendered the rows it was just given: try again once it has loaded.
      for (let attempt = 1; ; attempt++) {
        try {
          await view.reveal(node, { select: true, focus: false, expand: levels });
          return;
        } catch (error) {
          if (attempt === 3) throw error;
          const loaded = once(provider.onDidLoadRuns, 2_000);
          provider.refresh();
          await loaded;
        }
      }
    },
    get refreshCount() {
      return provider.refreshCount;
    },
  };
  return { api, disposables };
}
