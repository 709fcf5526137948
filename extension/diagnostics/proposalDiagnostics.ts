/**
 * Problems for candidates that failed their evaluation (source "Peagen"): a Warning on the
 * region of each open proposal with an `evaluationError`; once such a proposal is accepted, an
 * Error on the accepted lines, kept until those lines are edited or the file is closed.
 * Rejecting a proposal removes its diagnostic. Diagnostics never point at shifted lines: an
 * open proposal the stale guard cannot place has none, and accepted lines follow edits above them.
 */
import * as vscode from 'vscode';
import { currentText } from '../proposals/proposalDocuments';
import type { ProposalRecord, ProposalStore } from '../proposals/proposalStore';
import { lineBreakCount } from '../../shared/lines';
import { splitText, type LineRegion } from '../proposals/regionText';
import { placeRegion } from '../proposals/staleGuard';

interface AcceptedMark {
  record: ProposalRecord;
  region: LineRegion;
  /** The document version the accept produced: edits up to it are the accept itself. */
  afterVersion: number;
}

export class ProposalDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('peagen');
  private readonly accepted = new Map<string, AcceptedMark[]>();
  /** Per file, the latest refresh: an older one still reading the file must not win. */
  private readonly generations = new Map<string, number>();
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly store: ProposalStore) {
    this.disposables = [
      this.collection,
      store.onDidChange((record) => void this.refresh(record.input.uri)),
      vscode.workspace.onDidChangeTextDocument((event) => this.onEdit(event)),
      vscode.workspace.onDidCloseTextDocument((document) => this.forgetAccepted(document.uri)),
      vscode.window.tabGroups.onDidChangeTabs(() => this.forgetFilesWithoutTabs()),
    ];
  }

  /** The accepted proposal `record` now occupies `region` of its file, as of document `afterVersion`. */
  markAccepted(record: ProposalRecord, region: LineRegion, afterVersion: number): void {
    if (record.input.evaluationError === undefined) return;
    const marks = this.accepted.get(record.fileKey) ?? [];
    marks.push({ record, region, afterVersion });
    this.accepted.set(record.fileKey, marks);
    void this.refresh(record.input.uri);
  }

  async refresh(uri: vscode.Uri): Promise<void> {
    const key = uri.toString();
    const generation = (this.generations.get(key) ?? 0) + 1;
    this.generations.set(key, generation);
    const failedProposals = this.store.openFor(key).filter((record) => record.input.evaluationError !== undefined);
    const marks = this.accepted.get(key) ?? [];
    if (failedProposals.length === 0 && marks.length === 0) {
      this.collection.delete(uri);
      return;
    }
    let text: string;
    try {
      text = await currentText(uri);
    } catch {
      text = '';
    }
    if (this.generations.get(key) !== generation) return;
    const { lines } = splitText(text);
    const diagnostic = (region: LineRegion, message: string, severity: vscode.DiagnosticSeverity): vscode.Diagnostic => {
      const item = new vscode.Diagnostic(lineRange(region, lines), message, severity);
      item.source = 'Peagen';
      return item;
    };
    const diagnostics: vscode.Diagnostic[] = [];
    for (const record of failedProposals) {
      const placement = placeRegion(record.base, text);
      if (!placement.ok) continue;
      diagnostics.push(diagnostic(placement.region, `Proposed candidate "${record.input.title}" failed its evaluation: ${record.input.evaluationError}`, vscode.DiagnosticSeverity.Warning));
    }
    for (const { record, region } of marks) {
      diagnostics.push(diagnostic(region, `Accepted Peagen candidate "${record.input.title}" failed its evaluation: ${record.input.evaluationError}`, vscode.DiagnosticSeverity.Error));
    }
    this.collection.set(uri, diagnostics);
  }

  private onEdit(event: vscode.TextDocumentChangeEvent): void {
    const key = event.document.uri.toString();
    const marks = this.accepted.get(key);
    if (marks) {
      const kept = marks.filter((mark) => event.document.version <= mark.afterVersion || followEdits(mark.region, event.contentChanges));
      if (kept.length > 0) this.accepted.set(key, kept);
      else this.accepted.delete(key);
    }
    if (marks || this.store.openFor(key).some((record) => record.input.evaluationError !== undefined)) void this.refresh(event.document.uri);
  }

  private forgetAccepted(uri: vscode.Uri): void {
    if (this.accepted.delete(uri.toString())) void this.refresh(uri);
  }

  private forgetFilesWithoutTabs(): void {
    const shown = new Set<string>();
    for (const tab of vscode.window.tabGroups.all.flatMap((group) => group.tabs)) {
      if (tab.input instanceof vscode.TabInputText) shown.add(tab.input.uri.toString());
      if (tab.input instanceof vscode.TabInputTextDiff) {
        shown.add(tab.input.original.toString());
        shown.add(tab.input.modified.toString());
      }
    }
    for (const key of [...this.accepted.keys()]) {
      if (!shown.has(key)) this.forgetAccepted(vscode.Uri.parse(key));
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}

/**
 * Moves `region` (in place) past edits above it; false when an edit touches its lines (the
 * accepted text was edited, so the diagnostic no longer describes it).
 */
function followEdits(region: LineRegion, changes: readonly vscode.TextDocumentContentChangeEvent[]): boolean {
  const lastLine = Math.max(region.endLine - 1, region.startLine);
  let shift = 0;
  for (const { range, text } of changes) {
    if (range.end.line < region.startLine) shift += lineBreakCount(text) - (range.end.line - range.start.line);
    else if (range.start.line <= lastLine) return false;
  }
  region.startLine += shift;
  region.endLine += shift;
  return true;
}

/** From the first character of the region's first line to the end of its last one. */
function lineRange(region: LineRegion, lines: string[]): vscode.Range {
  if (lines.length === 0) return new vscode.Range(0, 0, 0, 0);
  const first = Math.min(region.startLine, lines.length - 1);
  const last = Math.min(Math.max(region.endLine - 1, region.startLine), lines.length - 1);
  return new vscode.Range(first, 0, last, lines[last]!.length);
}
