/**
 * The daemon's health at a glance, in the style of rust-analyzer: an icon and a word, where
 * the work goes (embedded, or the cluster's host), theme colours for warning and error, a
 * spinner while tasks run, and a tooltip with what to fix and the actions that help.
 */
import * as vscode from 'vscode';
import type { DaemonState } from './api';
import type { ClusterView } from './cluster/clusterStatus';
import type { DaemonConnection } from './daemonConnection';

/** The commands the tooltip links to (trusted for exactly these). */
const TOOLTIP_COMMANDS = [
  'peagen.showStatus',
  'peagen.restartDaemon',
  'peagen.showLog',
  'peagen.setRedisPassword',
  'peagen.setApiKey',
  'workbench.action.openSettings',
];
const OPEN_PEAGEN_SETTINGS = `command:workbench.action.openSettings?${encodeURIComponent(JSON.stringify(['peagen']))}`;

const LOOK: Record<DaemonState, { icon: string; word: string; background?: string }> = {
  starting: { icon: '$(loading~spin)', word: 'starting' },
  running: { icon: '$(pass)', word: 'running' },
  busy: { icon: '$(loading~spin)', word: 'busy' },
  error: { icon: '$(error)', word: 'error', background: 'statusBarItem.errorBackground' },
  stopped: { icon: '$(circle-slash)', word: 'stopped', background: 'statusBarItem.warningBackground' },
};

export class DaemonStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('peagen.daemon', vscode.StatusBarAlignment.Left);
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly daemon: DaemonConnection,
    private readonly cluster?: ClusterView,
  ) {
    this.item.name = 'Peagen Daemon';
    this.item.command = 'peagen.showStatus';
    this.subscriptions = [daemon.onDidChangeState(() => this.render()), ...(cluster ? [cluster.onDidChange(() => this.render())] : [])];
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
    for (const subscription of this.subscriptions) subscription.dispose();
    this.item.dispose();
  }

  private render(): void {
    const state = this.daemon.state;
    const look = LOOK[state];
    const tasks = state === 'busy' ? ` (${this.daemon.runningTasks})` : '';
    // The daemon works but wants attention (e.g. candidates run without isolation).
    const warned = (state === 'running' || state === 'busy') && this.daemon.health === 'warning';
    const target = this.cluster?.target;
    this.item.text = `${warned && state === 'running' ? '$(warning)' : look.icon} Peagen: ${look.word}${tasks}${target ? ` · ${target.label}` : ''}`;
    const background = warned ? 'statusBarItem.warningBackground' : look.background;
    this.item.backgroundColor = background ? new vscode.ThemeColor(background) : undefined;
    const tooltip = new vscode.MarkdownString('', true);
    tooltip.isTrusted = { enabledCommands: TOOLTIP_COMMANDS };
    tooltip.appendMarkdown(`**Peagen daemon: ${look.word}**\n\n`);
    const problem = state === 'error' || state === 'starting' || state === 'stopped' ? this.cluster?.problem : undefined;
    if (problem) {
      tooltip.appendMarkdown('$(error) ');
      tooltip.appendText(`${problem}\n\n`);
    }
    if (this.daemon.stateDetail) tooltip.appendText(`${this.daemon.stateDetail}\n\n`);
    if (target) tooltip.appendText(`queue: ${target.mode === 'cluster' ? 'cluster (shared Redis queue)' : 'embedded (in-memory, this daemon only)'}${target.host ? `, ${target.host}` : ''}\n\n`);
    if (state !== 'stopped') tooltip.appendText(`daemon: ${this.daemon.where}\n\n`);
    tooltip.appendMarkdown(
      '[$(info) Status](command:peagen.showStatus) · [$(debug-restart) Restart](command:peagen.restartDaemon) · [$(output) Log](command:peagen.showLog)\n\n' +
        `[$(key) Set Redis Password](command:peagen.setRedisPassword) · [$(key) Set API Key](command:peagen.setApiKey) · [$(settings-gear) Settings](${OPEN_PEAGEN_SETTINGS})`,
    );
    this.item.tooltip = tooltip;
  }
}
