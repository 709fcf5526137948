/** The mutate and evaluate tasks a run sends to the fabric, built from the run's events. */
import { existsSync } from 'node:fs';
import type { Evaluation, ExampleConfig } from '../../../shared/evaluation';
import type { Program } from '../../../shared/evolution';
import type { MutatePayload } from '../../../shared/payloads';
import type { TaskSpec } from '../../../shared/task';
import type { Example } from '../../evaluation/example';
import type { MutationProposal, MutationRequest, MutationSubject } from '../mutation/Mutator';
import { programId } from '../../../shared/programId';
import { withEdit, withoutOneEdit, withoutEdit } from '../mutation/edits';
import { unifiedDiff } from '../mutation/patch/unifiedDiff';
import type { PlanEvent, ProposalEvent } from '../runEvents';
import type { RunManifest } from '../../../shared/runManifest';
import { RunState } from './RunState';
import { DEFAULT_LIMITS } from '../../sandbox/Executor';

const INSPIRATION_CHARS = 12_000;

/** What a mutator is told about the example's program. */
export function mutationTaskOf(config: ExampleConfig): MutationRequest['task'] {
  return {
    name: config.name,
    ...(config.description && { description: config.description }),
    ...(config.language && { language: config.language }),
    ...(config.entry && { entry: config.entry }),
    objectiveName: config.objective.name,
    direction: config.objective.direction,
  };
}

/**
 * The mutation request of a planned job, from the archive as it was when the job was
 * planned. The live run sends it as a mutate task and replay hands it to the mutator again:
 * one function, so the two can never differ.
 */
export function mutationRequestFor(plan: PlanEvent, state: RunState, config: ExampleConfig): MutationRequest {
  const parent = state.archive.get(plan.parent);
  if (!parent) throw new Error(`job ${plan.job}: parent ${plan.parent.slice(0, 12)} is not in the archive`);
  const subject = (program: Program): MutationSubject => ({
    id: program.id,
    code: program.code,
    objective: program.objective,
    ...(program.evaluation && { metrics: program.evaluation.metrics }),
  });
  const failure = plan.kind === 'repair' ? RunState.failureOf(parent.evaluation) : undefined;
  return {
    parent: subject(parent),
    inspirations: plan.inspirations
      .map((id) => state.archive.get(id))
      .filter((program): program is Program => program !== undefined && program.code.length <= INSPIRATION_CHARS)
      .map(subject),
    ...(failure && { failure }),
    avoid: plan.avoid,
    seed: plan.seed,
    task: mutationTaskOf(config),
  };
}

export function mutateTaskSpec(plan: PlanEvent, state: RunState, manifest: RunManifest, example: Example, runId: string): TaskSpec {
  const request = mutationRequestFor(plan, state, example.config);
  const payload: MutatePayload = {
    mutator: manifest.settings.mutator,
    ...request,
    avoid: [...(request.avoid ?? [])],
    ...(plan.backend && { backend: plan.backend }),
    temperature: manifest.llm.temperature,
    maxTokens: manifest.llm.maxTokens,
    repairAttempts: plan.calls?.format ?? manifest.llm.repairAttempts,
    reaskAttempts: plan.calls?.known ?? manifest.llm.repairAttempts,
    allowRewrite: manifest.llm.allowRewrite,
    choices: manifest.llm.choices,
    // Only a prompt directory that exists: the project rarely has one, and a worker on a shared
    // queue refuses a path it cannot find (every LLM call of the run would fail there).
    ...(manifest.llm.promptDir && existsSync(manifest.llm.promptDir) && { promptDir: manifest.llm.promptDir }),
    ...(manifest.settings.ablate?.includes('normalize') && { childCheck: false }),
  };
  return { kind: 'mutate', payload, requires: runTaskKinds(manifest).mutate.requires, runId };
}

/** The kinds of task a run submits and what each requires of a worker (where they may run). */
export function runTaskKinds(manifest: RunManifest): Record<'mutate' | 'evaluate', { kind: string; requires: string[] }> {
  return {
    mutate: { kind: 'mutate', requires: manifest.settings.usesLlm ? ['llm'] : ['cpu'] },
    evaluate: { kind: 'evaluate', requires: [] },
  };
}

/**
 * The proposal of a job that makes no call (isFreePlan), made here with no task: the sibling
 * an earlier call gave, the source child without one of its edits, the parent without an edit
 * of its lineage, or the parent with the edit of another lineage (edits.ts). The live run and
 * replay both call this.
 */
export function freeProposal(plan: PlanEvent, state: RunState): ProposalEvent {
  const common = { type: 'proposal' as const, job: plan.job, mutator: plan.kind, exchanges: [], repairs: 0, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 };
  const parent = state.archive.get(plan.parent);
  let code: string | undefined;
  if (parent && plan.sibling) {
    code = plan.sibling.code;
  } else if (parent && plan.split) {
    const source = state.archive.get(plan.split.source);
    code = source && withoutOneEdit(parent.code, source.code, plan.split.edit, plan.split.keepDeletions);
  } else if (parent && (plan.revert || plan.transplant)) {
    // The edit that made `from` out of its own parent: undone (revert) or made (transplant) on the parent.
    const after = state.archive.get((plan.revert ?? plan.transplant)!.from);
    const before = after?.lineage.parents[0] ? state.archive.get(after.lineage.parents[0]) : undefined;
    code = after && before && (plan.revert ? withoutEdit : withEdit)(parent.code, before.code, after.code);
  }
  if (!parent || code === undefined) return { ...common, ok: false, reason: 'no_edit', message: `the ${plan.kind} does not apply` };
  // A sibling keeps the name of the model that wrote it: its lineage then says whose edit it is.
  return { ...common, ok: true, childId: programId(code), code, patch: unifiedDiff(parent.code, code), ...(plan.sibling?.model && { model: plan.sibling.model }) };
}

/** @param timeoutMs the run's --eval-timeout (absent: the example's own limit). */
export function evaluateTaskSpec(example: Example, code: string, seed: number, args: readonly string[], runId: string, timeoutMs?: number): TaskSpec {
  return { kind: 'evaluate', payload: { exampleDir: example.dir, program: code, seed, args: [...args], ...(timeoutMs !== undefined && { timeoutMs }) }, runId };
}

/** How long one evaluation of the run may take: its --eval-timeout, else the example's limit, else the sandbox's default. */
export function evaluationLimitMs(manifest: Pick<RunManifest, 'evalTimeoutMs'>, example: Pick<Example, 'config'>): number {
  return manifest.evalTimeoutMs ?? example.config.limits.timeoutMs ?? DEFAULT_LIMITS.timeoutMs;
}

/** A mutate task's result data, checked enough to trust its shape. */
export function proposalOf(data: unknown): MutationProposal | undefined {
  const candidate = data as Partial<MutationProposal> | undefined;
  if (!candidate || typeof candidate !== 'object' || typeof candidate.ok !== 'boolean' || !Array.isArray(candidate.exchanges)) return undefined;
  if (candidate.ok && typeof (candidate as { code?: unknown }).code !== 'string') return undefined;
  return candidate as MutationProposal;
}

/** An evaluate task's result data (ok or error results both carry the Evaluation). */
export function evaluationOf(data: unknown): Evaluation | undefined {
  const candidate = data as Partial<Evaluation> | undefined;
  if (!candidate || typeof candidate !== 'object' || typeof candidate.correct !== 'boolean' || typeof candidate.wallMs !== 'number') return undefined;
  return candidate as Evaluation;
}
