/**
 * Credit where LLM calls pay off: how often each kind of call gives what it is made for,
 * learned during the run, so that a kind of call gets the attempts its measured rate earns
 * (down to none).
 *
 * Kinds of call, each with its own rate:
 *  - `first`: the opening answer of an improve job; success = a new child to evaluate.
 *  - `format`: a format repair (the answer did not apply, or its child did not compile);
 *    success = a new child.
 *  - `known`: a re-ask after the answer repeated a known program; success = a new child.
 *  - `improve`: each child of an improve job that was evaluated; success = it was correct.
 *  - `evaluation`: each repair job (a child that failed evaluation, sent back with the
 *    evaluator's words); success = it gave a child that evaluated correct.
 *
 * A repair or re-ask competes with what the same call would give as a fresh one: `format`
 * and `known` against `first`, `evaluation` against `improve` (per child: correct children
 * are common enough with any model that a repair that never works is seen within a few tries,
 * where a rate per call would take dozens). Each decision draws both rates
 * from their Beta posteriors (Thompson sampling) with the run's Rng, so a kind that works is
 * used, one that does not fades out, and one with few data is still tried now and then.
 * Statistics are discounted (recent calls count most): the rates drift as the search moves on.
 */
import * as z from 'zod';
import type { Rng } from '../rng';

export const CALL_KINDS = ['first', 'format', 'known', 'improve', 'evaluation'] as const;
export type CallKind = (typeof CALL_KINDS)[number];

/** What each kind of repair competes with. */
const RIVAL: Record<'format' | 'known' | 'evaluation', CallKind> = { format: 'first', known: 'first', evaluation: 'improve' };

/** Draws per grant: the most attempts a job may be given of one kind (the payload's limit). */
export const GRANT_DRAWS = 5;

/** Per-update discount of a kind's statistics: about the last 50 calls of a kind count. */
const DISCOUNT = 0.98;

const KindStatsSchema = z.object({ calls: z.number().nonnegative(), successes: z.number().nonnegative() });
export const CallCreditStateSchema = z.object(Object.fromEntries(CALL_KINDS.map((kind) => [kind, KindStatsSchema])) as Record<CallKind, typeof KindStatsSchema>);
export type CallCreditState = z.infer<typeof CallCreditStateSchema>;
export type KindStats = z.infer<typeof KindStatsSchema>;

export class CallCredit {
  private stats: CallCreditState;

  constructor(state?: unknown) {
    this.stats = state === undefined ? emptyState() : CallCreditStateSchema.parse(state);
  }

  /** `calls` calls of `kind` gave `successes` successes (0 or more; never more than calls). */
  note(kind: CallKind, calls: number, successes: number): void {
    if (calls <= 0) return;
    const stats = this.stats[kind];
    stats.calls = stats.calls * DISCOUNT + calls;
    stats.successes = stats.successes * DISCOUNT + Math.min(successes, calls);
  }

  /** The posterior mean success rate of a kind (uniform prior). */
  rate(kind: CallKind): number {
    const { calls, successes } = this.stats[kind];
    return (successes + 1) / (calls + 2);
  }

  /** The discounted statistics of a kind (the run's counters keep the plain totals for reports). */
  get(kind: CallKind): KindStats {
    return { ...this.stats[kind] };
  }

  /**
   * How many attempts of a repair kind to allow, up to `max` (at most GRANT_DRAWS): one more
   * for each draw in a row in which the kind's sampled rate is at least its rival's. Always
   * draws GRANT_DRAWS pairs, so the Rng advances the same whatever the outcome and the cap
   * (replay re-plans without knowing the cap a live job had).
   */
  grant(kind: 'format' | 'known', max: number, rng: Rng): number {
    let granted = 0;
    let open = true;
    for (let i = 0; i < GRANT_DRAWS; i++) {
      const wins = this.sample(kind, rng) >= this.sample(RIVAL[kind], rng);
      if (open && wins && granted < max) granted++;
      else open = false;
    }
    return granted;
  }

  /** Whether a repair job of a failed child is worth its call now (one Thompson draw). */
  prefersRepair(rng: Rng): boolean {
    return this.sample('evaluation', rng) >= this.sample(RIVAL.evaluation, rng);
  }

  state(): CallCreditState {
    return structuredClone(this.stats);
  }

  private sample(kind: CallKind, rng: Rng): number {
    const { calls, successes } = this.stats[kind];
    return rng.beta(successes + 1, Math.max(0, calls - successes) + 1);
  }
}

function emptyState(): CallCreditState {
  return Object.fromEntries(CALL_KINDS.map((kind) => [kind, { calls: 0, successes: 0 }])) as CallCreditState;
}
