/**
 * ParentSelector: which program the next child is bred from, and which programs inspire it.
 *
 * A selector only reads the archive and learns from feedback; it never changes the archive.
 * Its choices depend only on the archive, its own state and the run's Rng, so that resume
 * and replay reproduce them. Rules every implementation keeps (the conformance suite in
 * test/conformance/parentSelector.ts checks them):
 *  - a program that failed evaluation (objective null) is never a parent;
 *  - `feedback` for a selection changes later choices (it learns what works);
 *  - state() → restore() gives a selector that makes the same choices.
 */
import type { Program } from '../../../shared/evolution';
import type { Rng } from '../rng';

/** What a selector may read of the archive (EvoDB implements it). */
export interface ArchiveView {
  readonly direction: 'maximize' | 'minimize';
  /** The champion of every niche (correct programs only), on one island or all. */
  elites(island?: number): readonly Program[];
  /** The best correct program so far (by objective and direction). */
  best(island?: number): Program | undefined;
  get(id: string): Program | undefined;
  readonly islands: number;
}

/**
 * What the run has learned about where calls pay off, for selectors that use it (the default
 * one does; a selector may ignore it).
 */
export interface YieldView {
  /** The best correct programs of the run (not only niche elites), best first: a few dozen. */
  top(island?: number): readonly Program[];
  /** Chance that the next answer about this program is a child not proposed from it before. */
  novelty(programId: string): number;
  /** Whether two objectives are equal within the run's measurement noise. */
  tied(a: number, b: number): boolean;
  /** The run's families (families.ts) and what asking about each has given; absent when switched off. */
  families?(island?: number): readonly FamilyRecord[];
  /** The family a program belongs to. */
  familyOf?(program: Program): string;
  /** Whether the program's own edit was one no program of the run had made before it. */
  firstIdea?(programId: string): boolean;
}

/**
 * A family (families.ts): programs sharing a niche's non-objective coordinates, its correct
 * programs best first, and what asking about them has given.
 */
export interface FamilyRecord {
  key: string;
  members: readonly Program[];
  /** Answers about the family's programs (including those still in flight). */
  answers: number;
  /** Children that beat their parent of this family beyond the noise. */
  improvements: number;
  /** Correct children of its programs that made an edit the run had not seen (a first idea). */
  ideas: number;
}

export interface SelectOptions {
  inspirations?: number;
  island?: number;
  yields?: YieldView;
}

export interface Selection {
  parent: Program;
  /** Top programs plus diverse niche elites, for the prompt; never the parent itself. */
  inspirations: Program[];
  /**
   * What the selector chose between, e.g. `exploit` / `explore` or a niche key. Passed back
   * with the feedback so the selector credits the right choice.
   */
  arm: string;
  island: number;
}

export interface SelectionOutcome {
  /** The child was correct and beat its parent's objective. */
  improvedParent: boolean;
  /** The child became the best of the run. */
  improvedBest: boolean;
  /** The child failed (did not apply, crashed, or was incorrect). */
  failed: boolean;
  /** Relative gain over the parent (child/parent - 1 for maximize), 0 when failed. */
  gain: number;
  /**
   * The child is correct and tied with the best within the measurement noise, or better:
   * it matters to the run's result (an improvement of a weak program usually does not).
   */
  nearBest?: boolean;
}

export interface ParentSelector {
  readonly name: string;
  select(archive: ArchiveView, rng: Rng, options?: SelectOptions): Selection;
  feedback(selection: Pick<Selection, 'arm' | 'parent' | 'island'>, outcome: SelectionOutcome): void;
  /** JSON-serialisable state for checkpoints. */
  state(): unknown;
  restore(state: unknown): void;
}

/**
 * A selector a plugin provides (daemon/plugins), by name. A parent selector is made per run (it
 * has state), so a plugin provides a factory; the run is handed the allowed plugins' ones.
 */
export interface SelectorPlugin {
  readonly name: string;
  /** `options` is the run's selector options object; unknown fields should be ignored. */
  create(options: unknown): ParentSelector;
}
