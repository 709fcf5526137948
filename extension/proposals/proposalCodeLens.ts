/** The CodeLens over each open proposal's region: its title, Open Diff, Accept and Reject. */
import * as vscode from 'vscode';
import { placedProposals } from './proposalPlacement';
import type { ProposalStore } from './proposalStore';

export class ProposalCodeLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly store: ProposalStore) {}

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const lastLine = Math.max(0, document.lineCount - 1);
    return placedProposals(this.store, document).flatMap(({ record, placement }) => {
      const { id, input } = record;
      // A proposal that cannot be placed any more keeps a lens where it was, offering only
      // to look at it or discard it: accepting it would be refused.
      const line = Math.min(placement.ok ? placement.region.startLine : record.base.region.startLine, lastLine);
      const range = new vscode.Range(line, 0, line, 0);
      const lens = (title: string, command: string, tooltip: string): vscode.CodeLens => new vscode.CodeLens(range, { title, command, tooltip, arguments: [id] });
      const open = (title: string): vscode.CodeLens => lens(title, 'peagen.openProposal', 'Show the proposal as a diff against the file');
      if (!placement.ok) return [open(`Peagen: ${input.title} (stale: ${placement.reason})`), lens('Reject', 'peagen.rejectProposal', 'Discard this proposal')];
      // Not offered for Accept before its gain is measured: one short lens group, no Accept.
      if (input.awaiting !== undefined) return [open(`Peagen: ${input.title} (${input.awaiting})`), lens('Reject', 'peagen.rejectProposal', 'Discard this proposal; the file stays as it is')];
      return [
        open(`Peagen: ${input.title}`),
        open('Open Diff'),
        lens('Accept', 'peagen.acceptProposal', 'Replace these lines with the proposal (one undo step)'),
        lens('Reject', 'peagen.rejectProposal', 'Discard this proposal; the file stays as it is'),
      ];
    });
  }

  refresh(): void {
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}
