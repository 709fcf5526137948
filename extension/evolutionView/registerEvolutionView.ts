/** The Evolution view: runs → niches → elites, refreshed from the daemon's run progress. */
import type * as vscode from 'vscode';
import type { Services } from '../services';
import type { EvolutionViewApi } from './api';

export function registerEvolutionView(services: Services): { api: EvolutionViewApi; disposables: vscode.Disposable[] } {
  void services;
  return { api: {}, disposables: [] };
}
