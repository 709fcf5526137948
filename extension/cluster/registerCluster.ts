/**
 * Pointing the daemon at a shared cluster: `peagen.queue.url`, the Redis password and LLM keys
 * in SecretStorage ("Peagen: Set Redis Password", "Peagen: Set API Key"), handed to a daemon
 * this window spawns in its environment only; what the status bar says about the cluster; and
 * the bundled sample the walkthrough opens.
 */
import * as vscode from 'vscode';
import type { DaemonConnection } from '../daemonConnection';
import type { ClusterApi } from './api';
import { ClusterStatus, type ClusterView } from './clusterStatus';
import { daemonEnvironment, SECRET_VARIABLES, type SecretKey } from './daemonEnvironment';
import { registerOpenSample } from './openSample';
import { registerSecretCommands } from './secretCommands';

export interface ClusterFeature {
  /** The spawned daemon's extra environment (settings and secrets): DaemonConnection takes it. */
  environment: () => Promise<Record<string, string>>;
  api: ClusterApi;
  disposables: vscode.Disposable[];
  /**
   * Registers the commands that need the daemon and watches it; the status bar reads the
   * answer. Its disposables go to `context.subscriptions`.
   */
  connect(daemon: DaemonConnection): ClusterView;
}

export function registerCluster(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): ClusterFeature {
  let status: ClusterStatus | undefined;
  const api: ClusterApi = {
    async secretKeysSet() {
      const keys = Object.keys(SECRET_VARIABLES) as SecretKey[];
      const values = await Promise.all(keys.map((key) => context.secrets.get(key)));
      return keys.filter((_, index) => Boolean(values[index]));
    },
    get target() {
      if (!status) throw new Error('the cluster feature is not connected to the daemon yet');
      return status.target;
    },
    get problem() {
      return status?.problem;
    },
    logDirectory: context.logUri.fsPath,
  };
  return {
    environment: () => daemonEnvironment(context.secrets),
    api,
    disposables: [registerOpenSample(context)],
    connect(daemon) {
      status = new ClusterStatus(daemon, () => context.secrets.get('peagen.redisPassword'));
      context.subscriptions.push(status, ...registerSecretCommands(context.secrets, output, daemon));
      return status;
    },
  };
}
