/**
 * The run life cycle both clients share: a prepared run (prepareRun) becomes an EvolutionRun
 * on some task fabric with the same slots and guards whether `peagen evolve run` runs it in
 * its own process or the daemon runs it for the editor or the CLI (RunManager). What each
 * shows while it runs and when it ends stays with it.
 */
import type { RunManifest } from '../../shared/runManifest';
import { EvolutionRun, type EvolutionRunOptions } from '../evolution/controller/EvolutionRun';
import type { PreparedRun } from '../evolution/controller/prepareRun';

/**
 * The brief's soft limit of simultaneous workers per workspace: a run keeps at most this many
 * evaluations in flight (StartRun's schema refuses more; the CLI caps --workers and says so).
 */
export const MAX_WORKERS_PER_WORKSPACE = 256;

/** The evaluation slots a run asking for `asked` gets, and why it gets fewer. */
export function workersWithinLimit(asked: number): { workers: number; note?: string } {
  if (asked <= MAX_WORKERS_PER_WORKSPACE) return { workers: asked };
  return {
    workers: MAX_WORKERS_PER_WORKSPACE,
    note: `--workers ${asked} is above the soft limit of ${MAX_WORKERS_PER_WORKSPACE} workers per workspace: this run keeps at most ${MAX_WORKERS_PER_WORKSPACE} evaluations in flight (run another workspace's search for more)`,
  };
}

/** Mutate tasks in flight: an LLM call is slow, so at least two, and one per evaluation slot. */
export function mutateSlotsOf(manifest: RunManifest, workers: number): number {
  return manifest.settings.usesLlm ? Math.max(2, workers) : 1;
}

export type RunHooks = Pick<EvolutionRunOptions, 'client' | 'log' | 'onProgress' | 'onEvent' | 'signal' | 'extraGenerations'>;

export function evolutionRunOf(prepared: PreparedRun, asked: number, hooks: RunHooks): EvolutionRun {
  const workers = Math.min(asked, MAX_WORKERS_PER_WORKSPACE);
  return new EvolutionRun({
    runDir: prepared.runDir,
    manifest: prepared.manifest,
    example: prepared.example,
    evalSlots: workers,
    mutateSlots: mutateSlotsOf(prepared.manifest, workers),
    perCallSpend: prepared.perCallSpend,
    selectors: prepared.selectors,
    ...hooks,
  });
}
