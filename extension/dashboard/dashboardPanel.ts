/**
 * The dashboard's webview panel: one at a time, fed the whole model on every change and
 * whenever its webview (re)loads (a hidden panel's webview is discarded; the extension keeps
 * the history, the webview its last model in getState for an instant first paint).
 */
import * as vscode from 'vscode';
import { dashboardHtml, newNonce } from './dashboardHtml';
import type { DashboardModel } from './dashboardModel';

export class DashboardPanel implements vscode.Disposable {
  static readonly viewType = 'peagen.dashboard';
  private readonly panel: vscode.WebviewPanel;
  private readonly subscriptions: vscode.Disposable[] = [];
  private posted = 0;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly model: () => DashboardModel,
    onDispose: () => void,
  ) {
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    this.panel = vscode.window.createWebviewPanel(DashboardPanel.viewType, 'Peagen Dashboard', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [media],
    });
    this.panel.iconPath = vscode.Uri.joinPath(media, 'evolution.svg');
    const webview = this.panel.webview;
    webview.html = dashboardHtml({
      cspSource: webview.cspSource,
      nonce: newNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'dashboard.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'dashboard.css')).toString(),
    });
    this.subscriptions.push(
      webview.onDidReceiveMessage((message: { type?: string }) => {
        if (message?.type === 'ready') this.update();
      }),
      // Shown again: its webview reloads and asks ('ready'); this covers a webview kept alive.
      this.panel.onDidChangeViewState(() => this.update()),
      this.panel.onDidDispose(() => {
        for (const subscription of this.subscriptions) subscription.dispose();
        onDispose();
      }),
    );
  }

  get visible(): boolean {
    return this.panel.visible;
  }

  get postedModels(): number {
    return this.posted;
  }

  reveal(): void {
    this.panel.reveal(undefined, false);
  }

  /** Sends the current model; a hidden panel gets it when its webview loads again. */
  update(): void {
    if (!this.panel.visible) return;
    this.posted++;
    void this.panel.webview.postMessage({ type: 'model', model: this.model() });
  }

  dispose(): void {
    this.panel.dispose();
  }
}
