/** "Peagen: Open Dashboard": the live dashboard webview (P-7). */
import * as vscode from 'vscode';
import type { Services } from '../services';
import type { DashboardApi } from './api';
import { DashboardHistory } from './dashboardModel';
import { DashboardPanel } from './dashboardPanel';

/** Updates closer together than this are one message: a run reports after every evaluation. */
const COALESCE_MS = 250;

export function registerDashboard(services: Services): { api: DashboardApi; disposables: vscode.Disposable[] } {
  const { daemon, context } = services;
  // Recorded from activation on, whether or not the panel is open: opening it shows the run so far.
  const history = new DashboardHistory();
  if (daemon.lastServerStatus) history.recordStatus(daemon.lastServerStatus);
  let panel: DashboardPanel | undefined;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const changed = (): void => {
    if (!panel || pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      panel?.update();
    }, COALESCE_MS);
  };

  const disposables: vscode.Disposable[] = [
    daemon.onRunProgress((progress) => {
      history.recordProgress(progress);
      changed();
    }),
    daemon.onServerStatus((status) => {
      history.recordStatus(status);
      changed();
    }),
    vscode.commands.registerCommand('peagen.openDashboard', () => {
      if (panel) panel.reveal();
      else panel = new DashboardPanel(context.extensionUri, () => history.model(), () => (panel = undefined));
    }),
    {
      dispose: () => {
        if (pending) clearTimeout(pending);
        panel?.dispose();
      },
    },
  ];

  const api: DashboardApi = {
    isOpen: () => panel !== undefined,
    isVisible: () => panel?.visible ?? false,
    model: () => history.model(),
    get postedModels() {
      return panel?.postedModels ?? 0;
    },
  };
  return { api, disposables };
}
