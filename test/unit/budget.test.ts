/**
 * Budget guardrails: the worst-case arithmetic printed before a run, and the BudgetGuard
 * that must never let what is spent plus what is reserved for calls in flight pass a limit,
 * whatever the order in which jobs start and finish.
 */
import * as assert from 'node:assert/strict';
import { BudgetGuard, type CallCost, type Spend, worstCasePerJob, worstCaseRun } from '../../daemon/evolution/controller/budget';
import type { StopConditions } from '../../daemon/evolution/controller/runDir';
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
  const PER_JOB: Spend = { tokens: 50, usd: 0.5, calls: 3 };

  it('admits a job exactly up to each limit, and names the limit a further one would break', () => {
    const guard = new BudgetGuard({ budgetTokens: 100 }, PER_JOB);
    const nothing: Spend = { tokens: 0, usd: 0, calls: 0 };
    assert.equal(guard.check(nothing), undefined);
    guard.reserve();
    assert.equal(guard.check(nothing), undefined, 'reserved 50 + 50 = the budget: allowed');
    guard.reserve();
    assert.equal(guard.check(nothing), 'budget_tokens');
    guard.release();
    guard.release();
    assert.equal(guard.check({ tokens: 50, usd: 0, calls: 1 }), undefined);
    assert.equal(guard.check({ tokens: 51, usd: 0, calls: 1 }), 'budget_tokens');

    assert.equal(new BudgetGuard({ maxLlmCalls: 5 }, PER_JOB).check({ tokens: 0, usd: 0, calls: 3 }), 'max_llm_calls');
    assert.equal(new BudgetGuard({ maxLlmCalls: 5 }, PER_JOB).check({ tokens: 0, usd: 0, calls: 2 }), undefined);
    assert.equal(new BudgetGuard({ budgetUsd: 1 }, PER_JOB).check({ tokens: 0, usd: 0.6, calls: 0 }), 'budget_usd');
    assert.equal(new BudgetGuard({}, PER_JOB).check({ tokens: 1e9, usd: 1e9, calls: 1e9 }), undefined, 'no limit, no stop');
  });

  /**
   * A controller in miniature, as EvolutionRun drives the guard: start jobs while the guard
   * allows (reserve), finish a random one (it spends at most its worst case; release). At
   * every step spent + reserved must fit every budget.
   */
  function simulate(stop: StopConditions, perJob: Spend, seed: number, maxInFlight: number): { spent: Spend; jobs: number; reason: string | undefined } {
    const rng = new Rng(seed);
    const guard = new BudgetGuard(stop, perJob);
    const spent: Spend = { tokens: 0, usd: 0, calls: 0 };
    let inFlight = 0;
    let jobs = 0;
    let reason: string | undefined;
    const assertWithin = (label: string): void => {
      const committed = (key: keyof Spend): number => spent[key] + inFlight * perJob[key];
      if (stop.budgetTokens !== undefined) assert.ok(committed('tokens') <= stop.budgetTokens, `${label}: tokens ${committed('tokens')} > ${stop.budgetTokens}`);
      if (stop.budgetUsd !== undefined) assert.ok(committed('usd') <= stop.budgetUsd + 1e-9, `${label}: usd ${committed('usd')} > ${stop.budgetUsd}`);
      if (stop.maxLlmCalls !== undefined) assert.ok(committed('calls') <= stop.maxLlmCalls, `${label}: calls ${committed('calls')} > ${stop.maxLlmCalls}`);
    };
    for (let step = 0; step < 10_000; step++) {
      while (!reason && inFlight < maxInFlight) {
        reason = guard.check(spent);
        if (reason) break;
        guard.reserve();
        inFlight++;
        jobs++;
        assertWithin(`seed ${seed} step ${step} after a reserve`);
      }
      if (inFlight === 0) break;
      // A job ends: it made 1..callsPerJob calls, each using part of its worst case.
      const calls = 1 + rng.int(perJob.calls);
      const share = calls / perJob.calls;
      spent.calls += calls;
      spent.tokens += Math.floor(perJob.tokens * share * rng.next());
      spent.usd += perJob.usd * share * rng.next();
      guard.release();
      inFlight--;
      assertWithin(`seed ${seed} step ${step} after a release`);
    }
    return { spent, jobs, reason };
  }

  it('never lets spent + reserved pass a budget, whatever the order of jobs (property, 200 seeded runs)', () => {
    const limits: StopConditions[] = [{ budgetTokens: 1_000 }, { budgetUsd: 7.3 }, { maxLlmCalls: 40 }, { budgetTokens: 2_000, budgetUsd: 5, maxLlmCalls: 31 }];
    for (let seed = 1; seed <= 200; seed++) {
      const stop = limits[seed % limits.length]!;
      const { spent, jobs, reason } = simulate(stop, PER_JOB, seed, 1 + (seed % 6));
      assert.ok(jobs > 0, 'the budget admits some jobs');
      assert.ok(reason, `seed ${seed}: the run is eventually stopped by a budget`);
      if (stop.budgetTokens !== undefined) assert.ok(spent.tokens <= stop.budgetTokens);
      if (stop.budgetUsd !== undefined) assert.ok(spent.usd <= stop.budgetUsd);
      if (stop.maxLlmCalls !== undefined) assert.ok(spent.calls <= stop.maxLlmCalls);
    }
  });
});
