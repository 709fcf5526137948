/**
 * The read-only `peagen-proposal:` documents: the file as it would be with the proposal
 * accepted. Their path is the file's (so the diff editor picks the file's language) and their
 * query is the proposal id.
 */
import * as vscode from 'vscode';
import { proposalFiles, proposedText, type ProposalFile, type ProposalRecord, type ProposalStore } from './proposalStore';

export const PROPOSAL_SCHEME = 'peagen-proposal';

/** The proposal document of one of its files (by default its first). */
export function proposalUri(record: ProposalRecord, file: Pick<ProposalFile, 'uri'> = record.input): vscode.Uri {
  return vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: file.uri.path, query: record.id });
}

/** The proposal id a `peagen-proposal:` URI names; undefined for any other URI. */
export function proposalIdOf(uri: vscode.Uri | undefined): string | undefined {
  return uri?.scheme === PROPOSAL_SCHEME && uri.query ? uri.query : undefined;
}

/** The file's text as the editor has it (unsaved changes included), else as it is on disk. */
export async function currentText(uri: vscode.Uri): Promise<string> {
  const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
  if (open) return open.getText();
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}

export class ProposalDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly store: ProposalStore) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const record = this.store.get(proposalIdOf(uri) ?? '');
    if (!record) return `This Peagen proposal (${uri.query}) no longer exists: proposals last as long as the window.`;
    // A multi-file proposal has one document per file, told apart by the file's path.
    const files = proposalFiles(record);
    const file = files.find((candidate) => candidate.uri.path === uri.path) ?? files[0]!;
    try {
      return proposedText(record, await currentText(file.uri), file);
    } catch {
      // The file is gone: show what was proposed against the text it was made for.
      return proposedText(record, file.baseText, file);
    }
  }

  /** Re-reads the proposal's documents (after its files changed). */
  refresh(record: ProposalRecord): void {
    for (const file of proposalFiles(record)) this.changed.fire(proposalUri(record, file));
  }

  dispose(): void {
    this.changed.dispose();
  }
}
