/**
 * One mutation of a program, and its evaluation when an example is given: the use case of
 * `peagen mutate` and of the editor's Mutate Selection (MutateProgram), on whatever fabric the
 * caller reaches (the daemon's own engine, or the CLI's embedded or daemon fabric).
 */
import type { Evaluation } from '../../shared/evaluation';
import type { MutatePayload } from '../../shared/payloads';
import type { Example } from '../evaluation/example';
import { programId } from '../../shared/programId';
import { awaitResult, type TaskClient } from '../evolution/controller/TaskClient';
import { evaluateTaskSpec, evaluationOf, proposalOf } from '../evolution/controller/taskSpecs';
import type { MutationProposal } from '../evolution/mutation/Mutator';

export interface MutateOnceInput {
  code: string;
  task: MutatePayload['task'];
  /** The chosen mutator (chooseMutator): `llm-patch`, `offline` or a plugin's. */
  mutator: string;
  seed: number;
  /** The configured LLM backend to ask (default: the first). */
  backend?: string;
  /** Evaluates a child with this example's evaluator. */
  example?: Example;
  /** What the evaluations are filed under (a run id, or the use case's name). */
  label: string;
}

export interface MutateOnceOutcome {
  seed: number;
  /** Undefined when the mutate task gave no proposal (`error` says why). */
  proposal: MutationProposal | undefined;
  error?: string;
  evaluation?: Evaluation;
}

export async function mutateOnce(client: TaskClient, input: MutateOnceInput, signal?: AbortSignal): Promise<MutateOnceOutcome> {
  const payload: MutatePayload = {
    mutator: input.mutator,
    parent: { id: programId(input.code), code: input.code, objective: null },
    inspirations: [],
    avoid: [],
    seed: input.seed,
    task: input.task,
    // One answer per proposal: the caller shows every proposal it asks for.
    choices: 1,
    ...(input.backend && { backend: input.backend }),
  };
  const taskId = await client.submit({ kind: 'mutate', payload, requires: input.mutator === 'llm-patch' ? ['llm'] : ['cpu'] });
  const result = await awaitResult(client, taskId, signal);
  const proposal = proposalOf(result.data);
  const outcome: MutateOnceOutcome = { seed: input.seed, proposal, ...(!proposal && { error: result.error ? `${result.error.code}: ${result.error.message}` : 'no proposal' }) };
  if (input.example && proposal?.ok) {
    const evalId = await client.submit(evaluateTaskSpec(input.example, proposal.code, input.seed, [], input.label));
    const evaluated = await awaitResult(client, evalId, signal);
    const evaluation = evaluationOf(evaluated.data);
    if (evaluation) outcome.evaluation = evaluation;
    else outcome.error = `the evaluation gave no verdict: ${evaluated.error ? `${evaluated.error.code}: ${evaluated.error.message}` : evaluated.status}`;
  }
  return outcome;
}
