/**
 * Pointing the daemon at a shared cluster: `peagen.queue.url`, the Redis password and LLM keys
 * in SecretStorage ("Peagen: Set Redis Password", "Peagen: Set API Key"), handed to a daemon
 * this window spawns in its environment only.
 */
import type * as vscode from 'vscode';
import type { ClusterApi } from './api';
import { daemonEnvironment } from './daemonEnvironment';

export function registerCluster(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
): { environment: () => Promise<Record<string, string>>; api: ClusterApi; disposables: vscode.Disposable[] } {
  void output;
  return { environment: () => daemonEnvironment(context.secrets), api: {}, disposables: [] };
}
