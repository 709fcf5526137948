/**
 * What every selector asks of the archive, with the rules the brief insists on built in:
 * a program that failed evaluation is never selectable, whatever the archive hands back.
 * Selectors go through these helpers instead of reading `elites()` / `best()` directly, so
 * an archive that leaks a failed program (objective null, or correct false) cannot make one
 * a parent or an inspiration.
 */
import type { Program } from '../../../shared/evolution';
import type { ArchiveView } from './ParentSelector';

/** Thrown by `select` when there is nothing correct to breed from. */
export class NoCorrectProgramError extends Error {
  constructor(island?: number) {
    super(
      island === undefined
        ? 'no correct program to select from: the archive holds no program that passed evaluation'
        : `no correct program to select from on island ${island}: it holds no program that passed evaluation`,
    );
    this.name = 'NoCorrectProgramError';
  }
}

/** A program may be a parent or an inspiration only when it passed evaluation with a finite score. */
export function isSelectable(program: Program | undefined): program is Program {
  return (
    program !== undefined &&
    program.correct === true &&
    typeof program.objective === 'number' &&
    Number.isFinite(program.objective)
  );
}

/** The niche a program is champion of; a program without one is its own niche. */
export function nicheKey(program: Program): string {
  return program.niche ?? program.id;
}

/**
 * Orders programs best first by objective and direction; equal objectives fall back to the
 * id so the order never depends on how the archive happened to list them.
 */
export function bestFirst(direction: ArchiveView['direction']): (a: Program, b: Program) => number {
  const sign = direction === 'maximize' ? -1 : 1;
  return (a, b) => {
    const byObjective = sign * ((a.objective as number) - (b.objective as number));
    if (byObjective !== 0) return byObjective;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

/** True when `a` ranks strictly above `b`. */
export function isBetter(direction: ArchiveView['direction'], a: Program, b: Program): boolean {
  return bestFirst(direction)(a, b) < 0;
}

/**
 * The selectable niche elites (of one island, or all), each program once, best first: rank
 * order, so choices do not depend on the order in which an archive (or a restored checkpoint)
 * happens to list its elites.
 */
export function selectableElites(archive: ArchiveView, island?: number): Program[] {
  const seen = new Set<string>();
  const result: Program[] = [];
  const consider = (program: Program | undefined): void => {
    if (!isSelectable(program) || seen.has(program.id)) return;
    seen.add(program.id);
    result.push(program);
  };
  for (const program of archive.elites(island)) consider(program);
  // The best is always a candidate, even if the archive does not list it among the elites.
  consider(archive.best(island));
  return result.sort(bestFirst(archive.direction));
}

export interface NicheChampion {
  niche: string;
  program: Program;
}

/** One selectable program per niche (its best, should the archive list several), best first. */
export function nicheChampions(archive: ArchiveView, island?: number): NicheChampion[] {
  const byNiche = new Map<string, Program>();
  for (const program of selectableElites(archive, island)) {
    const niche = nicheKey(program);
    if (!byNiche.has(niche)) byNiche.set(niche, program);
  }
  return [...byNiche].map(([niche, program]) => ({ niche, program }));
}

/** The best selectable program (of one island, or all); throws NoCorrectProgramError when there is none. */
export function selectableBest(archive: ArchiveView, island?: number): Program {
  const claimed = archive.best(island);
  if (isSelectable(claimed)) return claimed;
  const [best] = selectableElites(archive, island);
  if (best === undefined) throw new NoCorrectProgramError(island);
  return best;
}

export interface ResolvedSelectOptions {
  inspirations: number;
  /** The island to select on; undefined means the whole archive. */
  island: number | undefined;
}

export const DEFAULT_INSPIRATIONS = 4;

/** Checks `select`'s options; a bad count or island is a caller bug, reported clearly. */
export function resolveSelectOptions(
  archive: ArchiveView,
  options: { inspirations?: number; island?: number } | undefined,
): ResolvedSelectOptions {
  const inspirations = options?.inspirations ?? DEFAULT_INSPIRATIONS;
  if (!Number.isInteger(inspirations) || inspirations < 0) {
    throw new Error(`inspirations must be a non-negative integer, got ${String(inspirations)}`);
  }
  const island = options?.island;
  if (island !== undefined && (!Number.isInteger(island) || island < 0 || island >= Math.max(1, archive.islands))) {
    throw new Error(`island must be an integer in [0, ${Math.max(1, archive.islands) - 1}], got ${String(island)}`);
  }
  return { inspirations, island };
}

/** The island a selection reports: the one asked for, else the parent's own. */
export function selectionIsland(parent: Program, island: number | undefined): number {
  return island ?? parent.lineage.island ?? 0;
}
