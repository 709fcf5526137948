/**
 * Tournament selection whose pressure follows the run: k distinct niche elites are drawn at
 * random and the best of them is the parent. k starts at 3 and stays within [2, 8]; each
 * child that improves its parent or the best raises k by one (breed from stronger programs
 * while that pays), and every `window` (8) consecutive feedbacks without an improvement lower
 * it by one (weaker programs get their turn while the strong ones stall). The arm reported is
 * the winner's niche key.
 */
import * as z from 'zod';
import type { Rng } from '../rng';
import { nicheKey, NoCorrectProgramError, resolveSelectOptions, selectableElites, selectionIsland } from './archiveQueries';
import { chooseInspirations } from './inspirations';
import type { ArchiveView, ParentSelector, SelectOptions, Selection, SelectionOutcome } from './ParentSelector';
import { isImprovement } from './reward';
import { parseSelectorState } from './selectorState';

export interface TournamentOptions {
  /** Starting tournament size (3). */
  size?: number;
  /** Smallest size stagnation can shrink it to (2). */
  minSize?: number;
  /** Largest size improvements can grow it to (8). */
  maxSize?: number;
  /** Consecutive feedbacks without improvement that shrink it by one (8). */
  window?: number;
}

const TournamentStateSchema = z.object({
  selector: z.literal('tournament'),
  size: z.number().int().positive(),
  sinceImprovement: z.number().int().nonnegative(),
});
export type TournamentState = z.infer<typeof TournamentStateSchema>;

export class TournamentSelector implements ParentSelector {
  readonly name = 'tournament';
  private readonly options: Required<TournamentOptions>;
  private current: TournamentState;

  constructor(options: TournamentOptions = {}) {
    this.options = {
      size: options.size ?? 3,
      minSize: options.minSize ?? 2,
      maxSize: options.maxSize ?? 8,
      window: options.window ?? 8,
    };
    const { size, minSize, maxSize, window } = this.options;
    if (![size, minSize, maxSize, window].every((value) => Number.isInteger(value) && value >= 1)) {
      throw new Error('tournament sizes and window must be positive integers');
    }
    if (!(minSize <= size && size <= maxSize)) throw new Error('tournament needs minSize <= size <= maxSize');
    this.current = { selector: 'tournament', size, sinceImprovement: 0 };
  }

  /** The tournament size the next selection uses (before capping at the number of elites). */
  get size(): number {
    return this.current.size;
  }

  select(archive: ArchiveView, rng: Rng, options?: SelectOptions): Selection {
    const { inspirations, island } = resolveSelectOptions(archive, options);
    const ranked = selectableElites(archive, island); // best first
    if (ranked.length === 0) throw new NoCorrectProgramError(island);
    // Partial Fisher-Yates over rank positions: the lowest position drawn is the winner.
    const positions = ranked.map((_, index) => index);
    const entrants = Math.min(this.current.size, ranked.length);
    let winner = ranked.length;
    for (let i = 0; i < entrants; i++) {
      const j = i + rng.int(positions.length - i);
      [positions[i], positions[j]] = [positions[j]!, positions[i]!];
      winner = Math.min(winner, positions[i]!);
    }
    const parent = ranked[winner]!;
    return {
      parent,
      inspirations: chooseInspirations(archive, parent, inspirations, rng, island),
      arm: nicheKey(parent),
      island: selectionIsland(parent, island),
    };
  }

  feedback(_selection: Pick<Selection, 'arm' | 'parent' | 'island'>, outcome: SelectionOutcome): void {
    const state = this.current;
    if (isImprovement(outcome)) {
      state.size = Math.min(this.options.maxSize, state.size + 1);
      state.sinceImprovement = 0;
    } else if (++state.sinceImprovement >= this.options.window) {
      state.size = Math.max(this.options.minSize, state.size - 1);
      state.sinceImprovement = 0;
    }
  }

  state(): TournamentState {
    return { ...this.current };
  }

  restore(state: unknown): void {
    const parsed = parseSelectorState(this.name, TournamentStateSchema, state);
    parsed.size = Math.min(this.options.maxSize, Math.max(this.options.minSize, parsed.size));
    this.current = parsed;
  }
}
