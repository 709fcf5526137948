/** What every feature of the extension is handed when it registers (extension.ts wires them). */
import * as vscode from 'vscode';
import type { DaemonConnection } from './daemonConnection';
import type { ProposalSink } from './proposals/proposal';

export interface Services {
  context: vscode.ExtensionContext;
  output: vscode.LogOutputChannel;
  daemon: DaemonConnection;
  /** Where proposed edits go: shown as diffs, applied only on Accept. */
  proposals: ProposalSink;
}

/** The project whose `.peagen/runs/` the commands and the Evolution view use: the first workspace folder. */
export function projectDir(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}
