/**
 * The run life cycle both clients share: a prepared run (prepareRun) becomes an EvolutionRun
 * on some task fabric with the same slots and guards whether `peagen evolve run` runs it in
 * its own process or the daemon runs it for the editor or the CLI (RunManager). What each
 * shows while it runs and when it ends stays with it.
 */
import type { RunManifest } from '../../shared/runManifest';
import { EvolutionRun, type EvolutionRunOptions } from '../evolution/controller/EvolutionRun';
import type { PreparedRun } from '../evolution/controller/prepareRun';

/** Mutate tasks in flight: an LLM call is slow, so at least two, and one per evaluation slot. */
export function mutateSlotsOf(manifest: RunManifest, workers: number): number {
  return manifest.settings.usesLlm ? Math.max(2, workers) : 1;
}

export type RunHooks = Pick<EvolutionRunOptions, 'client' | 'log' | 'onProgress' | 'onEvent' | 'signal' | 'extraGenerations'>;

export function evolutionRunOf(prepared: PreparedRun, workers: number, hooks: RunHooks): EvolutionRun {
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
