/**
 * Where a program of a run belongs in the workspace, as a proposal: for a run started by
 * Evolve Selection, the selected region of the source file; for any other run, the example's
 * program file as a whole.
 */
import * as vscode from 'vscode';
import type { Program, RunSummary } from '../../shared/evolution';
import type { ProposalInput } from '../proposals/proposal';
import { programTarget } from './programMapping';

/**
 * @param projectDir the project whose `.peagen/runs/` holds the run (the run's own `dir` is
 *   what is read; kept for callers that resolve runs by id).
 */
export async function proposalForProgram(projectDir: string, run: RunSummary, program: Program): Promise<ProposalInput> {
  void projectDir;
  const target = programTarget(run.dir, program);
  return {
    uri: vscode.Uri.file(target.file),
    baseText: target.baseText,
    region: target.region,
    replacement: target.replacement,
    title: target.title,
    source: { kind: 'evolve', runId: run.runId, programId: program.id, objective: program.objective },
    ...(!program.correct && program.evaluation?.errorText && { evaluationError: program.evaluation.errorText }),
  };
}
