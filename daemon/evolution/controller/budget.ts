/**
 * Budget guardrails (P-7): the worst-case spend before a run starts, and hard stops during
 * it. A job reserves its worst case (every call of it answering with max_tokens) before its
 * mutate task is sent, so the spend can never pass a budget, even with calls in flight.
 */
import type { StopConditions } from './runDir';

export interface CallCost {
  /** Estimated input tokens of one call (the prompt). */
  inputTokens: number;
  maxTokens: number;
  /** USD per token, input and output; 0 when unknown. */
  usdPerInputToken: number;
  usdPerOutputToken: number;
  /** Calls one job can make: the first answer plus its repairs. */
  callsPerJob: number;
}

export interface Spend {
  tokens: number;
  usd: number;
  calls: number;
}

export type BudgetStop = 'budget_tokens' | 'budget_usd' | 'max_llm_calls';

export function worstCasePerJob(cost: CallCost): Spend {
  const tokensPerCall = cost.inputTokens + cost.maxTokens;
  return {
    tokens: tokensPerCall * cost.callsPerJob,
    usd: (cost.inputTokens * cost.usdPerInputToken + cost.maxTokens * cost.usdPerOutputToken) * cost.callsPerJob,
    calls: cost.callsPerJob,
  };
}

/**
 * The worst case of the whole run: jobs bounded by the evaluation or generation limits
 * (every job may also be one repair), or by the LLM-call limit. Unbounded when neither is set.
 */
export function worstCaseRun(cost: CallCost, stop: StopConditions, childrenPerGeneration: number): (Spend & { jobs: number }) | undefined {
  const byEvaluations = stop.evaluations ?? (stop.generations !== undefined ? stop.generations * childrenPerGeneration : undefined);
  const jobsFromEvaluations = byEvaluations !== undefined ? byEvaluations * 2 : undefined;
  const jobsFromCalls = stop.maxLlmCalls !== undefined ? Math.ceil(stop.maxLlmCalls / cost.callsPerJob) : undefined;
  const jobs = [jobsFromEvaluations, jobsFromCalls].filter((value): value is number => value !== undefined);
  if (jobs.length === 0) return undefined;
  const bound = Math.min(...jobs);
  const perJob = worstCasePerJob(cost);
  const calls = stop.maxLlmCalls !== undefined ? Math.min(stop.maxLlmCalls, bound * cost.callsPerJob) : bound * cost.callsPerJob;
  return { jobs: bound, calls, tokens: perJob.tokens * bound, usd: perJob.usd * bound };
}

export class BudgetGuard {
  private reserved: Spend = { tokens: 0, usd: 0, calls: 0 };

  constructor(
    private readonly stop: StopConditions,
    private readonly perJob: Spend,
  ) {}

  /** Which budget a new job would break, given what is spent; undefined when it fits. */
  check(spent: Spend): BudgetStop | undefined {
    const after = (key: keyof Spend): number => spent[key] + this.reserved[key] + this.perJob[key];
    if (this.stop.maxLlmCalls !== undefined && after('calls') > this.stop.maxLlmCalls) return 'max_llm_calls';
    if (this.stop.budgetTokens !== undefined && after('tokens') > this.stop.budgetTokens) return 'budget_tokens';
    if (this.stop.budgetUsd !== undefined && after('usd') > this.stop.budgetUsd) return 'budget_usd';
    return undefined;
  }

  reserve(): void {
    this.add(1);
  }

  /** The job's calls are over; what they really spent is in the run's counters now. */
  release(): void {
    this.add(-1);
  }

  private add(sign: 1 | -1): void {
    this.reserved = {
      tokens: this.reserved.tokens + sign * this.perJob.tokens,
      usd: this.reserved.usd + sign * this.perJob.usd,
      calls: this.reserved.calls + sign * this.perJob.calls,
    };
  }
}
