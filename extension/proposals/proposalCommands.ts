/**
 * Open Proposal, Accept Proposal and Reject Proposal. Each takes a proposal id (CodeLens, the
 * Evolution view, tests) or a URI (editor-title buttons pass the active resource); without one,
 * the proposal of the active diff editor, else the one whose region holds the cursor.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ProposalDiagnostics } from '../diagnostics/proposalDiagnostics';
import type { ProposalCommandResult } from './api';
import { proposalIdOf, proposalUri, type ProposalDocuments } from './proposalDocuments';
import { proposalAtLine } from './proposalPlacement';
import type { ProposalRecord, ProposalStore } from './proposalStore';
import { regionEdit, replacedRegion } from './regionText';
import { placeRegion } from './staleGuard';

const NO_PROPOSAL = 'No Peagen proposal here: open one from its CodeLens, or put the cursor in its region.';

export class ProposalCommands {
  constructor(
    private readonly store: ProposalStore,
    private readonly documents: ProposalDocuments,
    private readonly diagnostics: ProposalDiagnostics,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  register(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('peagen.openProposal', (target?: unknown) => this.withProposal(target, (record) => this.open(record))),
      vscode.commands.registerCommand('peagen.acceptProposal', (target?: unknown) => this.withProposal(target, (record) => this.accept(record))),
      vscode.commands.registerCommand('peagen.rejectProposal', (target?: unknown) => this.withProposal(target, (record) => this.reject(record))),
    ];
  }

  /** Shows the proposal as a diff: the file (as it is now) against the file with the proposal. */
  async open(record: ProposalRecord): Promise<ProposalCommandResult> {
    const title = `${path.basename(record.input.uri.path)} ↔ Peagen: ${record.input.title}`;
    this.documents.refresh(record);
    await vscode.commands.executeCommand('vscode.diff', record.input.uri, proposalUri(record), title);
    return { id: record.id, outcome: 'none' };
  }

  /** Applies the proposal as one WorkspaceEdit (one undo step), unless the stale guard refuses. */
  async accept(record: ProposalRecord): Promise<ProposalCommandResult> {
    const { input } = record;
    const document = await vscode.workspace.openTextDocument(input.uri);
    const text = document.getText();
    const placement = placeRegion(record.base, text);
    if (!placement.ok) {
      this.store.setState(record.id, 'refused');
      await this.closeDiff(record);
      const message = `Peagen could not accept "${input.title}": ${placement.reason}.`;
      this.output.warn(message);
      void vscode.window.showErrorMessage(message);
      return { id: record.id, outcome: 'refused', message: placement.reason };
    }
    const edit = regionEdit(text, placement.region, input.replacement);
    const workspaceEdit = new vscode.WorkspaceEdit();
    workspaceEdit.replace(input.uri, new vscode.Range(document.positionAt(edit.start), document.positionAt(edit.end)), edit.newText, {
      label: `Peagen: ${input.title}`,
      needsConfirmation: false,
    });
    if (!(await vscode.workspace.applyEdit(workspaceEdit))) {
      const message = `Peagen could not apply "${input.title}" to ${path.basename(input.uri.path)}: the editor refused the edit (is the file read-only?).`;
      void vscode.window.showErrorMessage(message);
      return { id: record.id, outcome: 'none', message };
    }
    const afterVersion = document.version;
    this.store.setState(record.id, 'accepted');
    const accepted = replacedRegion(placement.region, input.replacement);
    // Show the accepted lines in the file itself, where Undo takes the change back.
    const selectionLine = Math.min(accepted.startLine, Math.max(0, document.lineCount - 1));
    await vscode.window.showTextDocument(document, { preview: false, selection: new vscode.Range(selectionLine, 0, selectionLine, 0) });
    await this.closeDiff(record);
    this.diagnostics.markAccepted(record, accepted, afterVersion);
    this.output.info(`accepted proposal ${record.id} "${input.title}" in ${input.uri.fsPath} (lines ${accepted.startLine + 1}-${accepted.endLine})`);
    return { id: record.id, outcome: 'accepted' };
  }

  /** Discards the proposal: its diff closes, the file stays as it is. */
  async reject(record: ProposalRecord): Promise<ProposalCommandResult> {
    this.store.setState(record.id, 'rejected');
    await this.closeDiff(record);
    return { id: record.id, outcome: 'rejected' };
  }

  private async withProposal(target: unknown, action: (record: ProposalRecord) => Promise<ProposalCommandResult>): Promise<ProposalCommandResult> {
    const id = typeof target === 'string' ? target : target instanceof vscode.Uri ? proposalIdOf(target) : undefined;
    const record = id !== undefined ? this.store.get(id) : this.activeProposal();
    if (!record) {
      const message = id !== undefined ? `There is no Peagen proposal ${id} in this window.` : NO_PROPOSAL;
      void vscode.window.showInformationMessage(message);
      return { outcome: 'none', message };
    }
    if (record.state !== 'open') {
      const message = `The Peagen proposal "${record.input.title}" was already ${record.state}.`;
      void vscode.window.showInformationMessage(message);
      return { id: record.id, outcome: 'none', message };
    }
    try {
      return await action(record);
    } catch (error) {
      const message = `Peagen: ${(error as Error).message}`;
      this.output.error(message);
      void vscode.window.showErrorMessage(message);
      return { id: record.id, outcome: 'none', message };
    }
  }

  /** The open proposal of the active diff editor, else the one whose region holds the cursor. */
  activeProposal(): ProposalRecord | undefined {
    const open = (id: string | undefined): ProposalRecord | undefined => {
      const record = id === undefined ? undefined : this.store.get(id);
      return record?.state === 'open' ? record : undefined;
    };
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    const fromTab = open(input instanceof vscode.TabInputTextDiff ? proposalIdOf(input.modified) : undefined);
    if (fromTab) return fromTab;
    const editor = vscode.window.activeTextEditor;
    if (!editor) return undefined;
    return open(proposalIdOf(editor.document.uri)) ?? proposalAtLine(this.store, editor.document, editor.selection.active.line);
  }

  private async closeDiff(record: ProposalRecord): Promise<void> {
    const uri = proposalUri(record).toString();
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter(({ input }) => (input instanceof vscode.TabInputTextDiff && input.modified.toString() === uri) || (input instanceof vscode.TabInputText && input.uri.toString() === uri));
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
  }
}
