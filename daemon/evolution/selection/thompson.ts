/**
 * Thompson sampling over niches: each niche's chance of yielding an improvement is
 * Beta(successes + 1, failures + 1); every selection draws one sample per niche (rng.beta)
 * and breeds from the elite of the niche with the highest draw. A child that improved its
 * parent is one success, one that improved the best counts 1 + bestBonus successes (the best
 * is what the run is for); a failed child or one no better than its parent is one failure.
 * Statistics are per niche key, shared by all islands; niches never tried draw from Beta(1, 1).
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

export interface ThompsonOptions {
  /** Extra successes credited when the child improved the best (1). */
  bestBonus?: number;
}

const NicheBeliefSchema = z.object({ successes: z.number().nonnegative(), failures: z.number().nonnegative() });
type NicheBelief = z.infer<typeof NicheBeliefSchema>;
const ThompsonStateSchema = z.object({
  selector: z.literal('thompson'),
  /** [niche key, belief] pairs: an array, so keys that look like integers keep their order. */
  niches: z.array(z.tuple([z.string(), NicheBeliefSchema])),
});
export type ThompsonState = z.infer<typeof ThompsonStateSchema>;

export class ThompsonSelector implements ParentSelector {
  readonly name = 'thompson';
  private readonly bestBonus: number;
  private niches = new Map<string, NicheBelief>();

  constructor(options: ThompsonOptions = {}) {
    this.bestBonus = options.bestBonus ?? DEFAULT_BEST_BONUS;
    if (!(this.bestBonus >= 0) || !Number.isFinite(this.bestBonus)) throw new Error('thompson needs a finite bestBonus >= 0');
  }

  select(archive: ArchiveView, rng: Rng, options?: SelectOptions): Selection {
    const { inspirations, island } = resolveSelectOptions(archive, options);
    const champions = nicheChampions(archive, island);
    if (champions.length === 0) throw new NoCorrectProgramError(island);

    let chosen = champions[0]!;
    let topDraw = -1;
    for (const champion of champions) {
      const belief = this.niches.get(champion.niche) ?? { successes: 0, failures: 0 };
      const draw = rng.beta(belief.successes + 1, belief.failures + 1);
      if (draw > topDraw) {
        topDraw = draw;
        chosen = champion;
      }
    }
    const parent = chosen.program;
    return {
      parent,
      inspirations: chooseInspirations(archive, parent, inspirations, rng, island),
      arm: chosen.niche,
      island: selectionIsland(parent, island),
    };
  }

  feedback(selection: Pick<Selection, 'arm' | 'parent' | 'island'>, outcome: SelectionOutcome): void {
    const belief = this.niches.get(selection.arm) ?? { successes: 0, failures: 0 };
    const reward = improvementReward(outcome, this.bestBonus);
    if (reward > 0) belief.successes += reward;
    else belief.failures += 1;
    this.niches.set(selection.arm, belief);
  }

  /** A niche's belief, for reports and tests. */
  nicheBelief(niche: string): Readonly<NicheBelief> | undefined {
    return this.niches.get(niche);
  }

  state(): ThompsonState {
    return { selector: 'thompson', niches: [...this.niches].map(([niche, belief]) => [niche, { ...belief }]) };
  }

  restore(state: unknown): void {
    const parsed = parseSelectorState(this.name, ThompsonStateSchema, state);
    this.niches = new Map(parsed.niches.map(([niche, belief]) => [niche, { ...belief }]));
  }
}
