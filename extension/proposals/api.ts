/** Proposals, for tests and other extensions. */
import type { ProposalInput, ProposalSummary } from './proposal';

export interface ProposalsApi {
  /** Every proposal of this window (open, accepted, rejected or refused), oldest first. */
  list(): ProposalSummary[];
  /** Records a proposal (opening its diff when `options.open`); returns its id. */
  add(input: ProposalInput, options?: { open?: boolean }): Promise<string>;
  /** The value of the `peagen.proposalActive` context key (Accept/Reject buttons and keys). */
  proposalActive(): boolean;
}

/**
 * What `peagen.acceptProposal` resolves to (what `peagen.rejectProposal` resolves to has
 * `rejected` instead of `accepted`): `none` when no proposal was named or active.
 */
export interface ProposalCommandResult {
  id?: string;
  outcome: 'accepted' | 'rejected' | 'refused' | 'none';
  /** Why it was refused, or why nothing happened. */
  message?: string;
}
