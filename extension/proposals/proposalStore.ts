/**
 * The proposals of this window, in memory (no vscode runtime import: unit-tested). Each keeps
 * its input and a snapshot of the base text for the stale guard; a proposal is `open` until it
 * is accepted, rejected, or refused as stale.
 */
import type { ProposalFileChange, ProposalInput, ProposalSummary } from './proposal';
import { replaceRegion } from './regionText';
import { placeRegion, snapshotBase, type BaseSnapshot } from './staleGuard';

export type ProposalState = ProposalSummary['state'];

export interface ProposalRecord {
  readonly id: string;
  /** Replaced (never edited) when the proposal is retitled. */
  input: ProposalInput;
  /** `input.uri.toString()`: how files are compared. */
  readonly fileKey: string;
  readonly base: BaseSnapshot;
  /** A multi-file proposal's other files, each with its own stale-guard snapshot. */
  readonly others: readonly ProposalFile[];
  state: ProposalState;
  withdrawnBecause?: string;
}

/** One file a proposal changes, with what its stale guard remembers. */
export interface ProposalFile extends ProposalFileChange {
  readonly fileKey: string;
  readonly base: BaseSnapshot;
}

/** Every file the proposal changes: its own first, then a multi-file proposal's others. */
export function proposalFiles(record: ProposalRecord): ProposalFile[] {
  const { uri, baseText, region, replacement } = record.input;
  return [{ uri, baseText, region, replacement, fileKey: record.fileKey, base: record.base }, ...record.others];
}

export class ProposalStore {
  private readonly records = new Map<string, ProposalRecord>();
  private readonly listeners = new Set<(record: ProposalRecord) => void>();
  private nextNumber = 1;

  /** Throws, saying why, when the region is not within the base text. */
  add(input: ProposalInput): ProposalRecord {
    const base = snapshotBase(input.baseText, input.region);
    const others = (input.otherFiles ?? []).map((file) => ({ ...file, fileKey: file.uri.toString(), base: snapshotBase(file.baseText, file.region) }));
    const record: ProposalRecord = { id: `proposal-${this.nextNumber++}`, input, fileKey: input.uri.toString(), base, others, state: 'open' };
    this.records.set(record.id, record);
    this.fire(record);
    return record;
  }

  get(id: string): ProposalRecord | undefined {
    return this.records.get(id);
  }

  all(): ProposalRecord[] {
    return [...this.records.values()];
  }

  /** The open proposals of the file whose URI string is `fileKey`. */
  openFor(fileKey: string): ProposalRecord[] {
    return this.all().filter((record) => record.state === 'open' && record.fileKey === fileKey);
  }

  setState(id: string, state: ProposalState): void {
    const record = this.records.get(id);
    if (!record || record.state === state) return;
    record.state = state;
    this.fire(record);
  }

  /** Takes an open proposal back, saying why: it stays listed, and is no longer offered. */
  withdraw(id: string, because: string): void {
    const record = this.records.get(id);
    if (record?.state !== 'open') return;
    record.withdrawnBecause = because;
    this.setState(id, 'withdrawn');
  }

  /** An awaiting proposal offered for Accept: its gain was measured to be one. */
  confirm(id: string, title: string): void {
    const record = this.records.get(id);
    if (record?.state !== 'open' || record.input.awaiting === undefined) return;
    const input = { ...record.input, title };
    delete input.awaiting;
    record.input = input;
    this.fire(record);
  }

  /** A new reason an open proposal is not offered for Accept (it stays open: its diff, Reject). */
  await(id: string, because: string): void {
    const record = this.records.get(id);
    if (record?.state !== 'open' || record.input.awaiting === because) return;
    record.input = { ...record.input, awaiting: because };
    this.fire(record);
  }

  /** A new title for an open proposal (its diff's, its CodeLens'). */
  retitle(id: string, title: string): void {
    const record = this.records.get(id);
    if (record?.state !== 'open' || record.input.title === title) return;
    record.input = { ...record.input, title };
    this.fire(record);
  }

  /** Called with each proposal added or changing state. */
  onDidChange(listener: (record: ProposalRecord) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private fire(record: ProposalRecord): void {
    for (const listener of this.listeners) listener(record);
  }
}

export function summarize(record: ProposalRecord, proposalUri?: string): ProposalSummary {
  const { input } = record;
  return {
    id: record.id,
    uri: record.fileKey,
    title: input.title,
    region: { ...input.region },
    source: input.source,
    state: record.state,
    ...(record.withdrawnBecause !== undefined && { withdrawnBecause: record.withdrawnBecause }),
    ...(input.awaiting !== undefined && { awaiting: input.awaiting }),
    ...(proposalUri !== undefined && { proposalUri }),
    ...(record.others.length > 0 && { otherUris: record.others.map((file) => file.fileKey) }),
    ...(input.evaluationError !== undefined && { evaluationError: input.evaluationError }),
  };
}

/**
 * What the `peagen-proposal:` document shows: the current text with the proposal applied where
 * the stale guard places it, so its diff shows only the proposal's change; when it cannot be
 * placed, the base text with the proposal applied (what was proposed, for reading).
 */
export function proposedText(record: ProposalRecord, currentText: string, file: ProposalFile = proposalFiles(record)[0]!): string {
  const placement = placeRegion(file.base, currentText);
  return placement.ok ? replaceRegion(currentText, placement.region, file.replacement) : replaceRegion(file.baseText, file.region, file.replacement);
}
