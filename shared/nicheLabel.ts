/**
 * A niche as people read it. EvoDB names a niche by its bin on each axis
 * (`objective=3|codeLength=7`, see daemon/evolution/evodb/features.ts); this turns each bin back
 * into the range of values it holds, in the user's units: `speedup 4–8x · 3000–3500 characters`,
 * or for the structural axes `speedup 4–8x · loops 2 · 1–2 built-ins · recursive`.
 * The Evolution view and the run's report (`peagen evolve show`) both label niches with it, so
 * they say the same thing.
 */
import type { FeatureDescriptor } from './evaluation';
import { withUnit } from './objectiveText';

/** What a label needs to know about a run's grid. */
export interface NicheAxes {
  /** The name the example gives its objective (`speedup`): what an objective axis is called. */
  objectiveName: string;
  /** The objective's unit (`x`, `ms`), when the example declares one. */
  objectiveUnit?: string | undefined;
  /**
   * The axes the archive bins by, with their edges (defaults included). Without them (an older
   * daemon), or for an axis not among them, a label names the bin rather than its range.
   */
  features?: readonly Pick<FeatureDescriptor, 'name' | 'from' | 'bins'>[] | undefined;
}

/** `codeLength` → `code length`: an axis's name as words. */
export function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
}

/**
 * An edge as written: integers exactly (the default edges are powers of two and multiples of
 * 500, and `1048576` says more than a rounded one), others to 4 significant digits.
 */
function edge(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
}

/**
 * The values a bin holds, as text. A value's bin is the number of edges at or below it, so bin
 * 0 is everything under the first edge, bin b lies from edge b-1 up to (not including) edge b,
 * and the last bin is open above. Undefined for a bin the edges cannot hold.
 */
export function binRange(edges: readonly number[], bin: number, unit?: string): string | undefined {
  if (!Number.isInteger(bin) || bin < 0 || bin > edges.length || edges.length === 0) return undefined;
  if (bin === 0) return withUnit(`< ${edge(edges[0]!)}`, unit);
  if (bin === edges.length) return withUnit(`≥ ${edge(edges[bin - 1]!)}`, unit);
  const low = edges[bin - 1]!;
  const high = edges[bin]!;
  // `-4–-2` reads as a typo; with a negative edge the range is spelt out.
  const range = low < 0 || high < 0 ? `${edge(low)} to ${edge(high)}` : `${edge(low)}–${edge(high)}`;
  return withUnit(range, unit);
}

/**
 * The integers a bin of a count holds, as `{ low, high }` (high undefined: open above), or
 * undefined when the edges are not whole numbers. A count of 2 lies in the bin from edge 2 to
 * edge 3, so that bin holds exactly 2.
 */
function countRange(edges: readonly number[], bin: number): { low: number; high: number | undefined } | undefined {
  if (!edges.every(Number.isInteger) || !Number.isInteger(bin) || bin < 0 || bin > edges.length) return undefined;
  // Counts start at 0, whatever the first edge.
  const low = bin === 0 ? 0 : Math.max(0, edges[bin - 1]!);
  const high = bin === edges.length ? undefined : edges[bin]! - 1;
  return high !== undefined && high < low ? undefined : { low, high };
}

/** The hashed containers a program builds (structure.ts: 1 a map, 2 a set, 3 both), by name. */
const CONTAINERS = ['no maps or sets', 'maps', 'sets', 'maps and sets'];

/** A containers bin (its count range) in words when it holds one value (the default edges 1, 2, 3); else undefined. */
function containersLabel({ low, high }: { low: number; high: number | undefined }): string | undefined {
  if (high === undefined) return low === 3 ? CONTAINERS[3] : undefined;
  return low === high ? CONTAINERS[low] : undefined;
}

/**
 * A structure axis's bin in words: `no loops`, `loops 2`, `loops 3+`; `no built-ins`,
 * `1 built-in`, `1–2 built-ins`, `3+ built-ins`; `not recursive`, `recursive`; `no maps or sets`,
 * `maps`, `sets`, `maps and sets`.
 */
function structureLabel(from: string, edges: readonly number[], bin: number): string | undefined {
  const range = countRange(edges, bin);
  if (!range) return undefined;
  const { low, high } = range;
  if (from === 'structure:recursion') return low >= 1 ? 'recursive' : 'not recursive';
  if (from === 'structure:containers') return containersLabel(range);
  const count = high === undefined ? `${low}+` : low === high ? `${low}` : `${low}–${high}`;
  if (from === 'structure:loops') return high === 0 ? 'no loops' : `loops ${count}`;
  if (from === 'structure:builtins') return high === 0 ? 'no built-ins' : `${count} built-in${high === 1 ? '' : 's'}`;
  return undefined;
}

/**
 * One axis's bin: `speedup 4–8x`, `3000–3500 characters`, `40–80 lines`, `peak mb ≥ 100`,
 * `loops 2`, `1–2 built-ins`, `recursive`.
 */
function axisLabel(name: string, bin: number, axes: NicheAxes): string {
  const descriptor = axes.features?.find((feature) => feature.name === name);
  const structure = descriptor?.from.startsWith('structure:') ? structureLabel(descriptor.from, descriptor.bins, bin) : undefined;
  if (structure !== undefined) return structure;
  const range = descriptor && binRange(descriptor.bins, bin, unitOf(descriptor, axes));
  if (!descriptor || range === undefined) return `${words(name)} bin ${bin}`;
  // The unit of a length says what is measured; any other axis needs its name.
  if (descriptor.from === 'codeLength' || descriptor.from === 'lines') return range;
  const title = descriptor.from === 'objective' ? axes.objectiveName : words(descriptor.name);
  return `${title} ${range}`;
}

function unitOf(descriptor: Pick<FeatureDescriptor, 'from'>, axes: NicheAxes): string | undefined {
  if (descriptor.from === 'objective') return axes.objectiveUnit;
  if (descriptor.from === 'codeLength') return 'characters';
  if (descriptor.from === 'lines') return 'lines';
  // A metric's unit is the evaluator's business; nothing declares it.
  return undefined;
}

/**
 * A niche key as a label: each axis's bin as its range, joined by ` · `. A bin whose range is
 * unknown is named by its axis and number (`latency bin 2`); a key with no axes (a grid of
 * none) is `the only niche`; a string that is no niche key is shown as it is.
 */
export function nicheLabel(key: string, axes: NicheAxes): string {
  if (key === '') return 'the only niche';
  const parts = key.split('|').map((part) => /^([^=]+)=(\d+)$/.exec(part));
  if (parts.some((match) => match === null)) return key;
  return parts.map((match) => axisLabel(match![1]!, Number(match![2]), axes)).join(' · ');
}
