/**
 * "Peagen: Evolve Selection": the region (selection or EVOLVE-BLOCK), an evaluator (an
 * example, or a scaffold to review), the stop condition and the model; the worst-case spend
 * is shown (a modal confirmation above the limits) and the run starts in the daemon on a
 * selection job the daemon made from what this window sent (PrepareSelection: the text, the
 * region, the example's files), so the daemon needs no access to the workspace's files.
 * Every answer can come from the options instead.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EstimateRun, PrepareSelection, StartRun } from '../../shared/protocol';
import type { Services } from '../services';
import { workspaceRef } from '../services';
import { readExampleFiles } from './exampleFiles';
import { exampleDirOf, pickEvaluator } from './pickEvaluator';
import { describeWorstCase, needsConfirmation, parseStopInput, type StopConditions, stopOptions } from './runChoices';
import type { RunTracker } from './runTracker';
import { selectionTarget, type TargetOptions } from './selectionTarget';

export type Mutator = 'auto' | 'llm-patch' | 'offline';

export interface EvolveSelectionOptions extends TargetOptions {
  /** The example (its peagen.example.json or directory) whose evaluator scores the selection. */
  exampleConfig?: string;
  stop?: StopConditions;
  mutator?: Mutator;
  /** true: start even above the confirmation limits; false: refuse such a run; absent: ask. */
  confirm?: boolean;
  /** Evaluations in flight at once (default 2). */
  workers?: number;
  /** Pass --quick to the evaluator (smaller inputs). */
  quick?: boolean;
}

/** Resolves when the run has started (undefined: the user cancelled a choice, or a scaffold was written to review). */
export async function evolveSelection(services: Services, tracker: RunTracker, options: EvolveSelectionOptions = {}): Promise<{ runId: string } | undefined> {
  const workspace = workspaceRef();
  if (!workspace) throw new Error('open a folder first: runs are kept for the workspace');
  const target = await selectionTarget(options);
  let exampleDir: string;
  if (options.exampleConfig) exampleDir = exampleDirOf(options.exampleConfig);
  else {
    const choice = await pickEvaluator(services, target, false);
    if (choice === undefined || choice === 'scaffolded' || choice === 'none') return undefined;
    exampleDir = choice.exampleDir;
  }
  // Before the other questions: a region the daemon cannot evolve is said at once.
  const prepared = await services.daemon.request(PrepareSelection.type, {
    ...workspace,
    sourceFile: target.document.uri.fsPath,
    languageId: target.languageId,
    text: target.text,
    region: target.region,
    example: { dir: path.resolve(exampleDir), files: readExampleFiles(exampleDir) },
  });
  const job = prepared.job;
  if (!job) throw new Error('the daemon made no selection job for the example: restart it with this version of Peagen');
  const stop = options.stop ?? (await pickStop());
  if (!stop) return undefined;
  const mutator = options.mutator ?? (await pickModel());
  if (!mutator) return undefined;

  const params: StartRun.Params = { selection: job.jobId, ...workspace, stop, workers: options.workers ?? 2, mutator, ...(options.quick && { quick: true }) };
  const estimate = await services.daemon.request(EstimateRun.type, params);
  for (const note of estimate.notes) services.output.info(`evolve selection: ${note}`);
  const limits = { usd: setting('evolve.confirmAboveUsd', 1), tokens: setting('evolve.confirmAboveTokens', 1_000_000) };
  const spend = describeWorstCase(estimate);
  if (needsConfirmation(estimate.worstCase, limits) && options.confirm !== true) {
    if (options.confirm === false) throw new Error(`the run's ${spend} is above peagen.evolve.confirmAboveUsd / confirmAboveTokens; lower the stop condition or confirm it`);
    const answer = await vscode.window.showWarningMessage(
      `Start this evolve run? Its ${spend} (every call answering with max_tokens), above your limits ($${limits.usd}, ${limits.tokens.toLocaleString('en-US')} tokens).`,
      { modal: true, detail: estimate.notes.join('\n') },
      'Start',
    );
    if (answer !== 'Start') return undefined;
  }
  const label = `${path.basename(target.document.uri.fsPath)}:${target.region.startLine + 1}-${target.region.endLine}`;
  const started = await services.daemon.request(StartRun.type, params);
  tracker.follow(started.runId, started.runDir, workspace, label, stop.evaluations);
  services.output.info(`evolve selection: run ${started.runId} started for ${label} (${spend}); selection job ${job.jobId} of example ${job.name}`);
  if (options.confirm === undefined) void vscode.window.showInformationMessage(`Peagen: evolving ${label}: ${spend}.`);
  return { runId: started.runId };
}

function setting<T>(name: string, fallback: T): T {
  return vscode.workspace.getConfiguration('peagen').get<T>(name, fallback);
}

async function pickStop(): Promise<StopConditions | undefined> {
  const options = stopOptions(setting('evolve.defaultEvaluations', 40));
  const picked = await vscode.window.showQuickPick(
    options.map((option) => ({ label: option.label, description: option.detail, option })),
    { title: 'Peagen: when should the run stop?' },
  );
  if (!picked) return undefined;
  if (picked.option.stop) return picked.option.stop;
  const ask = picked.option.ask!;
  const input = await vscode.window.showInputBox({
    title: `Peagen: stop after how many ${ask === 'target' ? '(objective value to reach)' : ask}?`,
    ...(ask === 'target' && { prompt: 'the best objective at which the run stops, e.g. 10 for a 10x speedup' }),
    validateInput: (value) => {
      const parsed = parseStopInput(ask, value);
      return typeof parsed === 'string' ? parsed : undefined;
    },
  });
  if (input === undefined) return undefined;
  const parsed = parseStopInput(ask, input);
  return typeof parsed === 'string' ? undefined : parsed;
}

async function pickModel(): Promise<Mutator | undefined> {
  const model = setting('llm.model', '').trim();
  const picked = await vscode.window.showQuickPick(
    [
      { label: `$(sparkle) ${model || "the daemon's LLM"}`, description: model ? 'peagen.llm.model' : 'offline when no LLM is configured', mutator: 'auto' as const },
      { label: '$(circle-slash) offline (no LLM)', description: 'genetic improvement of the statements: no calls, no cost', mutator: 'offline' as const },
    ],
    { title: 'Peagen: who writes the patches?' },
  );
  return picked?.mutator;
}
