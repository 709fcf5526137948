/** Entry of dist/extension.js: wires the daemon connection, the status bar and the commands. */
import * as vscode from 'vscode';
import type { PeagenApi } from './api';
import { registerCommands } from './commands';
import { DaemonConnection } from './daemonConnection';
import { DaemonStatusBar } from './statusBar';

let daemon: DaemonConnection | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<PeagenApi> {
  const output = vscode.window.createOutputChannel('Peagen', { log: true });
  daemon = new DaemonConnection(context, output);
  const statusBar = new DaemonStatusBar(daemon);
  context.subscriptions.push(output, daemon, statusBar, ...registerCommands(daemon));
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('peagen.daemon')) void vscode.commands.executeCommand('peagen.restartDaemon');
    }),
  );
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
    submitAndWait: (spec, waitMs) => connection.submitAndWait(spec, waitMs),
  };
}

/** VS Code waits for this: the daemon gets its shutdown and exit before the host goes. */
export function deactivate(): Promise<void> | undefined {
  return daemon?.stop();
}
