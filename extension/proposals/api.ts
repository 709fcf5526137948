/** Proposals, for tests and other extensions. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by its feature
export interface ProposalsApi {}
