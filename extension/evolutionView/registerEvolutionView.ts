/** The Evolution view: runs → niches → elites, refreshed from the daemon's run progress. */
import * as vscode from 'vscode';
import type { Services } from '../services';
import type { EvolutionViewApi } from './api';
import { EliteCommands } from './eliteCommands';
import { EvolutionTreeProvider } from './evolutionTree';

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
      await vscode.commands.executeCommand('workbench.view.extension.peagen');
      const node = await provider.findRun(runId);
      if (!node) throw new Error(`the Evolution view does not list run ${runId}`);
      await view.reveal(node, { select: true, focus: false, expand: levels });
    },
    get refreshCount() {
      return provider.refreshCount;
    },
  };
  return { api, disposables };
}
