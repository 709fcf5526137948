/**
 * Builds a ParentSelector by name, as `peagen.json` or the CLI names it. The options are one
 * flat object (what a config file holds); each selector reads the fields it knows and the
 * rest are ignored, so switching selectors does not require editing the options.
 */
import * as z from 'zod';
import { AdaptiveEpsilonGreedySelector } from './adaptiveEpsilonGreedy';
import type { ParentSelector, SelectorPlugin } from './ParentSelector';
import { ThompsonSelector } from './thompson';
import { TournamentSelector } from './tournament';
import { Ucb1Selector } from './ucb1';

export const SELECTOR_NAMES = ['epsilon-greedy', 'ucb1', 'thompson', 'tournament'] as const;
export type SelectorName = (typeof SELECTOR_NAMES)[number];
export const DEFAULT_SELECTOR: SelectorName = 'epsilon-greedy';

const positive = z.number().positive().finite();
const count = z.number().int().positive();

/** Every selector's tunables; each is optional and defaults as its module documents. */
export const SelectorOptionsSchema = z
  .object({
    // epsilon-greedy
    epsilon: positive.max(1),
    minEpsilon: positive.max(1),
    maxEpsilon: positive.max(1),
    decay: positive.max(1),
    growth: z.number().min(1).finite(),
    armDiscount: positive.max(1),
    // epsilon-greedy and tournament: feedbacks without improvement before adapting
    window: count,
    // ucb1
    exploration: z.number().nonnegative().finite(),
    // ucb1 and thompson
    bestBonus: z.number().nonnegative().finite(),
    // tournament
    size: count,
    minSize: count,
    maxSize: count,
  })
  .partial()
  .strict();
export type SelectorOptions = z.infer<typeof SelectorOptionsSchema>;

export function isSelectorName(name: string): name is SelectorName {
  return (SELECTOR_NAMES as readonly string[]).includes(name);
}

/**
 * A fresh selector, built in or one of `plugins` (the allowed plugins' selectors); an unknown
 * name or a bad option is an Error that says what is allowed.
 */
export function createSelector(name: string, options: unknown = {}, plugins: readonly SelectorPlugin[] = []): ParentSelector {
  if (!isSelectorName(name)) {
    const plugin = plugins.find((candidate) => candidate.name === name);
    if (plugin) return plugin.create(options ?? {});
    throw new Error(`unknown parent selector "${name}": use one of ${[...SELECTOR_NAMES, ...plugins.map((candidate) => candidate.name)].join(', ')}`);
  }
  const parsed = SelectorOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(options)'}: ${issue.message}`).join('; ');
    throw new Error(`bad options for parent selector "${name}": ${issues}`);
  }
  const o = parsed.data;
  switch (name) {
    case 'epsilon-greedy':
      return new AdaptiveEpsilonGreedySelector(
        defined({
          epsilon: o.epsilon,
          minEpsilon: o.minEpsilon,
          maxEpsilon: o.maxEpsilon,
          decay: o.decay,
          growth: o.growth,
          window: o.window,
          armDiscount: o.armDiscount,
        }),
      );
    case 'ucb1':
      return new Ucb1Selector(defined({ exploration: o.exploration, bestBonus: o.bestBonus }));
    case 'thompson':
      return new ThompsonSelector(defined({ bestBonus: o.bestBonus }));
    case 'tournament':
      return new TournamentSelector(defined({ size: o.size, minSize: o.minSize, maxSize: o.maxSize, window: o.window }));
  }
}

/** Drops undefined fields (exactOptionalPropertyTypes: absent is not the same as undefined). */
function defined<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
