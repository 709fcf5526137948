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
import { proposalFiles, type ProposalRecord, type ProposalStore } from './proposalStore';
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

  /**
   * Shows the proposal as a diff: the file (as it is now) against the file with the proposal;
   * a multi-file proposal in the multi-file diff view, every file of it at once.
   */
  async open(record: ProposalRecord): Promise<ProposalCommandResult> {
    this.documents.refresh(record);
    if (record.others.length > 0) {
      const resources = proposalFiles(record).map((file) => [file.uri, file.uri, proposalUri(record, file)]);
      await vscode.commands.executeCommand('vscode.changes', multiDiffTitle(record), resources);
      return { id: record.id, outcome: 'none' };
    }
    const title = `${path.basename(record.input.uri.path)} ↔ Peagen: ${record.input.title}`;
    await vscode.commands.executeCommand('vscode.diff', record.input.uri, proposalUri(record), title);
    return { id: record.id, outcome: 'none' };
  }

  /**
   * Applies the proposal as one WorkspaceEdit (one undo step, across all its files), unless
   * the stale guard refuses one of its files: then none is changed.
   */
  async accept(record: ProposalRecord): Promise<ProposalCommandResult> {
    const { input } = record;
    if (input.awaiting !== undefined) {
      // Not offered for Accept before its gain is measured (the editor-title button and keys still reach here).
      const message = `Peagen has not offered "${input.title}" for Accept: ${input.awaiting}. It is offered once the run measures its gain again beside your code; the diff can be opened meanwhile.`;
      void vscode.window.showInformationMessage(message);
      return { id: record.id, outcome: 'none', message };
    }
    const workspaceEdit = new vscode.WorkspaceEdit();
    const metadata = { label: `Peagen: ${input.title}`, needsConfirmation: false };
    let first: { document: vscode.TextDocument; region: { startLine: number; endLine: number } } | undefined;
    for (const file of proposalFiles(record)) {
      const document = await vscode.workspace.openTextDocument(file.uri);
      const text = document.getText();
      const placement = placeRegion(file.base, text);
      if (!placement.ok) {
        this.store.setState(record.id, 'refused');
        await this.closeDiff(record);
        const where = record.others.length > 0 ? ` (${vscode.workspace.asRelativePath(file.uri)})` : '';
        const message = `Peagen could not accept "${input.title}"${where}: ${placement.reason}.`;
        this.output.warn(message);
        void vscode.window.showErrorMessage(message);
        return { id: record.id, outcome: 'refused', message: placement.reason };
      }
      const edit = regionEdit(text, placement.region, file.replacement);
      workspaceEdit.replace(file.uri, new vscode.Range(document.positionAt(edit.start), document.positionAt(edit.end)), edit.newText, metadata);
      first ??= { document, region: placement.region };
    }
    if (!(await vscode.workspace.applyEdit(workspaceEdit))) {
      const message = `Peagen could not apply "${input.title}" to ${path.basename(input.uri.path)}: the editor refused the edit (is the file read-only?).`;
      void vscode.window.showErrorMessage(message);
      return { id: record.id, outcome: 'none', message };
    }
    const document = first!.document;
    const afterVersion = document.version;
    this.store.setState(record.id, 'accepted');
    const accepted = replacedRegion(first!.region, input.replacement);
    // Every other file changed opens in an editor of its own, behind the first. The editor is
    // what keeps its change: a document the multi-file diff view alone held is discarded when
    // that view closes (seen: the other file's change gone from memory, the file on disk as it
    // was, and one Undo reverting only the first file). It also shows the user what changed.
    for (const other of record.others) {
      const otherDocument = await vscode.workspace.openTextDocument(other.uri);
      await vscode.window.showTextDocument(otherDocument, { preview: false, preserveFocus: true });
    }
    // Show the accepted lines in the file itself, where Undo takes the change back.
    const selectionLine = Math.min(accepted.startLine, Math.max(0, document.lineCount - 1));
    await vscode.window.showTextDocument(document, { preview: false, selection: new vscode.Range(selectionLine, 0, selectionLine, 0) });
    await this.closeDiff(record);
    this.diagnostics.markAccepted(record, accepted, afterVersion);
    const alsoIn = record.others.length > 0 ? ` and ${record.others.map((file) => file.uri.fsPath).join(', ')}` : '';
    this.output.info(`accepted proposal ${record.id} "${input.title}" in ${input.uri.fsPath} (lines ${accepted.startLine + 1}-${accepted.endLine})${alsoIn}`);
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
      const message =
        record.state === 'withdrawn'
          ? `The Peagen proposal "${record.input.title}" was withdrawn: ${record.withdrawnBecause ?? 'its gain was not measured to be one'}. There is nothing to accept.`
          : `The Peagen proposal "${record.input.title}" was already ${record.state}.`;
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
    const uris = new Set(proposalFiles(record).map((file) => proposalUri(record, file).toString()));
    // The multi-file diff view's tab has no input type in the API: it is known by its title.
    const multiTitle = record.others.length > 0 ? multiDiffTitle(record) : undefined;
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter(
        ({ input, label }) =>
          (input instanceof vscode.TabInputTextDiff && uris.has(input.modified.toString())) || (input instanceof vscode.TabInputText && uris.has(input.uri.toString())) || (multiTitle !== undefined && (label === multiTitle || label.startsWith(`${multiTitle} (`))),
      );
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
  }
}

/** The multi-file diff view's title for a proposal of several files (VS Code adds "(N files)" to its tab). */
function multiDiffTitle(record: ProposalRecord): string {
  return `Peagen: ${record.input.title}`;
}
