/**
 * The `peagen.proposalActive` context key (editor-title Accept/Reject buttons, keybindings,
 * palette entries): true exactly while the active editor is a proposal's diff, or a file
 * editor of a file with an open proposal.
 */
import * as vscode from 'vscode';
import { proposalIdOf } from './proposalDocuments';
import type { ProposalStore } from './proposalStore';

export class ProposalActiveContext implements vscode.Disposable {
  private value: boolean | undefined;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly store: ProposalStore) {
    const update = (): void => this.update();
    this.disposables = [
      vscode.window.onDidChangeActiveTextEditor(update),
      vscode.window.tabGroups.onDidChangeTabs(update),
      vscode.window.tabGroups.onDidChangeTabGroups(update),
      store.onDidChange(update),
    ];
    this.update();
  }

  /** The value last given to the context key. */
  get active(): boolean {
    return this.value ?? false;
  }

  private update(): void {
    const isOpen = (id: string | undefined): boolean => id !== undefined && this.store.get(id)?.state === 'open';
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    const editor = vscode.window.activeTextEditor;
    const active =
      (input instanceof vscode.TabInputTextDiff && isOpen(proposalIdOf(input.modified))) ||
      (editor !== undefined && (isOpen(proposalIdOf(editor.document.uri)) || this.store.openFor(editor.document.uri.toString()).length > 0));
    if (active === this.value) return;
    this.value = active;
    void vscode.commands.executeCommand('setContext', 'peagen.proposalActive', active);
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}
