/**
 * MutateProgram: the editor's Mutate Selection on the daemon. The mutator is chosen as for a
 * run, the child is evaluated with the selection job's example when one is named, and the
 * answer carries what the editor shows; nothing is read from the client's file system.
 */
import type { MutateProgram } from '../../shared/protocol';
import type { Engine } from '../engine/Engine';
import { type Example, loadExample } from '../evaluation/example';
import { chooseMutator } from '../evolution/controller/chooseMutator';
import { engineTaskClient } from '../evolution/controller/taskClients';
import { mutationTaskOf } from '../evolution/controller/taskSpecs';
import type { PluginSet } from '../plugins/loadPlugins';
import { mutateOnce } from './mutateOnce';
import { readSelectionJob, SelectionJobError, selectionJobDir } from './selectionJob';

export async function mutateProgram(engine: Engine, plugins: PluginSet, home: string, params: MutateProgram.Params, signal?: AbortSignal): Promise<MutateProgram.Response> {
  let example: Example | undefined;
  if (params.selection !== undefined) {
    const dir = selectionJobDir(home, params.selection);
    if (!readSelectionJob(dir)) throw new SelectionJobError(`no selection job "${params.selection}" in this workspace: prepare the selection again`);
    try {
      example = loadExample(dir);
    } catch (error) {
      throw new SelectionJobError(`the selection job "${params.selection}" holds no usable example (${(error as Error).message}): prepare the selection again`);
    }
  }
  const choice = chooseMutator(params.mutator ?? 'auto', plugins, await llmOffered(engine));
  const outcome = await mutateOnce(
    engineTaskClient(engine),
    {
      code: params.code,
      task: example ? mutationTaskOf(example.config) : { name: params.name, language: params.languageId, objectiveName: 'speedup', direction: 'maximize' },
      mutator: choice.name,
      seed: params.seed ?? Math.floor(Math.random() * 1_000_000),
      ...(example && { example }),
      label: 'mutate',
    },
    signal,
  );
  const proposal = outcome.proposal;
  return {
    mutator: choice.name,
    proposal: proposal?.ok
      ? { ok: true, code: proposal.code, patch: proposal.patch, ...(proposal.model && { model: proposal.model }) }
      : { ok: false, reason: proposal?.reason ?? 'no_proposal', message: proposal?.message ?? outcome.error ?? 'the mutate task gave no proposal' },
    ...(outcome.evaluation && { evaluation: outcome.evaluation }),
    ...(proposal?.ok && example && !outcome.evaluation && { evaluationError: outcome.error ?? 'the evaluation gave no verdict' }),
    objectiveName: example?.config.objective.name ?? 'speedup',
  };
}

/** A worker of this daemon, or of its cluster, answers mutate tasks with an LLM. */
async function llmOffered(engine: Engine): Promise<boolean> {
  if ((await engine.status()).workers.caps.includes('llm')) return true;
  return (await engine.cluster()).workers.some((worker) => worker.caps.includes('llm'));
}
