/** Proposals: the `peagen-proposal:` documents, their diffs, Accept/Reject, CodeLens and Problems. */
import type * as vscode from 'vscode';
import type { Services } from '../services';
import type { ProposalsApi } from './api';
import type { ProposalSink } from './proposal';

export function registerProposals(services: Omit<Services, 'proposals'>): { sink: ProposalSink; api: ProposalsApi; disposables: vscode.Disposable[] } {
  void services;
  const sink: ProposalSink = { add: () => Promise.reject(new Error('proposals are not implemented yet')) };
  return { sink, api: {}, disposables: [] };
}
