import * as vscode from 'vscode';
import type { DaemonConnection } from './daemonConnection';

export function registerCommands(daemon: DaemonConnection): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('peagen.showStatus', async () => {
      try {
        const status = await daemon.status();
        const { queue, workers, sandbox } = status;
        daemon.output.info(`status: ${JSON.stringify(status)}`);
        const choice = await vscode.window.showInformationMessage(
          `Peagen daemon ${status.daemonVersion} (pid ${status.pid}) — queue ${queue.backend}: ${queue.pending} pending, ` +
            `${queue.inFlight} running, ${queue.dead} dead; ${workers.count} ${workers.mode} workers [${workers.caps.join(', ')}]; ` +
            `sandbox: ${sandbox.executor}${sandbox.isolates ? '' : ' (not isolated)'}`,
          'Show Log',
        );
        if (choice === 'Show Log') daemon.output.show();
      } catch (error) {
        const choice = await vscode.window.showErrorMessage(`Peagen: ${(error as Error).message}`, 'Restart Daemon', 'Show Log');
        if (choice === 'Restart Daemon') await vscode.commands.executeCommand('peagen.restartDaemon');
        if (choice === 'Show Log') daemon.output.show();
      }
    }),
    vscode.commands.registerCommand('peagen.restartDaemon', () =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Restarting the Peagen daemon' }, () =>
        daemon.restart().catch((error: Error) => {
          void vscode.window.showErrorMessage(`Peagen: could not restart the daemon: ${error.message}`);
        }),
      ),
    ),
    vscode.commands.registerCommand('peagen.showLog', () => daemon.output.show()),
    vscode.commands.registerCommand('peagen.startDaemon', () =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Starting the Peagen daemon' }, () =>
        (daemon.isRunning ? Promise.resolve() : daemon.restart()).catch((error: Error) => {
          void vscode.window.showErrorMessage(`Peagen: could not start the daemon: ${error.message}`, 'Show Log').then((choice) => {
            if (choice === 'Show Log') daemon.output.show();
          });
        }),
      ),
    ),
  ];
}
