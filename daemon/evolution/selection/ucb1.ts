/**
 * UCB1 over niches: each niche is an arm, its elite is the parent when the arm is pulled.
 * Niches never tried come first (a random one of them); then the niche with the highest
 *   mean reward + c · sqrt(2 ln N / n)
 * wins (N: all pulls, n: this niche's pulls, ties drawn at random). Rewards come from
 * reward.ts: 1 when the child improved its parent, 1 + bestBonus when it improved the best,
 * 0 otherwise.
 *
 * Pulls are counted when a niche is selected, rewards when the feedback arrives: a selection
 * still in flight counts as reward 0, so concurrent selections spread over niches instead of
 * all piling onto the same argmax. c defaults to 0.5, not the textbook √2: improvements are
 * rare (rewards average well under 0.2), and with √2 the bonus term would swamp them and make
 * UCB1 almost a round robin over niches. Statistics are per niche key, shared by all islands.
 *
 * Credit goes to the niche, not to the program: it pays where niches differ in promise. When
 * the next improvement is mostly a child of the best wherever it sits, the best moves between
 * niches and the credit lags behind it (test/unit/selectionSimulation.test.ts measures this);
 * epsilon-greedy, the default, bets on the best directly.
 */
import * as z from 'zod';
import type { Rng } from '../rng';
import { nicheChampions, NoCorrectProgramError, resolveSelectOptions, selectionIsland } from './archiveQueries';
import { chooseInspirations } from './inspirations';
import type { ArchiveView, ParentSelector, SelectOptions, Selection, SelectionOutcome } from './ParentSelector';
import { DEFAULT_BEST_BONUS, improvementReward } from './reward';
import { parseSelectorState } from './selectorState';

export interface Ucb1Options {
  /** Weight c of the exploration term (0.5). */
  exploration?: number;
  /** Extra reward when the child improved the best (1). */
  bestBonus?: number;
}

const NicheStatsSchema = z.object({
  pulls: z.number().int().nonnegative(),
  feedbacks: z.number().int().nonnegative(),
  reward: z.number().nonnegative(),
});
type NicheStats = z.infer<typeof NicheStatsSchema>;
const Ucb1StateSchema = z.object({
  selector: z.literal('ucb1'),
  /** [niche key, statistics] pairs: an array, so keys that look like integers keep their order. */
  niches: z.array(z.tuple([z.string(), NicheStatsSchema])),
});
export type Ucb1State = z.infer<typeof Ucb1StateSchema>;

/** Scores within this distance of the top are ties (floating-point noise is not a preference). */
const TIE = 1e-12;

export class Ucb1Selector implements ParentSelector {
  readonly name = 'ucb1';
  private readonly exploration: number;
  private readonly bestBonus: number;
  private niches = new Map<string, NicheStats>();

  constructor(options: Ucb1Options = {}) {
    this.exploration = options.exploration ?? 0.5;
    this.bestBonus = options.bestBonus ?? DEFAULT_BEST_BONUS;
    if (!(this.exploration >= 0) || !Number.isFinite(this.exploration)) throw new Error('ucb1 needs a finite exploration >= 0');
    if (!(this.bestBonus >= 0) || !Number.isFinite(this.bestBonus)) throw new Error('ucb1 needs a finite bestBonus >= 0');
  }

  select(archive: ArchiveView, rng: Rng, options?: SelectOptions): Selection {
    const { inspirations, island } = resolveSelectOptions(archive, options);
    const champions = nicheChampions(archive, island);
    if (champions.length === 0) throw new NoCorrectProgramError(island);

    const untried = champions.filter(({ niche }) => (this.niches.get(niche)?.pulls ?? 0) === 0);
    let chosen;
    if (untried.length > 0) {
      chosen = rng.pick(untried);
    } else {
      const totalPulls = champions.reduce((sum, { niche }) => sum + this.stats(niche).pulls, 0);
      const scored = champions.map((champion) => ({ champion, score: this.score(champion.niche, totalPulls) }));
      const top = Math.max(...scored.map(({ score }) => score));
      chosen = rng.pick(scored.filter(({ score }) => score >= top - TIE)).champion;
    }
    this.stats(chosen.niche).pulls += 1;
    const parent = chosen.program;
    return {
      parent,
      inspirations: chooseInspirations(archive, parent, inspirations, rng, island),
      arm: chosen.niche,
      island: selectionIsland(parent, island),
    };
  }

  feedback(selection: Pick<Selection, 'arm' | 'parent' | 'island'>, outcome: SelectionOutcome): void {
    const stats = this.stats(selection.arm);
    stats.feedbacks += 1;
    // A feedback for a selection this selector did not make (e.g. before a selector switch) is a pull too.
    stats.pulls = Math.max(stats.pulls, stats.feedbacks);
    stats.reward += improvementReward(outcome, this.bestBonus);
  }

  /** Mean reward and pulls of a niche, for reports and tests. */
  nicheStats(niche: string): Readonly<NicheStats> | undefined {
    return this.niches.get(niche);
  }

  state(): Ucb1State {
    return { selector: 'ucb1', niches: [...this.niches].map(([niche, stats]) => [niche, { ...stats }]) };
  }

  restore(state: unknown): void {
    const parsed = parseSelectorState(this.name, Ucb1StateSchema, state);
    this.niches = new Map(parsed.niches.map(([niche, stats]) => [niche, { ...stats }]));
  }

  private stats(niche: string): NicheStats {
    let stats = this.niches.get(niche);
    if (stats === undefined) {
      stats = { pulls: 0, feedbacks: 0, reward: 0 };
      this.niches.set(niche, stats);
    }
    return stats;
  }

  private score(niche: string, totalPulls: number): number {
    const { pulls, reward } = this.stats(niche);
    return reward / pulls + this.exploration * Math.sqrt((2 * Math.log(totalPulls)) / pulls);
  }
}
