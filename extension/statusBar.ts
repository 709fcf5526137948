/**
 * The daemon's health at a glance, in the style of rust-analyzer: an icon and a word,
 * theme colours for warning and error, a spinner while tasks run, and a tooltip with the
 * actions that help.
 */
import * as vscode from 'vscode';
import type { DaemonState } from './api';
import type { DaemonConnection } from './daemonConnection';

const LOOK: Record<DaemonState, { icon: string; word: string; background?: string }> = {
  starting: { icon: '$(loading~spin)', word: 'starting' },
  running: { icon: '$(pass)', word: 'running' },
  busy: { icon: '$(loading~spin)', word: 'busy' },
  error: { icon: '$(error)', word: 'error', background: 'statusBarItem.errorBackground' },
  stopped: { icon: '$(circle-slash)', word: 'stopped', background: 'statusBarItem.warningBackground' },
};

export class DaemonStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('peagen.daemon', vscode.StatusBarAlignment.Left);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly daemon: DaemonConnection) {
    this.item.name = 'Peagen Daemon';
    this.item.command = 'peagen.showStatus';
    this.subscription = daemon.onDidChangeState(() => this.render());
    this.render();
    this.item.show();
  }

  get text(): string {
    return this.item.text;
  }

  get tooltipMarkdown(): string {
    const tooltip = this.item.tooltip;
    return typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? '');
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }

  private render(): void {
    const state = this.daemon.state;
    const look = LOOK[state];
    const tasks = state === 'busy' ? ` (${this.daemon.runningTasks})` : '';
    // The daemon works but wants attention (e.g. candidates run without isolation).
    const warned = (state === 'running' || state === 'busy') && this.daemon.health === 'warning';
    this.item.text = `${warned && state === 'running' ? '$(warning)' : look.icon} Peagen: ${look.word}${tasks}`;
    const background = warned ? 'statusBarItem.warningBackground' : look.background;
    this.item.backgroundColor = background ? new vscode.ThemeColor(background) : undefined;
    const tooltip = new vscode.MarkdownString('', true);
    tooltip.isTrusted = { enabledCommands: ['peagen.showStatus', 'peagen.restartDaemon', 'peagen.showLog'] };
    tooltip.appendMarkdown(`**Peagen daemon: ${look.word}**\n\n`);
    if (this.daemon.stateDetail) tooltip.appendText(`${this.daemon.stateDetail}\n\n`);
    if (state !== 'stopped') tooltip.appendText(`daemon: ${this.daemon.where}\n\n`);
    tooltip.appendMarkdown(
      '[$(info) Status](command:peagen.showStatus) · [$(debug-restart) Restart](command:peagen.restartDaemon) · [$(output) Log](command:peagen.showLog)',
    );
    this.item.tooltip = tooltip;
  }
}
