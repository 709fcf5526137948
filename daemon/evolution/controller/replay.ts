/**
 * Replay (P-6): rebuilds a run from run.json, its journal and the recorded LLM answers,
 * with no LLM: every selection is made again and must match, every child is derived again
 * from its parent and the recorded answer (or the offline mutator's seed) and must be
 * byte-identical; then the best program is measured again and compared with its record.
 * The minimal-diff reduction of the best (a `reduce` event) is derived again from the seed,
 * the best and the changes it kept, and must be byte-identical too; its trial measurements are
 * not redone (the event summarises them).
 */
import type { Evaluation } from '../../../shared/evaluation';
import type { ProposalEvent, ReduceEvent } from '../runEvents';
import { lineDiff, withChanges } from '../reduce/minimalDiff';
import { isFreePlan } from '../runEvents';
import { programId } from '../../../shared/programId';
import { loadExample } from '../../evaluation/example';
import { EXACT_CHECK } from '../mutation/childCheck';
import { LlmPatchMutator, ReplayBackend } from '../mutation/LlmPatchMutator';
import { OfflineMutator } from '../mutation/OfflineMutator';
import type { Mutator } from '../mutation/Mutator';
import type { PluginSet } from '../../plugins/loadPlugins';
import { guardedPluginMutator } from '../../plugins/pluginGuards';
import { applyEvent } from './applyEvent';
import type { RunManifest } from '../../../shared/runManifest';
import type { RunDir } from './runDir';
import { RunState } from './RunState';
import { evaluateTaskSpec, evaluationOf, freeProposal, mutationRequestFor } from './taskSpecs';
import { awaitResult, type TaskClient } from './TaskClient';

export interface ReplayResult {
  runId: string;
  events: number;
  plans: number;
  children: number;
  bestId: string;
  /** The replayed best equals the run's recorded best program, byte for byte (best/, and best-full/ beside a reduced best/). */
  identical: boolean;
  /** The best's reduced program, derived again from the seed and the best: best/ holds it. */
  reducedId?: string;
  remeasured?: { objectiveName: string; objective: number | null; recorded: number; differencePct: number };
}

export class ReplayMismatch extends Error {
  override name = 'ReplayMismatch';
}

export interface ReplayOptions {
  /** Re-measures the best program when given. */
  client?: TaskClient;
  /** The allowed plugins' mutators (a child one of them made is derived again by it) and selectors. */
  plugins?: Pick<PluginSet, 'mutators' | 'selectors'>;
  log?(line: string): void;
}

export async function replayRun(runDir: RunDir, options: ReplayOptions = {}): Promise<ReplayResult> {
  const manifest = runDir.readManifest();
  const example = loadExample(manifest.exampleDir);
  const state = new RunState(manifest.settings, undefined, undefined, options.plugins?.selectors);
  let plans = 0;
  let children = 0;
  let count = 0;
  for (const { event, at } of runDir.readEvents()) {
    count++;
    if (event.type === 'plan') plans++;
    if (event.type === 'proposal' && event.ok) {
      if (isFreePlan({ kind: event.mutator })) rederiveFree(event, state);
      else await rederive(event, state, manifest, example.config, runDir, options.plugins?.mutators ?? []);
      children++;
    }
    if (event.type === 'reduce') rederiveReduction(event, state);
    applyEvent(state, event, at);
  }
  const best = state.best;
  if (!best || best.objective === null) throw new ReplayMismatch(`run ${runDir.id} has no best program to replay`);
  const reduced = state.bestReduction?.program;
  const recordedBest = runDir.readBestProgram(manifest);
  const identical = reduced ? recordedBest === reduced.code && runDir.readBestProgram(manifest, 'best-full') === best.code : recordedBest === best.code;
  const result: ReplayResult = { runId: manifest.runId, events: count, plans, children, bestId: best.id, identical, ...(reduced && { reducedId: reduced.id }) };
  if (options.client) {
    const seed = best.measurements[0]?.seed ?? manifest.settings.seed;
    options.log?.(`re-measuring the best program (seed ${seed}) ...`);
    const taskId = await options.client.submit(evaluateTaskSpec(example, best.code, seed, manifest.evaluatorArgs, `${manifest.runId}-replay`));
    const evaluation: Evaluation | undefined = evaluationOf((await awaitResult(options.client, taskId)).data);
    const objective = evaluation?.correct ? evaluation.objective : null;
    result.remeasured = {
      objectiveName: manifest.settings.objectiveName,
      objective,
      recorded: best.objective,
      differencePct: objective !== null ? ((objective - best.objective) / best.objective) * 100 : -100,
    };
  }
  return result;
}

/** The reduced program, derived again from the seed and the best with the changes the run kept. */
function rederiveReduction(event: ReduceEvent, state: RunState): void {
  const seed = state.seedId ? state.archive.get(state.seedId) : undefined;
  const best = state.archive.get(event.best);
  if (!seed || !best) throw new ReplayMismatch(`the reduction names best ${event.best.slice(0, 12)}, which is not in the replayed archive`);
  const diff = lineDiff(seed.code, best.code);
  if (diff.changes.length !== event.changes || event.keep.some((index) => index >= diff.changes.length)) {
    throw new ReplayMismatch(`the reduction of ${event.best.slice(0, 12)} counted ${event.changes} changes from the seed; derived again there are ${diff.changes.length}`);
  }
  if (!event.program) return;
  const code = withChanges(diff, new Set(event.keep));
  if (programId(code) !== event.program.id) throw new ReplayMismatch(`the reduced program derived again (${programId(code).slice(0, 12)}) is not the recorded ${event.program.id.slice(0, 12)}`);
}

/** A sibling, split, revert or transplant job's child, derived again from what it was made from. */
function rederiveFree(event: ProposalEvent, state: RunState): void {
  const plan = state.openJobs().find((job) => job.plan.job === event.job)?.plan;
  if (!plan) throw new ReplayMismatch(`proposal for job ${event.job}, which was never planned`);
  const again = freeProposal(plan, state);
  if (!again.ok || again.childId !== event.childId) throw new ReplayMismatch(`job ${event.job}: the ${plan.kind} child derived again is not the recorded ${event.childId?.slice(0, 12)}`);
}

/** Derives the child again and checks it is the recorded one. */
async function rederive(
  event: ProposalEvent,
  state: RunState,
  manifest: RunManifest,
  config: ReturnType<typeof loadExample>['config'],
  runDir: RunDir,
  pluginMutators: readonly Mutator[],
): Promise<void> {
  const plan = state.openJobs().find((job) => job.plan.job === event.job)?.plan;
  if (!plan) throw new ReplayMismatch(`proposal for job ${event.job}, which was never planned`);
  if (!state.archive.has(plan.parent)) throw new ReplayMismatch(`job ${event.job}: parent ${plan.parent.slice(0, 12)} is unknown`);
  const request = mutationRequestFor(plan, state, config);
  let mutator: Mutator;
  if (event.mutator === 'offline') mutator = new OfflineMutator();
  else if (event.mutator !== 'llm-patch') {
    // A plugin's mutator is deterministic for a request and seed (its conformance suite checks it).
    const plugin = pluginMutators.find((candidate) => candidate.name === event.mutator);
    if (!plugin) {
      throw new ReplayMismatch(
        `job ${event.job}: the child was made by the mutator "${event.mutator}", which no allowed plugin provides here; to replay this run, install its plugin and allow it in peagen.json "plugins" (\`peagen plugins\` lists them)`,
      );
    }
    // Replay calls no model: a plugin mutator that asks one cannot be re-derived here.
    if (plugin.usesLlm) throw new ReplayMismatch(`job ${event.job}: the child was made by "${event.mutator}", a plugin mutator that calls an LLM itself: replay re-derives children without a model, so this run cannot be replayed`);
    mutator = guardedPluginMutator(plugin);
  } else {
    const exchanges = event.exchanges.map((hash) => runDir.getExchange(hash));
    mutator = new LlmPatchMutator({
      backend: new ReplayBackend(exchanges),
      temperature: manifest.llm.temperature,
      maxTokens: manifest.llm.maxTokens,
      repairAttempts: plan.calls?.format ?? manifest.llm.repairAttempts,
      reaskAttempts: plan.calls?.known ?? manifest.llm.repairAttempts,
      allowRewrite: manifest.llm.allowRewrite,
      ...(manifest.llm.promptDir && { promptDir: manifest.llm.promptDir }),
      ...(manifest.settings.ablate?.includes('normalize') && { check: EXACT_CHECK }),
    });
  }
  const proposal = await mutator.propose(request);
  if (!proposal.ok || programId(proposal.code) !== event.childId) {
    throw new ReplayMismatch(`job ${event.job}: the child derived again (${proposal.ok ? programId(proposal.code).slice(0, 12) : `no child: ${proposal.reason}`}) is not the recorded ${event.childId?.slice(0, 12)}`);
  }
  // The call's other answers gave the siblings the run evaluated later (by their plans' code).
  const siblings = (proposal.siblings ?? []).map((sibling) => programId(sibling.code)).join(',');
  const recorded = (event.siblings ?? []).map((sibling) => sibling.childId).join(',');
  if (siblings !== recorded) throw new ReplayMismatch(`job ${event.job}: the call's other children derived again are not the recorded ones`);
}
