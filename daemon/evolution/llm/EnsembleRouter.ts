/**
 * Chooses the backend for each LLM call. Every choice is drawn from the run's Rng, so the
 * same seed and the same feedback give the same choices (resume, replay).
 *
 *  - `weighted`: each backend in proportion to its configured weight.
 *  - `bandit`: UCB1 over "improvement per dollar". A backend's value is its total reward
 *    (the gain of its children over their parents; 0 for a failed call) divided by its total
 *    cost, normalised by the best backend's value into [0, 1]; UCB1 adds sqrt(2 ln N / n) so
 *    that a backend that has been tried little is tried again. Backends never tried go first.
 *
 * Protocol: every choose() is followed by exactly one feedback() for the chosen name (a
 * failed or cancelled call reports reward 0 and what it cost), so calls in flight count as
 * tries and parallel workers do not all pile onto the same untried backend.
 */
import * as z from 'zod';
import type { Rng } from '../rng';

export type RoutingMode = 'weighted' | 'bandit';

export interface RouterBackend {
  name: string;
  weight: number;
}

export interface RouterFeedback {
  /** The improvement the call bought (child over parent, ≥ 0); 0 for a failure. */
  reward: number;
  costUsd: number;
}

export interface BackendStats {
  name: string;
  weight: number;
  /** Calls that reported feedback. */
  calls: number;
  /** Sum of rewards. */
  reward: number;
  costUsd: number;
}

const ArmStateSchema = z
  .object({
    name: z.string().min(1),
    calls: z.number().int().nonnegative(),
    reward: z.number().nonnegative().finite(),
    costUsd: z.number().nonnegative().finite(),
  })
  .strict();

export const RouterStateSchema = z
  .object({
    version: z.literal(1),
    mode: z.enum(['weighted', 'bandit']),
    arms: z.array(ArmStateSchema),
  })
  .strict();
export type RouterState = z.infer<typeof RouterStateSchema>;

/**
 * Cost charged per call when comparing value per dollar, so that a free backend (a local
 * model) has a finite value: a millionth of a dollar.
 */
const COST_FLOOR_USD = 1e-6;

interface Arm {
  name: string;
  weight: number;
  calls: number;
  reward: number;
  costUsd: number;
  inFlight: number;
}

export class EnsembleRouter {
  private readonly arms: Arm[];

  constructor(
    backends: readonly RouterBackend[],
    readonly mode: RoutingMode,
  ) {
    if (backends.length === 0) throw new Error('EnsembleRouter: no backends to route between');
    const names = new Set<string>();
    for (const { name, weight } of backends) {
      if (names.has(name)) throw new Error(`EnsembleRouter: two backends are named "${name}"`);
      if (!(Number.isFinite(weight) && weight > 0)) throw new Error(`EnsembleRouter: backend "${name}" has weight ${weight}; weights are positive numbers`);
      names.add(name);
    }
    this.arms = backends.map(({ name, weight }) => ({ name, weight, calls: 0, reward: 0, costUsd: 0, inFlight: 0 }));
  }

  /** The backend for the next call. */
  choose(rng: Rng): string {
    const arm = this.mode === 'weighted' ? this.chooseWeighted(rng) : this.chooseUcb1(rng);
    arm.inFlight += 1;
    return arm.name;
  }

  /** Reports how the call on `name` went. Negative or non-finite rewards count as 0. */
  feedback(name: string, feedback: RouterFeedback): void {
    const arm = this.arm(name);
    arm.inFlight = Math.max(0, arm.inFlight - 1);
    arm.calls += 1;
    arm.reward += Number.isFinite(feedback.reward) && feedback.reward > 0 ? feedback.reward : 0;
    arm.costUsd += Number.isFinite(feedback.costUsd) && feedback.costUsd > 0 ? feedback.costUsd : 0;
  }

  stats(): BackendStats[] {
    return this.arms.map(({ name, weight, calls, reward, costUsd }) => ({ name, weight, calls, reward, costUsd }));
  }

  /** What a checkpoint saves: the per-backend totals (calls in flight are not saved). */
  state(): RouterState {
    return {
      version: 1,
      mode: this.mode,
      arms: this.arms.map(({ name, calls, reward, costUsd }) => ({ name, calls, reward, costUsd })),
    };
  }

  /**
   * Restores saved totals. Backends configured now but absent from the state start fresh;
   * saved backends no longer configured are dropped. Throws on a malformed state.
   */
  restore(state: unknown): void {
    const parsed = RouterStateSchema.safeParse(state);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`EnsembleRouter: invalid saved state: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
    }
    const saved = new Map(parsed.data.arms.map((arm) => [arm.name, arm]));
    for (const arm of this.arms) {
      const from = saved.get(arm.name);
      arm.calls = from?.calls ?? 0;
      arm.reward = from?.reward ?? 0;
      arm.costUsd = from?.costUsd ?? 0;
      arm.inFlight = 0;
    }
  }

  private arm(name: string): Arm {
    const arm = this.arms.find((candidate) => candidate.name === name);
    if (!arm) throw new Error(`EnsembleRouter: unknown backend "${name}"`);
    return arm;
  }

  private chooseWeighted(rng: Rng): Arm {
    const total = this.arms.reduce((sum, arm) => sum + arm.weight, 0);
    let point = rng.next() * total;
    for (const arm of this.arms) {
      point -= arm.weight;
      if (point < 0) return arm;
    }
    return this.arms[this.arms.length - 1]!;
  }

  private chooseUcb1(rng: Rng): Arm {
    const tries = (arm: Arm): number => arm.calls + arm.inFlight;
    const untried = this.arms.filter((arm) => tries(arm) === 0);
    if (untried.length > 0) return rng.pick(untried);

    const value = (arm: Arm): number => (arm.calls === 0 ? 0 : arm.reward / Math.max(arm.costUsd, COST_FLOOR_USD * arm.calls));
    const best = Math.max(...this.arms.map(value));
    const total = this.arms.reduce((sum, arm) => sum + tries(arm), 0);
    const scores = this.arms.map((arm) => (best > 0 ? value(arm) / best : 0) + Math.sqrt((2 * Math.log(total)) / tries(arm)));
    const top = Math.max(...scores);
    // Ties (e.g. identical histories) are broken by the Rng, not by configuration order.
    const tied = this.arms.filter((_, index) => scores[index]! >= top - 1e-12);
    return tied.length === 1 ? tied[0]! : rng.pick(tied);
  }
}
