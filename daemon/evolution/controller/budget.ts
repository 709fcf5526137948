/**
 * Budget guardrails (P-7): the worst-case spend before a run starts, and hard stops during
 * it. A job reserves its worst case (every call it may make answering with max_tokens) before
 * its mutate task is sent, so the spend can never pass a budget, even with calls in flight.
 */
import type { StopConditions } from '../../../shared/runManifest';

export interface CallCost {
  /** Estimated input tokens of one call (the prompt). */
  inputTokens: number;
  maxTokens: number;
  /** USD per token, input and output; 0 when unknown. */
  usdPerInputToken: number;
  usdPerOutputToken: number;
  /** Calls one job can make: the first answer plus its format repairs and re-asks. */
  callsPerJob: number;
}

export interface Spend {
  tokens: number;
  usd: number;
  calls: number;
}

export type BudgetStop = 'budget_tokens' | 'budget_usd' | 'max_llm_calls';

export function worstCasePerJob(cost: CallCost): Spend {
  const perCall = worstCasePerCall(cost);
  return { tokens: perCall.tokens * cost.callsPerJob, usd: perCall.usd * cost.callsPerJob, calls: cost.callsPerJob };
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

/** The worst case of one call: its prompt plus an answer of max_tokens. */
export function worstCasePerCall(cost: CallCost): Spend {
  return { tokens: cost.inputTokens + cost.maxTokens, usd: cost.inputTokens * cost.usdPerInputToken + cost.maxTokens * cost.usdPerOutputToken, calls: 1 };
}

/**
 * Hard budgets that are not early: a job reserves the worst case of the calls it may make
 * (its first answer plus the repairs it was granted) before its mutate task is sent, so spent
 * plus reserved never passes a budget; and a job is granted only as many calls as are left,
 * so the last jobs get fewer repairs instead of the run stopping with calls unspent.
 */
export class BudgetGuard {
  private reserved: Spend = { tokens: 0, usd: 0, calls: 0 };

  constructor(
    private readonly stop: StopConditions,
    private readonly perCall: Spend,
  ) {}

  /**
   * How many calls a new job may make given what is spent and reserved (Infinity without
   * budgets), and which budget binds (the tightest; none without budgets).
   */
  allowance(spent: Spend): { calls: number; binding?: BudgetStop } {
    let calls = Infinity;
    let binding: BudgetStop | undefined;
    const limit = (key: keyof Spend, budget: number | undefined, reason: BudgetStop): void => {
      if (budget === undefined) return;
      const left = budget - spent[key] - this.reserved[key];
      // A call that costs nothing of this kind (no price known) is never stopped by it.
      const fits = this.perCall[key] > 0 ? Math.floor(left / this.perCall[key] + 1e-9) : left >= 0 ? Infinity : 0;
      if (binding === undefined || fits < calls) {
        calls = Math.max(0, fits);
        binding = reason;
      }
    };
    limit('calls', this.stop.maxLlmCalls, 'max_llm_calls');
    limit('tokens', this.stop.budgetTokens, 'budget_tokens');
    limit('usd', this.stop.budgetUsd, 'budget_usd');
    return { calls, ...(binding && { binding }) };
  }

  /** Reserves the worst case of `calls` calls; release the same number when they are over. */
  reserve(calls: number): void {
    this.add(calls);
  }

  release(calls: number): void {
    this.add(-calls);
  }

  private add(calls: number): void {
    this.reserved = {
      tokens: this.reserved.tokens + calls * this.perCall.tokens,
      usd: this.reserved.usd + calls * this.perCall.usd,
      calls: this.reserved.calls + calls * this.perCall.calls,
    };
  }
}
