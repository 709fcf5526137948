/** "Peagen: Evolve Selection", "Peagen: Mutate Selection" and "Peagen: Stop Evolution Run". */
import type * as vscode from 'vscode';
import type { Services } from '../services';
import type { EvolveApi } from './api';

export function registerEvolve(services: Services): { api: EvolveApi; disposables: vscode.Disposable[] } {
  void services;
  return { api: {}, disposables: [] };
}
