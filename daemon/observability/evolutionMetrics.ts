/**
 * LLM and evolution metrics, derived from what a run journals (proposal and evaluation
 * events) and from its progress snapshots, in the process that coordinates runs (the daemon).
 *
 * The `run` label is bounded: the runs in progress plus the last {@link FINISHED_RUNS_KEPT}
 * finished ones keep their series; an older run's series are removed.
 */
import type { RunProgress } from '../../shared/evolution';
import type { RunEvent } from '../evolution/runEvents';
import type { LlmExchange } from '../evolution/mutation/Mutator';
import { type PeagenMetrics, processMetrics } from './metrics';

export const FINISHED_RUNS_KEPT = 20;

/** A proposal whose model never answered: no patch to count. */
const NO_ANSWER_REASONS = new Set(['llm_error', 'prompt_error']);

export interface RunBudgets {
  budgetTokens?: number | undefined;
  budgetUsd?: number | undefined;
}

export class EvolutionMetrics {
  private readonly active = new Set<string>();
  /** Finished runs whose series are still kept, oldest first. */
  private readonly finished: string[] = [];

  constructor(
    private readonly metrics: PeagenMetrics = processMetrics(),
    private readonly keepFinished = FINISHED_RUNS_KEPT,
  ) {}

  runStarted(runId: string, budgets: RunBudgets): void {
    const index = this.finished.indexOf(runId);
    if (index >= 0) this.finished.splice(index, 1); // resumed
    this.active.add(runId);
    const run = { run: runId };
    if (budgets.budgetTokens !== undefined) this.metrics.evolveTokenBudget.set(run, budgets.budgetTokens);
    if (budgets.budgetUsd !== undefined) this.metrics.evolveCostBudget.set(run, budgets.budgetUsd);
    this.metrics.evolveRunsActive.set(this.active.size);
  }

  /**
   * One journaled event. `exchange` reads a recorded LLM exchange by its content address
   * (its usage, cost and latency); undefined when it cannot be read.
   */
  onEvent(runId: string, event: RunEvent, exchange: (hash: string) => LlmExchange | undefined): void {
    const m = this.metrics;
    if (event.type === 'evaluation') {
      const ok = event.evaluation.correct && event.evaluation.objective !== null;
      m.evolveEvaluations.inc({ run: runId, outcome: ok ? 'ok' : 'failed' });
      return;
    }
    if (event.type !== 'proposal') return;
    const noAnswer = !event.ok && NO_ANSWER_REASONS.has(event.reason ?? '');
    if (!noAnswer) m.evolvePatches.inc({ run: runId, outcome: event.ok ? 'applied' : 'rejected' });
    // `backend/model` as configured: bounded, and the same for answers and failures.
    const model = event.model;
    if (!model) return; // the offline mutator: no LLM
    for (const hash of event.exchanges) {
      m.llmRequests.inc({ model, outcome: 'ok' });
      const recorded = exchange(hash);
      if (!recorded) continue;
      m.llmTokens.inc({ model, direction: 'input' }, recorded.usage.inputTokens);
      m.llmTokens.inc({ model, direction: 'output' }, recorded.usage.outputTokens);
      m.llmCost.inc({ model }, recorded.costUsd);
      m.llmLatency.observe({ model }, recorded.latencyMs / 1000);
    }
    // The request that failed left no exchange. An aborted one is the run stopping, not an error.
    if (event.reason === 'llm_error' && !(event.message ?? '').startsWith('aborted:')) m.llmRequests.inc({ model, outcome: 'error' });
  }

  onProgress(progress: RunProgress): void {
    if (!this.active.has(progress.runId)) return;
    const run = { run: progress.runId };
    if (progress.best) this.metrics.evolveBestObjective.set(run, progress.best.objective);
    this.metrics.evolveTokensUsed.set(run, progress.tokens.inputTokens + progress.tokens.outputTokens);
    this.metrics.evolveCost.set(run, progress.costUsd);
  }

  runFinished(runId: string): void {
    if (!this.active.delete(runId)) return;
    this.finished.push(runId);
    while (this.finished.length > this.keepFinished) this.forget(this.finished.shift()!);
    this.metrics.evolveRunsActive.set(this.active.size);
  }

  /** Runs whose series are kept: in progress, then finished (oldest first). */
  keptRuns(): string[] {
    return [...this.active, ...this.finished];
  }

  private forget(runId: string): void {
    const m = this.metrics;
    for (const gauge of [m.evolveBestObjective, m.evolveTokensUsed, m.evolveTokenBudget, m.evolveCost, m.evolveCostBudget]) gauge.remove({ run: runId });
    for (const outcome of ['ok', 'failed']) m.evolveEvaluations.remove({ run: runId, outcome });
    for (const outcome of ['applied', 'rejected']) m.evolvePatches.remove({ run: runId, outcome });
  }
}

let shared: EvolutionMetrics | undefined;

/** This process's evolution metrics (the daemon's RunManager feeds it). */
export function processEvolutionMetrics(): EvolutionMetrics {
  shared ??= new EvolutionMetrics();
  return shared;
}
