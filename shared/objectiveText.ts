/**
 * An objective's values as people read them, in the example's own terms. A speedup (unit `x`)
 * or a time or cost (minimized) compares by factor: `2.6x the seed`. A score (maximized, any
 * other unit or none: `%`, points, OpenEvolve's `combined_score`) compares by difference:
 * `+7.2 points over the seed's 61.5%`, since "1.1x a score" says little and a score may be 0 or
 * negative. The CLI's progress and summary lines, report.md and the VS Code views all word
 * objectives with these helpers, so they say the same thing.
 */
import type { Direction } from './evaluation';

/** What an objective is called and counted in (`peagen.example.json`'s `objective`). */
export interface ObjectiveTerms {
  name: string;
  direction: Direction;
  /** `x` for a speedup, `%`, `ms`, ...; absent when the example declares none. */
  unit?: string | undefined;
}

/** Units read as part of the number (`4x`, `50%`); any other unit is a word after it (`4 ms`). */
const ATTACHED_UNITS = new Set(['x', '×', '%']);
const FACTOR_UNITS = new Set(['x', '×']);

/** `text` followed by its unit: `4x`, `50%`, `4 ms`; `text` alone without a unit. */
export function withUnit(text: string, unit: string | undefined): string {
  if (!unit) return text;
  return ATTACHED_UNITS.has(unit) ? `${text}${unit}` : `${text} ${unit}`;
}

/**
 * Whether the objective compares by factor (a speedup, a time, a cost) rather than by
 * difference (a score). An example without a unit whose objective is called `speedup` is a
 * speedup too (examples written before units were declared).
 */
export function comparesByFactor(terms: ObjectiveTerms): boolean {
  if (terms.unit !== undefined && FACTOR_UNITS.has(terms.unit)) return true;
  if (terms.unit === undefined && terms.name === 'speedup') return true;
  return terms.direction === 'minimize';
}

/**
 * One value: `68.700%`, `12.000 ms`, `0.873`. A speedup's value stays bare (`2.345`): its
 * `x` is kept for the factor over the seed that follows it, so the two do not read alike.
 */
export function objectiveValue(value: number | null | undefined, terms: Pick<ObjectiveTerms, 'unit'>, digits = 3): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return valueWithUnit(value.toFixed(digits), terms.unit);
}

/** A number already formatted (`68.7`, `—`) with the objective's unit as objectiveValue adds it. */
export function valueWithUnit(text: string, unit: string | undefined): string {
  if (text === '—' || (unit !== undefined && FACTOR_UNITS.has(unit))) return text;
  return withUnit(text, unit);
}

/** How much better `value` is than `seed` by factor (best ÷ seed; seed ÷ best when minimized), or undefined when a factor has no meaning. */
export function factorOverSeed(terms: ObjectiveTerms, seed: number | null | undefined, value: number | null | undefined): number | undefined {
  if (seed === null || seed === undefined || value === null || value === undefined || seed <= 0 || value <= 0) return undefined;
  const factor = terms.direction === 'maximize' ? value / seed : seed / value;
  return Number.isFinite(factor) ? factor : undefined;
}

/** A signed difference in the objective's unit (`+0.250`, `−3.000 ms`); a difference of percentages is in points (`+6.171 points`). */
export function difference(delta: number, terms: Pick<ObjectiveTerms, 'unit'>, digits = 3): string {
  const text = `${delta >= 0 ? '+' : '−'}${Math.abs(delta).toFixed(digits)}`;
  if (terms.unit === '%') return `${text} points`;
  return withUnit(text, terms.unit);
}

/**
 * The short comparison with the seed, for a status line: `1.7x` for a factor, `seed 61.517%`
 * for a score. Undefined when there is nothing to compare (no seed, or a factor of values ≤ 0).
 */
export function shortComparison(terms: ObjectiveTerms, seed: number | null | undefined, value: number | null | undefined, digits = 3): string | undefined {
  if (seed === null || seed === undefined || value === null || value === undefined) return undefined;
  if (comparesByFactor(terms)) {
    const factor = factorOverSeed(terms, seed, value);
    return factor === undefined ? undefined : `${factor.toFixed(1)}x`;
  }
  return `seed ${objectiveValue(seed, terms, digits)}`;
}

/**
 * The comparison with the seed in a sentence: `2.6x the seed's 1.040` for a factor, `+7.183
 * points over the seed's 61.517%` for a score (`−0.500 under` when it is worse).
 */
export function seedComparison(terms: ObjectiveTerms, seed: number | null | undefined, value: number | null | undefined, digits = 3): string | undefined {
  if (seed === null || seed === undefined || value === null || value === undefined) return undefined;
  const seedText = objectiveValue(seed, terms, digits);
  if (comparesByFactor(terms)) {
    const factor = factorOverSeed(terms, seed, value);
    return factor === undefined ? undefined : `${factor.toFixed(1)}x the seed's ${seedText}`;
  }
  const better = terms.direction === 'maximize' ? value - seed : seed - value;
  return `${difference(value - seed, terms, digits)} ${better >= 0 ? 'over' : 'under'} the seed's ${seedText}`;
}
