/**
 * Where a program of a run belongs in the workspace, as a proposal: for a run started by
 * Evolve Selection, the selected region of the source file; for any other run, the example's
 * program file as a whole.
 */
import type { Program, RunSummary } from '../../shared/evolution';
import type { ProposalInput } from '../proposals/proposal';

export async function proposalForProgram(projectDir: string, run: RunSummary, program: Program): Promise<ProposalInput> {
  void projectDir;
  void run;
  void program;
  throw new Error('not implemented yet');
}
