/**
 * Budget guardrails: the worst-case arithmetic printed before a run, and the BudgetGuard
 * that must never let what is spent plus what is reserved for calls in flight pass a limit,
 * whatever the order in which jobs start and finish.
 */
import * as assert from 'node:assert/strict';
import { BudgetGuard, type CallCost, type Spend, worstCasePerJob, worstCaseRun } from '../../daemon/evolution/controller/budget';
import type { StopConditions } from '../../shared/runManifest';
import { Rng } from '../../daemon/evolution/rng';

const COST: CallCost = { inputTokens: 1_000, maxTokens: 500, usdPerInputToken: 1e-6, usdPerOutputToken: 4e-6, callsPerJob: 3 };

const close = (actual: number, expected: number): void => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);

describe('worst-case spend', () => {
  it('of one job: every call (first answer and each repair) answering with max_tokens', () => {
    const perJob = worstCasePerJob(COST);
    assert.equal(perJob.tokens, 3 * 1_500);
    assert.equal(perJob.calls, 3);
    close(perJob.usd, 3 * (1_000 * 1e-6 + 500 * 4e-6));
  });

  it('of a run bounded by evaluations: each evaluation may cost a job and a repair job', () => {
    const run = worstCaseRun(COST, { evaluations: 10 }, 4)!;
    assert.deepEqual({ jobs: run.jobs, calls: run.calls, tokens: run.tokens }, { jobs: 20, calls: 60, tokens: 20 * 4_500 });
    close(run.usd, 20 * worstCasePerJob(COST).usd);
  });

  it('of a run bounded by generations: generations × children per generation evaluations', () => {
    assert.equal(worstCaseRun(COST, { generations: 3 }, 4)!.jobs, 3 * 4 * 2);
    assert.equal(worstCaseRun(COST, { generations: 3, evaluations: 5 }, 4)!.jobs, 5 * 2, 'the tighter limit binds');
  });

  it('of a run bounded by the call limit: never more calls than the limit', () => {
    const run = worstCaseRun(COST, { maxLlmCalls: 7 }, 4)!;
    assert.equal(run.calls, 7);
    assert.equal(run.jobs, 3, 'ceil(7 / 3 calls per job)');
    const both = worstCaseRun(COST, { maxLlmCalls: 100, evaluations: 2 }, 4)!;
    assert.deepEqual({ jobs: both.jobs, calls: both.calls }, { jobs: 4, calls: 12 });
  });

  it('is unbounded (undefined) when no evaluation, generation or call limit is set', () => {
    for (const stop of [{}, { budgetTokens: 1_000 }, { budgetUsd: 1 }, { wallMs: 60_000 }, { target: 10 }] satisfies StopConditions[]) {
      assert.equal(worstCaseRun(COST, stop, 4), undefined, JSON.stringify(stop));
    }
  });
});

describe('BudgetGuard', () => {
  const PER_CALL: Spend = { tokens: 20, usd: 0.2, calls: 1 };
  const nothing: Spend = { tokens: 0, usd: 0, calls: 0 };

  it('grants a job the calls that fit every budget, and names the budget that binds when none fit', () => {
    const guard = new BudgetGuard({ budgetTokens: 100 }, PER_CALL);
    assert.deepEqual(guard.allowance(nothing), { calls: 5, binding: 'budget_tokens' });
    guard.reserve(3);
    assert.deepEqual(guard.allowance(nothing), { calls: 2, binding: 'budget_tokens' }, 'reserved calls count as spent');
    guard.reserve(2);
    assert.deepEqual(guard.allowance(nothing), { calls: 0, binding: 'budget_tokens' });
    guard.release(2);
    guard.release(3);
    assert.deepEqual(guard.allowance({ tokens: 79, usd: 0, calls: 4 }), { calls: 1, binding: 'budget_tokens' });
    assert.deepEqual(guard.allowance({ tokens: 81, usd: 0, calls: 4 }), { calls: 0, binding: 'budget_tokens' });

    assert.deepEqual(new BudgetGuard({ maxLlmCalls: 5 }, PER_CALL).allowance({ tokens: 0, usd: 0, calls: 3 }), { calls: 2, binding: 'max_llm_calls' });
    assert.deepEqual(new BudgetGuard({ maxLlmCalls: 5 }, PER_CALL).allowance({ tokens: 0, usd: 0, calls: 5 }), { calls: 0, binding: 'max_llm_calls' });
    assert.deepEqual(new BudgetGuard({ budgetUsd: 1, maxLlmCalls: 9 }, PER_CALL).allowance({ tokens: 0, usd: 0.5, calls: 0 }), { calls: 2, binding: 'budget_usd' }, 'the tightest budget binds');
    assert.deepEqual(new BudgetGuard({ budgetUsd: 1 }, { ...PER_CALL, usd: 0 }).allowance(nothing), { calls: Infinity, binding: 'budget_usd' }, 'no price known: the USD budget cannot bind');
    assert.deepEqual(new BudgetGuard({}, PER_CALL).allowance({ tokens: 1e9, usd: 1e9, calls: 1e9 }), { calls: Infinity }, 'no limit, no stop');
  });

  /**
   * A controller in miniature, as EvolutionRun drives the guard: while the guard allows, plan
   * a job granted min(policy, allowance) calls and reserve them; a random job then makes 1 to
   * its granted calls (each using part of its worst case) and releases its reservation. The
   * run ends when no call fits and none is reserved. At every step spent + reserved must fit
   * every budget.
   */
  function simulate(stop: StopConditions, perCall: Spend, seed: number, maxInFlight: number): { spent: Spend; jobs: number; reason: string | undefined } {
    const rng = new Rng(seed);
    const guard = new BudgetGuard(stop, perCall);
    const spent: Spend = { tokens: 0, usd: 0, calls: 0 };
    const inFlight: number[] = [];
    let jobs = 0;
    let reason: string | undefined;
    const assertWithin = (label: string): void => {
      const reservedCalls = inFlight.reduce((sum, calls) => sum + calls, 0);
      const committed = (key: keyof Spend): number => spent[key] + reservedCalls * perCall[key];
      if (stop.budgetTokens !== undefined) assert.ok(committed('tokens') <= stop.budgetTokens, `${label}: tokens ${committed('tokens')} > ${stop.budgetTokens}`);
      if (stop.budgetUsd !== undefined) assert.ok(committed('usd') <= stop.budgetUsd + 1e-9, `${label}: usd ${committed('usd')} > ${stop.budgetUsd}`);
      if (stop.maxLlmCalls !== undefined) assert.ok(committed('calls') <= stop.maxLlmCalls, `${label}: calls ${committed('calls')} > ${stop.maxLlmCalls}`);
    };
    for (let step = 0; step < 10_000; step++) {
      while (inFlight.length < maxInFlight) {
        const left = guard.allowance(spent);
        if (left.calls < 1) {
          if (inFlight.length === 0) reason = left.binding;
          break;
        }
        // The policy grants up to 2 format repairs and 2 re-asks: at most 5 calls.
        const granted = Math.min(1 + rng.int(5), left.calls);
        guard.reserve(granted);
        inFlight.push(granted);
        jobs++;
        assertWithin(`seed ${seed} step ${step} after a reserve`);
      }
      if (inFlight.length === 0) break;
      const [granted] = inFlight.splice(rng.int(inFlight.length), 1);
      // Most jobs stop at their first answer; some use every call they were granted.
      const calls = rng.next() < 0.6 ? 1 : 1 + rng.int(granted!);
      spent.calls += calls;
      spent.tokens += Math.floor(perCall.tokens * calls * (0.5 + rng.next() / 2));
      spent.usd += perCall.usd * calls * (0.5 + rng.next() / 2);
      guard.release(granted!);
      assertWithin(`seed ${seed} step ${step} after a release`);
    }
    return { spent, jobs, reason };
  }

  it('never lets spent + reserved pass a budget, whatever the order of jobs (property, 200 seeded runs)', () => {
    const limits: StopConditions[] = [{ budgetTokens: 1_000 }, { budgetUsd: 7.3 }, { maxLlmCalls: 40 }, { budgetTokens: 2_000, budgetUsd: 5, maxLlmCalls: 31 }];
    for (let seed = 1; seed <= 200; seed++) {
      const stop = limits[seed % limits.length]!;
      const { spent, jobs, reason } = simulate(stop, PER_CALL, seed, 1 + (seed % 6));
      assert.ok(jobs > 0, 'the budget admits some jobs');
      assert.ok(reason, `seed ${seed}: the run is eventually stopped by a budget`);
      if (stop.budgetTokens !== undefined) assert.ok(spent.tokens <= stop.budgetTokens);
      if (stop.budgetUsd !== undefined) assert.ok(spent.usd <= stop.budgetUsd);
      if (stop.maxLlmCalls !== undefined) assert.ok(spent.calls <= stop.maxLlmCalls);
    }
  });

  it('--max-llm-calls N: a run makes at least 0.95 N calls and never more than N, with 1 to 6 jobs in flight (200 seeded runs)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const n = 20 + (seed % 7) * 30;
      const { spent, reason } = simulate({ maxLlmCalls: n }, PER_CALL, seed, 1 + (seed % 6));
      assert.equal(reason, 'max_llm_calls');
      assert.ok(spent.calls <= n, `seed ${seed}: ${spent.calls} calls > ${n}`);
      assert.ok(spent.calls >= 0.95 * n, `seed ${seed}: only ${spent.calls} of ${n} calls were made`);
    }
  });
});
