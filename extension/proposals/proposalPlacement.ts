/** Where open proposals sit in a file as it is now, and which one holds a given line. */
import type * as vscode from 'vscode';
import type { LineRegion } from './regionText';
import type { ProposalRecord, ProposalStore } from './proposalStore';
import { placeRegion, type Placement } from './staleGuard';

export interface PlacedProposal {
  record: ProposalRecord;
  placement: Placement;
}

export function placedProposals(store: ProposalStore, document: vscode.TextDocument): PlacedProposal[] {
  const open = store.openFor(document.uri.toString());
  if (open.length === 0) return [];
  const text = document.getText();
  return open.map((record) => ({ record, placement: placeRegion(record.base, text) }));
}

/** Whether `line` is in `region`; an empty region (an insertion) holds the line it is inserted before. */
export function regionHolds(region: LineRegion, line: number): boolean {
  return region.startLine === region.endLine ? line === region.startLine : line >= region.startLine && line < region.endLine;
}

/** The open proposal whose region, where it sits now, holds `line` (the newest when several do). */
export function proposalAtLine(store: ProposalStore, document: vscode.TextDocument, line: number): ProposalRecord | undefined {
  return placedProposals(store, document)
    .filter(({ placement }) => placement.ok && regionHolds(placement.region, line))
    .map(({ record }) => record)
    .pop();
}
