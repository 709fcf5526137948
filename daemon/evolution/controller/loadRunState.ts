/**
 * A run's state as its files hold it: the checkpoint, then the journal events after it.
 * Resume continues from here; the daemon answers elites and programs of finished runs from it.
 */
import { CheckpointError, readCheckpoint } from '../evodb/checkpoint';
import * as z from 'zod';
import { applyEvent } from './applyEvent';
import type { SelectorPlugin } from '../selection/ParentSelector';
import type { RunManifest } from '../../../shared/runManifest';
import { DamagedRunError, type RunDir } from './runDir';
import { RunState, type RunStateSnapshot } from './RunState';

export interface TimelinePoint {
  elapsedMs: number;
  evaluations: number;
  llmCalls: number;
  objective: number;
}

export interface Checkpoint {
  journalSeq: number;
  elapsedMs: number;
  timeline: TimelinePoint[];
  state: RunStateSnapshot;
}

export interface LoadedRunState {
  state: RunState;
  /** The last journal sequence number applied. */
  seq: number;
  elapsedMs: number;
  timeline: TimelinePoint[];
}

/**
 * The checkpoint's outline, checked when it is read back; its state snapshot is checked by
 * RunState (and EvoDB) as it is rebuilt. A checkpoint only saves time, so the way out of a
 * damaged one is to delete it: the journal alone rebuilds the state.
 */
const CheckpointSchema = z.object({
  journalSeq: z.number().int().nonnegative(),
  elapsedMs: z.number().nonnegative(),
  timeline: z.array(z.object({ elapsedMs: z.number(), evaluations: z.number(), llmCalls: z.number(), objective: z.number() })),
  state: z.looseObject({}),
});
const CHECKPOINT_ADVICE = 'the checkpoint only saves time: delete it and the run is rebuilt from its journal';

/** `selectors`: the allowed plugins' selectors (for a run whose selector a plugin provides). @throws DamagedRunError */
export function loadRunState(runDir: RunDir, manifest: RunManifest, onEvent?: (state: RunState) => void, selectors: readonly SelectorPlugin[] = []): LoadedRunState {
  let checkpoint: Checkpoint | undefined;
  try {
    const parsed = CheckpointSchema.safeParse(readCheckpoint(runDir.checkpointFile));
    if (!parsed.success) throw new DamagedRunError(runDir.checkpointFile, 'is not a run checkpoint this Peagen can read', CHECKPOINT_ADVICE);
    checkpoint = parsed.data as unknown as Checkpoint;
  } catch (error) {
    // No checkpoint yet (killed before the first): the journal alone rebuilds the state.
    if (error instanceof CheckpointError && (error.problem === 'corrupt' || error.problem === 'invalid')) throw new DamagedRunError(runDir.checkpointFile, error.message, CHECKPOINT_ADVICE);
    if (!(error instanceof CheckpointError && error.problem === 'missing')) throw error;
  }
  let state: RunState;
  try {
    state = new RunState(manifest.settings, checkpoint?.state, (id) => runDir.getProgram(id), selectors);
  } catch (error) {
    if (error instanceof DamagedRunError || !checkpoint) throw error;
    throw new DamagedRunError(runDir.checkpointFile, `holds a state this Peagen cannot rebuild (${(error as Error).message})`, CHECKPOINT_ADVICE);
  }
  const after = checkpoint?.journalSeq ?? 0;
  let seq = after;
  for (const entry of runDir.readEvents()) {
    seq = Math.max(seq, entry.seq);
    if (entry.seq <= after) continue;
    try {
      applyEvent(state, entry.event, entry.at);
    } catch (error) {
      if (error instanceof DamagedRunError) throw error;
      throw new DamagedRunError(runDir.journalFile, `line ${entry.line} (a ${entry.event.type} event) does not follow from the events before it: ${(error as Error).message}`);
    }
    onEvent?.(state);
  }
  return { state, seq, elapsedMs: checkpoint?.elapsedMs ?? 0, timeline: checkpoint?.timeline ?? [] };
}
