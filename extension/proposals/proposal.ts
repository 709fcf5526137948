/**
 * A proposal: an edit Peagen suggests for a region of a file (an improved child of an evolve
 * run, a Mutate Selection result, an elite picked in the Evolution view). It is shown as a
 * diff against a read-only `peagen-proposal:` document and touches the file only on Accept.
 */
import type * as vscode from 'vscode';

export interface ProposalInput {
  /** The file the proposal changes. */
  uri: vscode.Uri;
  /** The file's text the proposal was made against (its hash is the stale guard). */
  baseText: string;
  /** The editor's document version of `baseText`, when it came from an open document. */
  baseVersion?: number;
  /** The lines the proposal replaces: 0-based, `endLine` exclusive, lines of `baseText`. */
  region: { startLine: number; endLine: number };
  /**
   * The new text of those lines (without a trailing newline of the last one; its line breaks
   * become the file's). An empty string removes the lines.
   */
  replacement: string;
  /** One line for the diff title, CodeLens and notifications, e.g. "speedup 12.3 (generation 4)". */
  title: string;
  source: { kind: 'evolve' | 'mutate' | 'elite'; runId?: string; programId?: string; objective?: number | null };
  /** The evaluator's error text when the candidate failed its evaluation: shown in Problems. */
  evaluationError?: string;
  /**
   * Set while the proposal's gain is not yet measured (an evolve run's best before the run
   * confirms it): its diff can be opened and it can be rejected, but it is not offered for
   * Accept until `confirm`; the text says why, e.g. "not yet measured".
   */
  awaiting?: string;
  /**
   * A multi-file proposal's other files, each changed like `uri` (its own base text, region
   * and replacement): they open together in the multi-file diff view and are accepted as one
   * WorkspaceEdit, so one Undo reverts every file.
   */
  otherFiles?: ProposalFileChange[];
}

/** One more file of a multi-file proposal. */
export interface ProposalFileChange {
  uri: vscode.Uri;
  baseText: string;
  region: { startLine: number; endLine: number };
  replacement: string;
}

export interface ProposalSummary {
  id: string;
  uri: string;
  title: string;
  region: { startLine: number; endLine: number };
  source: ProposalInput['source'];
  /** `withdrawn`: an evolve run's proposal whose gain was not measured to be one as the run ended (nothing to accept). */
  state: 'open' | 'accepted' | 'rejected' | 'refused' | 'withdrawn';
  /** Why it was withdrawn. */
  withdrawnBecause?: string;
  /** Why it is not offered for Accept yet (its gain is not yet measured); absent once it is. */
  awaiting?: string;
  /** The read-only `peagen-proposal:` document showing the file with the proposal applied. */
  proposalUri?: string;
  /** A multi-file proposal's other files (URI strings), after `uri`. */
  otherUris?: string[];
  evaluationError?: string;
}

export interface ProposalSink {
  /** Records a proposal (and opens its diff when asked); returns its id. */
  add(input: ProposalInput, options?: { open?: boolean }): Promise<string>;
  /** Takes an open proposal back (its gain was not measured to be one): it can no longer be accepted. */
  withdraw(id: string, because: string): void;
  /** Gives an open proposal a new title (e.g. its gain's measured interval, known once the run ended). */
  retitle(id: string, title: string): void;
  /** Offers an awaiting proposal for Accept (its gain was measured to be one), with its new title. */
  confirm(id: string, title: string): void;
  /** A new reason an awaiting proposal is not offered for Accept. */
  await(id: string, because: string): void;
}
