/**
 * Entry of dist/extension.js: wires the daemon connection, the status bar and each feature
 * (proposals, Evolve Selection, the Evolution view, the dashboard, the cluster settings).
 */
import * as vscode from 'vscode';
import type { PeagenApi } from './api';
import { registerCluster } from './cluster/registerCluster';
import { registerCodeLens } from './codeLens/registerCodeLens';
import { registerCommands } from './commands';
import { DaemonConnection } from './daemonConnection';
import { registerDashboard } from './dashboard/registerDashboard';
import { registerEvolutionView } from './evolutionView/registerEvolutionView';
import { registerEvolve } from './evolve/registerEvolve';
import { registerProposals } from './proposals/registerProposals';
import type { Services } from './services';
import { DaemonStatusBar } from './statusBar';

let daemon: DaemonConnection | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<PeagenApi> {
  const output = vscode.window.createOutputChannel('Peagen', { log: true });
  const cluster = registerCluster(context, output);
  daemon = new DaemonConnection(context, output, cluster.environment);
  const statusBar = new DaemonStatusBar(daemon, cluster.connect(daemon));
  context.subscriptions.push(output, daemon, statusBar, ...cluster.disposables, ...registerCommands(daemon));
  const setRunning = (): void => void vscode.commands.executeCommand('setContext', 'peagen.daemonRunning', daemon?.state === 'running' || daemon?.state === 'busy');
  context.subscriptions.push(daemon.onDidChangeState(setRunning));
  setRunning();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('peagen.daemon') || event.affectsConfiguration('peagen.queue') || event.affectsConfiguration('peagen.llm')) {
        void vscode.commands.executeCommand('peagen.restartDaemon');
      }
    }),
  );

  const proposals = registerProposals({ context, output, daemon });
  const services: Services = { context, output, daemon, proposals: proposals.sink };
  const evolve = registerEvolve(services);
  const evolution = registerEvolutionView(services);
  const dashboard = registerDashboard(services);
  context.subscriptions.push(...proposals.disposables, ...evolve.disposables, ...evolution.disposables, ...dashboard.disposables);
  context.subscriptions.push(...registerCodeLens(services, evolve.api));

  // Start in the background: activation must not wait on the daemon, and a failure is
  // shown in the status bar and the log rather than as a failed activation.
  daemon.start().catch((error: Error) => output.error(error.message));

  const connection = daemon;
  return {
    get state() {
      return connection.state;
    },
    status: () => connection.status(),
    get daemonAddress() {
      return connection.where;
    },
    stopDaemon: () => connection.stop(),
    statusBarText: () => statusBar.text,
    statusBarTooltip: () => statusBar.tooltipMarkdown,
    submitAndWait: (spec, waitMs) => connection.submitAndWait(spec, waitMs),
    proposals: proposals.api,
    evolve: evolve.api,
    evolution: evolution.api,
    dashboard: dashboard.api,
    cluster: cluster.api,
  };
}

/** VS Code waits for this: the daemon gets its shutdown and exit before the host goes. */
export function deactivate(): Promise<void> | undefined {
  return daemon?.stop();
}
