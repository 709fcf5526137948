/**
 * Where a program of a run belongs in the workspace, as a proposal: for a run started by
 * Evolve Selection, the selected region of the source file; for any other run, the example's
 * program file as a whole (a multi-file program: each changed file, in one proposal).
 */
import * as vscode from 'vscode';
import type { GetProgram } from '../../shared/protocol';
import type { ProposalInput } from '../proposals/proposal';
import { programTarget } from './programMapping';

/** The proposal for the program GetProgram answered with, of run `runId`. */
export function proposalForProgram(runId: string, answer: Pick<GetProgram.Response, 'program' | 'placement' | 'objectiveName' | 'objectiveUnit'>): ProposalInput {
  const { program } = answer;
  const target = programTarget(answer.placement, answer.objectiveName, program, answer.objectiveUnit);
  return {
    uri: vscode.Uri.file(target.file),
    baseText: target.baseText,
    region: target.region,
    replacement: target.replacement,
    ...(target.others && {
      otherFiles: target.others.map((other) => ({ uri: vscode.Uri.file(other.file), baseText: other.baseText, region: other.region, replacement: other.replacement })),
    }),
    title: target.title,
    source: { kind: 'evolve', runId, programId: program.id, objective: program.objective },
    ...(!program.correct && program.evaluation?.errorText && { evaluationError: program.evaluation.errorText }),
  };
}
