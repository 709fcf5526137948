/** Evolve Selection and Mutate Selection, for tests and other extensions. */
import type { EvolveSelectionOptions } from './evolveSelection';
import type { MutateSelectionOptions, MutateSelectionResult } from './mutateSelection';
import type { FollowedRunInfo, OfferedProgram } from './runTracker';

export type { EvolveSelectionOptions, FollowedRunInfo, MutateSelectionOptions, MutateSelectionResult, OfferedProgram };

export interface EvolveApi {
  /** Runs "Evolve Selection" with these answers (asking only for what they leave out); resolves once the run has started. */
  evolveSelection(options: EvolveSelectionOptions): Promise<{ runId: string }>;
  /** Runs "Mutate Selection" with these answers; resolves with the proposal made. */
  mutateSelection(options: MutateSelectionOptions): Promise<MutateSelectionResult>;
  /** The run this window started last: its id, its last progress and the proposals offered so far. */
  lastRun(): FollowedRunInfo | undefined;
}
