/** "Peagen: Open Dashboard": the live dashboard webview (P-7). */
import type * as vscode from 'vscode';
import type { Services } from '../services';
import type { DashboardApi } from './api';

export function registerDashboard(services: Services): { api: DashboardApi; disposables: vscode.Disposable[] } {
  void services;
  return { api: {}, disposables: [] };
}
