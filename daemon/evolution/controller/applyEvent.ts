import type { RunEvent } from '../runEvents';
import type { RunState } from './RunState';

/** Feeds one journal event to the state, as resume and replay do. */
export function applyEvent(state: RunState, event: RunEvent, at: string): void {
  switch (event.type) {
    case 'seed':
      state.applySeed(event.program);
      return;
    case 'plan':
      state.replayPlan(event);
      return;
    case 'proposal':
      state.applyProposal(event);
      return;
    case 'evaluation':
      state.applyEvaluation(event, at);
      return;
    case 'abandon':
      state.applyAbandon(event.job);
      return;
    case 'merge':
      state.applyMerge(event, at);
      return;
    case 'reduce':
      state.applyReduce(event);
      return;
    case 'confirm':
      state.applyConfirm(event);
      return;
    case 'stop':
    case 'resume':
      return;
  }
}
