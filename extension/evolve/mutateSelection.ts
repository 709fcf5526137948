/**
 * "Peagen: Mutate Selection": one mutation of the region, scored by an evaluator when one is
 * chosen, offered as a proposal; a failed evaluation is shown with the proposal
 * (evaluationError). The daemon does the work (PrepareSelection marks the region and makes
 * the job from the example's files; MutateProgram mutates and evaluates), from content this
 * window sends: it needs no access to the workspace's files.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { MutateProgram, PrepareSelection } from '../../shared/protocol';
import { replacementFromProgram } from '../../shared/selection';
import type { Services } from '../services';
import { workspaceRef } from '../services';
import { readExampleFiles } from './exampleFiles';
import { exampleDirOf, pickEvaluator } from './pickEvaluator';
import { selectionTarget, type TargetOptions } from './selectionTarget';

export interface MutateSelectionOptions extends TargetOptions {
  /** The example that scores the mutation; null: no evaluation; absent: ask. */
  exampleConfig?: string | null;
  /** Default: llm-patch when a worker of the daemon offers an LLM, else offline. */
  mutator?: 'llm-patch' | 'offline';
  seed?: number;
  /** Open the proposal's diff (default true). */
  open?: boolean;
}

export interface MutateSelectionResult {
  proposalId: string;
  objective: number | null;
  evaluationError?: string;
}

export async function mutateSelection(services: Services, options: MutateSelectionOptions = {}): Promise<MutateSelectionResult | undefined> {
  const target = await selectionTarget(options);
  let exampleDir: string | undefined;
  if (options.exampleConfig === null) exampleDir = undefined;
  else if (options.exampleConfig) exampleDir = exampleDirOf(options.exampleConfig);
  else {
    const choice = await pickEvaluator(services, target, true);
    if (choice === undefined || choice === 'scaffolded') return undefined;
    exampleDir = choice === 'none' ? undefined : choice.exampleDir;
  }
  const workspace = workspaceRef();
  if (exampleDir && !workspace) throw new Error('open a folder first: the evaluation job is kept for the workspace');
  // Without a folder the daemon still marks the region; no job is made.
  const where = workspace ?? { projectDir: path.dirname(target.document.uri.fsPath) };
  const prepared = await services.daemon.request(PrepareSelection.type, {
    ...where,
    sourceFile: target.document.uri.fsPath,
    languageId: target.languageId,
    text: target.text,
    region: target.region,
    ...(exampleDir && { example: { dir: path.resolve(exampleDir), files: readExampleFiles(exampleDir) } }),
  });
  const fileName = path.basename(target.document.uri.fsPath);
  const mutatorName = options.mutator ? `the ${options.mutator}` : "the daemon's";

  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Peagen: mutating ${fileName}:${target.region.startLine + 1}-${target.region.endLine}` }, async (progress) => {
    progress.report({ message: prepared.job ? `asking ${mutatorName} mutator, then evaluating the child` : `asking ${mutatorName} mutator` });
    const answer = await services.daemon.request(MutateProgram.type, {
      ...where,
      code: prepared.code,
      languageId: target.languageId,
      name: fileName,
      ...(prepared.job && { selection: prepared.job.jobId }),
      ...(options.mutator && { mutator: options.mutator }),
      ...(options.seed !== undefined && { seed: options.seed }),
    });
    const mutator = answer.mutator;
    if (!answer.proposal.ok) throw new Error(`the ${mutator} mutator proposed nothing usable (${answer.proposal.reason}): ${answer.proposal.message}; try again`);
    if (prepared.job && answer.evaluationError !== undefined) throw new Error(`the evaluation did not finish: ${answer.evaluationError}`);
    const evaluation = answer.evaluation;
    const objectiveName = answer.objectiveName;
    const failed = evaluation !== undefined && (evaluation.failure !== undefined || !evaluation.correct);
    const evaluationError = failed ? evaluation?.errorText || evaluation?.failure?.message || 'the evaluator rejected the mutation' : undefined;
    const objective = evaluation?.objective ?? null;
    const title = !evaluation
      ? `mutation (${mutator}, not evaluated)`
      : failed
        ? `mutation (${mutator}): failed its evaluation (${evaluation.failure?.reason ?? 'incorrect'})`
        : `mutation (${mutator}): ${objectiveName} ${objective === null ? 'n/a' : objective.toFixed(2)}`;
    const proposalId = await services.proposals.add(
      {
        uri: target.document.uri,
        baseText: target.text,
        baseVersion: target.document.version,
        region: prepared.replaceRange,
        replacement: replacementFromProgram(answer.proposal.code, prepared.blockIndex),
        title,
        source: { kind: 'mutate', objective },
        ...(evaluationError !== undefined && { evaluationError }),
      },
      { open: options.open ?? true },
    );
    return { proposalId, objective, ...(evaluationError !== undefined && { evaluationError }) };
  });
}
