/**
 * A run's state as its files hold it: the checkpoint, then the journal events after it.
 * Resume continues from here; the daemon answers elites and programs of finished runs from it.
 */
import { CheckpointError, readCheckpoint } from '../evodb/checkpoint';
import { readJournal } from '../evodb/journal';
import { applyEvent } from './applyEvent';
import { RunEventSchema } from '../runEvents';
import type { SelectorPlugin } from '../selection/ParentSelector';
import type { RunManifest } from '../../../shared/runManifest';
import type { RunDir } from './runDir';
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

/** `selectors`: the allowed plugins' selectors (for a run whose selector a plugin provides). */
export function loadRunState(runDir: RunDir, manifest: RunManifest, onEvent?: (state: RunState) => void, selectors: readonly SelectorPlugin[] = []): LoadedRunState {
  let checkpoint: Checkpoint | undefined;
  try {
    checkpoint = readCheckpoint(runDir.checkpointFile) as Checkpoint;
  } catch (error) {
    // No checkpoint yet (killed before the first): the journal alone rebuilds the state.
    if (!(error instanceof CheckpointError && error.problem === 'missing')) throw error;
  }
  const state = new RunState(manifest.settings, checkpoint?.state, (id) => runDir.getProgram(id), selectors);
  const after = checkpoint?.journalSeq ?? 0;
  let seq = after;
  const { events } = readJournal(runDir.journalFile);
  for (const raw of events as ({ seq: number; at: string } & Record<string, unknown>)[]) {
    seq = Math.max(seq, raw.seq);
    if (raw.seq <= after) continue;
    applyEvent(state, RunEventSchema.parse(raw), raw.at);
    onEvent?.(state);
  }
  return { state, seq, elapsedMs: checkpoint?.elapsedMs ?? 0, timeline: checkpoint?.timeline ?? [] };
}
