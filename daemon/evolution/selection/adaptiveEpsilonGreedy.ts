/**
 * The default selector: breed from the best program most of the time, and explore the other
 * niche elites with a probability ε that follows how the run is going.
 *
 *  - exploit (probability 1 - ε): the parent is the best so far (the island's best when an
 *    island is given); when the run tells the selector its yields, a climbing step instead
 *    (climb.ts): the best or a close relative whose answers are still new, and down the
 *    ranking once those are exhausted;
 *    When the run also gives its families (families.ts), the exploit choice is first a family,
 *    by the credit its answers earned: on the best and its ties the climb chooses the parent,
 *    in another family (arm `family`, credited as exploration) that family's own parent;
 *  - explore (probability ε): a uniformly random niche elite other than the best and its
 *    close relatives (the best itself when it is the only correct program), preferring one
 *    that is not exhausted.
 *
 * ε starts at 0.15. Every improvement of the best multiplies it by 0.96 (floor 0.02): the best
 * is still yielding, keep at it. After every `window` (8) consecutive feedbacks in which no
 * child improved its parent or the best, it is multiplied by 1.05 (cap 0.5): the best has
 * stalled, look elsewhere. While climbing, only feedbacks of descents count here: answers
 * that are still new on the top are not a stall, even when improvements are rare.
 *
 * Credit per arm: each arm keeps a discounted mean reward (see reward.ts; γ = 0.97 per
 * feedback, so roughly the last 30 feedbacks of that arm count) with a neutral prior. The
 * exploration probability actually used is ε × (explore mean / exploit mean), the ratio
 * clamped to [0.5, 2] and the result to [floor, cap]. So when the best keeps improving and
 * exploring does not pay, exploration falls below ε; when explored niches improve while the
 * best stalls, it rises above ε. ε itself moves exactly by the rules above. When the run says
 * which children land near the best (SelectionOutcome.nearBest), an improvement of a weak
 * program earns an arm nothing: it is easy, and it does not move the result.
 */
import * as z from 'zod';
import type { Rng } from '../rng';
import { resolveSelectOptions, selectableBest, selectableElites, selectionIsland } from './archiveQueries';
import { chooseInspirations } from './inspirations';
import { climbingParent, EXHAUSTED } from './climb';
import { chooseFamily } from './families';
import type { ArchiveView, ParentSelector, SelectOptions, Selection, SelectionOutcome } from './ParentSelector';
import { improvementReward, isImprovement } from './reward';
import { parseSelectorState } from './selectorState';

export const EXPLOIT = 'exploit';
export const EXPLORE = 'explore';
/** Exploit when the top is exhausted: the climb went down the ranking (climb.ts). */
export const DESCEND = 'descend';
/** A family other than the best's, chosen by its credit (families.ts). */
export const FAMILY = 'family';
type Arm = typeof EXPLOIT | typeof EXPLORE;

export interface EpsilonGreedyOptions {
  /** Starting ε (0.15). */
  epsilon?: number;
  /** Floor of ε (0.02). */
  minEpsilon?: number;
  /** Cap of ε (0.5). */
  maxEpsilon?: number;
  /** Factor applied to ε on each improvement of the best (0.96). */
  decay?: number;
  /** Factor applied to ε after each `window` feedbacks without improvement (1.05). */
  growth?: number;
  /** Consecutive feedbacks without improvement that make ε grow once (8). */
  window?: number;
  /** Per-feedback discount of an arm's reward statistics (0.97); 1 keeps the whole history. */
  armDiscount?: number;
}

/** Neutral prior of each arm's mean reward: worth PRIOR_WEIGHT feedbacks of reward PRIOR_MEAN. */
const PRIOR_WEIGHT = 4;
const PRIOR_MEAN = 0.25;
const CREDIT_RATIO_MIN = 0.5;
const CREDIT_RATIO_MAX = 2;

const ArmStatsSchema = z.object({ pulls: z.number().nonnegative(), reward: z.number().nonnegative() });
const EpsilonGreedyStateSchema = z.object({
  selector: z.literal('epsilon-greedy'),
  epsilon: z.number().positive().max(1),
  sinceImprovement: z.number().int().nonnegative(),
  arms: z.object({ exploit: ArmStatsSchema, explore: ArmStatsSchema }),
});
export type EpsilonGreedyState = z.infer<typeof EpsilonGreedyStateSchema>;

export class AdaptiveEpsilonGreedySelector implements ParentSelector {
  readonly name = 'epsilon-greedy';
  private readonly options: Required<EpsilonGreedyOptions>;
  private current: EpsilonGreedyState;

  constructor(options: EpsilonGreedyOptions = {}) {
    this.options = {
      epsilon: options.epsilon ?? 0.15,
      minEpsilon: options.minEpsilon ?? 0.02,
      maxEpsilon: options.maxEpsilon ?? 0.5,
      decay: options.decay ?? 0.96,
      growth: options.growth ?? 1.05,
      window: options.window ?? 8,
      armDiscount: options.armDiscount ?? 0.97,
    };
    const o = this.options;
    if (!(o.minEpsilon > 0 && o.minEpsilon <= o.epsilon && o.epsilon <= o.maxEpsilon && o.maxEpsilon <= 1)) {
      throw new Error('epsilon-greedy needs 0 < minEpsilon <= epsilon <= maxEpsilon <= 1');
    }
    if (!(o.decay > 0 && o.decay <= 1) || !(o.growth >= 1)) throw new Error('epsilon-greedy needs 0 < decay <= 1 <= growth');
    if (!Number.isInteger(o.window) || o.window < 1) throw new Error('epsilon-greedy needs window to be a positive integer');
    if (!(o.armDiscount > 0 && o.armDiscount <= 1)) throw new Error('epsilon-greedy needs 0 < armDiscount <= 1');
    this.current = {
      selector: 'epsilon-greedy',
      epsilon: o.epsilon,
      sinceImprovement: 0,
      arms: { exploit: { pulls: 0, reward: 0 }, explore: { pulls: 0, reward: 0 } },
    };
  }

  /** The ε the adaptation rules maintain. */
  get epsilon(): number {
    return this.current.epsilon;
  }

  /** The probability of exploring used by the next selection: ε weighted by the arms' credit. */
  explorationProbability(): number {
    const ratio = clamp(this.meanReward(EXPLORE) / this.meanReward(EXPLOIT), CREDIT_RATIO_MIN, CREDIT_RATIO_MAX);
    return clamp(this.current.epsilon * ratio, this.options.minEpsilon, this.options.maxEpsilon);
  }

  select(archive: ArchiveView, rng: Rng, options?: SelectOptions): Selection {
    const { inspirations, island } = resolveSelectOptions(archive, options);
    const best = selectableBest(archive, island);
    const yields = options?.yields;
    const explore = rng.next() < this.explorationProbability();
    const climb = yields ? climbingParent(best, yields, island) : { parent: best, descended: false };
    let parent = climb.parent;
    let arm: string = climb.descended ? DESCEND : EXPLOIT;
    const families = explore ? undefined : yields?.families?.(island);
    if (yields && families && families.length > 1) {
      // Which family the calls go to follows what each has paid (families.ts); on the best's
      // own family the climb chooses the parent, as without families.
      const bestFamily = yields.familyOf?.(best);
      const chosen = chooseFamily(families, yields.novelty, rng, bestFamily, climb.descended ? undefined : climb.parent, yields.firstIdea);
      if (chosen && chosen.family.key !== bestFamily) {
        parent = chosen.parent;
        arm = FAMILY;
      }
    } else if (explore) {
      const others = selectableElites(archive, island).filter((program) => program.id !== best.id && !yields?.tied(program.objective as number, best.objective as number));
      const fresh = yields ? others.filter((program) => yields.novelty(program.id) >= EXHAUSTED) : others;
      if (others.length > 0) parent = rng.pick(fresh.length > 0 ? fresh : others);
      arm = EXPLORE;
    }
    return {
      parent,
      inspirations: chooseInspirations(archive, parent, inspirations, rng, island),
      arm,
      island: selectionIsland(parent, island),
    };
  }

  feedback(selection: Pick<Selection, 'arm' | 'parent' | 'island'>, outcome: SelectionOutcome): void {
    const state = this.current;
    // A descent is still exploitation (of the ranking) for the arms' credit.
    // A family away from the best's is exploration, paid for by what it finds.
    const arm = selection.arm === EXPLOIT || selection.arm === DESCEND ? EXPLOIT : selection.arm === EXPLORE || selection.arm === FAMILY ? EXPLORE : undefined;
    // A feedback for an arm this selector does not have (a selection made by another
    // selector before a switch) still tells whether the run progresses; it just credits no arm.
    if (arm !== undefined) {
      const stats = state.arms[arm];
      stats.pulls = stats.pulls * this.options.armDiscount + 1;
      stats.reward = stats.reward * this.options.armDiscount + rewardOf(outcome);
    }
    // While climbing, the top's exhaustion (not a lack of improvements) is what stalls the run:
    // only feedbacks of descents count towards more exploration.
    const counts = outcome.nearBest === undefined || selection.arm === DESCEND;
    if (!outcome.failed && outcome.improvedBest) {
      state.epsilon = Math.max(this.options.minEpsilon, state.epsilon * this.options.decay);
      state.sinceImprovement = 0;
    } else if (isImprovement(outcome)) {
      state.sinceImprovement = 0;
    } else if (counts && ++state.sinceImprovement >= this.options.window) {
      state.epsilon = Math.min(this.options.maxEpsilon, state.epsilon * this.options.growth);
      state.sinceImprovement = 0;
    }
  }

  state(): EpsilonGreedyState {
    return structuredClone(this.current);
  }

  restore(state: unknown): void {
    const parsed = parseSelectorState(this.name, EpsilonGreedyStateSchema, state);
    parsed.epsilon = clamp(parsed.epsilon, this.options.minEpsilon, this.options.maxEpsilon);
    this.current = parsed;
  }

  private meanReward(arm: Arm): number {
    const stats = this.current.arms[arm];
    return (stats.reward + PRIOR_WEIGHT * PRIOR_MEAN) / (stats.pulls + PRIOR_WEIGHT);
  }
}

/**
 * An arm's reward. When the run says whether a child is near the best, an improvement of a
 * weak parent earns nothing (it is easy, and it does not move the result): 2 for a new best,
 * 1 for an improvement that lands near the best. Otherwise the shared improvement reward.
 */
function rewardOf(outcome: SelectionOutcome): number {
  if (outcome.nearBest === undefined) return improvementReward(outcome);
  if (outcome.failed) return 0;
  return outcome.improvedBest ? 2 : outcome.improvedParent && outcome.nearBest ? 1 : 0;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
