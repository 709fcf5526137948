/**
 * The programs shown to the mutator next to the parent. About half are the top programs by
 * objective (what good looks like), the rest random elites of other niches (different ideas),
 * preferring niches not already shown. Never the parent, never a failed program, never twice.
 */
import type { Program } from '../../../shared/evolution';
import type { Rng } from '../rng';
import { nicheKey, selectableElites } from './archiveQueries';
import type { ArchiveView } from './ParentSelector';

/**
 * Up to `count` inspirations from the elites of `island` (or the whole archive): the top
 * ceil(count/2) by objective, then random elites, one per niche not yet shown first. Returns
 * fewer when the archive holds fewer other correct programs.
 */
export function chooseInspirations(
  archive: ArchiveView,
  parent: Program,
  count: number,
  rng: Rng,
  island?: number,
): Program[] {
  if (!Number.isInteger(count) || count < 0) throw new Error(`inspiration count must be a non-negative integer, got ${String(count)}`);
  // Best first, so the top half is a slice and the draw does not depend on archive order.
  const ranked = selectableElites(archive, island).filter((program) => program.id !== parent.id);
  if (ranked.length <= count) return ranked;

  const chosen = ranked.slice(0, Math.ceil(count / 2));
  const shownNiches = new Set([nicheKey(parent), ...chosen.map(nicheKey)]);
  const chosenIds = new Set(chosen.map((program) => program.id));
  const rest = ranked.filter((program) => !chosenIds.has(program.id));
  while (chosen.length < count && rest.length > 0) {
    const fresh = rest.filter((program) => !shownNiches.has(nicheKey(program)));
    const pick = rng.pick(fresh.length > 0 ? fresh : rest);
    rest.splice(rest.indexOf(pick), 1);
    chosen.push(pick);
    shownNiches.add(nicheKey(pick));
  }
  return chosen;
}
