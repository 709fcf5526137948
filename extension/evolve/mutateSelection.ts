/**
 * "Peagen: Mutate Selection": one mutation of the region (a `mutate` task on the daemon's
 * fabric), scored by an evaluator when one is chosen (an `evaluate` task), offered as a
 * proposal; a failed evaluation is shown with the proposal (evaluationError).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXAMPLE_CONFIG_FILE, type Evaluation, ExampleConfigSchema } from '../../shared/evaluation';
import type { MutatePayload } from '../../shared/payloads';
import type { Services } from '../services';
import { projectDir as workspaceProject } from '../services';
import { exampleDirOf, pickEvaluator } from './pickEvaluator';
import { createSelectionJob, sha256 } from './selectionJob';
import { replacementFromProgram, selectionProgram } from './selectionProgram';
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

const MUTATE_WAIT_MS = 5 * 60_000;
const EVALUATE_WAIT_MS = 10 * 60_000;

export async function mutateSelection(services: Services, options: MutateSelectionOptions = {}): Promise<MutateSelectionResult | undefined> {
  const target = await selectionTarget(options);
  const program = selectionProgram(target.text, target.region, target.languageId);
  let exampleDir: string | undefined;
  if (options.exampleConfig === null) exampleDir = undefined;
  else if (options.exampleConfig) exampleDir = exampleDirOf(options.exampleConfig);
  else {
    const choice = await pickEvaluator(target, true);
    if (choice === undefined || choice === 'scaffolded') return undefined;
    exampleDir = choice === 'none' ? undefined : choice.exampleDir;
  }
  const project = workspaceProject();
  if (exampleDir && !project) throw new Error('open a folder first: the evaluation job is kept in its .peagen/ directory');
  const job = exampleDir ? createSelectionJob({ projectDir: project!, exampleDir, sourceFile: target.document.uri.fsPath, languageId: target.languageId, text: target.text, region: target.region, program }) : undefined;
  const mutator = options.mutator ?? ((await services.daemon.status()).workers.caps.includes('llm') ? 'llm-patch' : 'offline');
  const fileName = path.basename(target.document.uri.fsPath);
  const config = job ? ExampleConfigSchema.parse(JSON.parse(fs.readFileSync(path.join(job.dir, EXAMPLE_CONFIG_FILE), 'utf8'))) : undefined;
  const objectiveName = config?.objective.name ?? 'speedup';

  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Peagen: mutating ${fileName}:${target.region.startLine + 1}-${target.region.endLine}` }, async (progress) => {
    progress.report({ message: `asking the ${mutator} mutator` });
    const payload: MutatePayload = {
      mutator,
      parent: { id: sha256(program.code), code: program.code, objective: null },
      inspirations: [],
      avoid: [],
      seed: options.seed ?? Math.floor(Math.random() * 1_000_000),
      task: { name: config?.name ?? fileName, language: target.languageId, objectiveName, direction: config?.objective.direction ?? 'maximize', ...(config?.entry && { entry: config.entry }) },
      // One proposal is shown: one answer is paid for.
      choices: 1,
    };
    const mutated = await services.daemon.submitAndWait({ kind: 'mutate', payload, requires: mutator === 'llm-patch' ? ['llm'] : ['cpu'] }, MUTATE_WAIT_MS);
    if (!mutated) throw new Error(`no worker answered the mutation within ${MUTATE_WAIT_MS / 60_000} minutes${mutator === 'llm-patch' ? ' (is a worker with an LLM running?)' : ''}`);
    if (mutated.status !== 'ok') throw new Error(`the mutation failed: ${mutated.error?.message ?? mutated.status}`);
    const proposal = mutated.data as { ok: boolean; code?: string; message?: string; reason?: string };
    if (!proposal.ok || proposal.code === undefined) throw new Error(`the ${mutator} mutator proposed nothing usable (${proposal.reason}): ${proposal.message}; try again`);
    const code = proposal.code;

    let evaluation: Evaluation | undefined;
    if (job) {
      progress.report({ message: 'evaluating the mutation' });
      const evaluated = await services.daemon.submitAndWait({ kind: 'evaluate', payload: { exampleDir: job.dir, program: code, args: [] } }, EVALUATE_WAIT_MS);
      evaluation = evaluated?.data as Evaluation | undefined;
      if (!evaluation) throw new Error(`the evaluation did not finish: ${evaluated?.error?.message ?? `no answer within ${EVALUATE_WAIT_MS / 60_000} minutes`}`);
    }
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
        region: program.replaceRange,
        replacement: replacementFromProgram(code, program.blockIndex),
        title,
        source: { kind: 'mutate', objective },
        ...(evaluationError !== undefined && { evaluationError }),
      },
      { open: options.open ?? true },
    );
    return { proposalId, objective, ...(evaluationError !== undefined && { evaluationError }) };
  });
}
