/**
 * A proposal's region edits are shared/regionText.ts: Accept and `peagen evolve apply` write
 * a program back into a file with the same code.
 */
export * from '../../shared/regionText';
