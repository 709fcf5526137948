/**
 * The choices made before an Evolve Selection run starts: when it stops, and whether its
 * worst-case spend needs a confirmation. vscode-free.
 */
import type { EstimateRun } from '../../shared/protocol';
import type { StopConditions } from '../../shared/runManifest';

/** (Re-exported for the Evolve Selection command, which imports it from here.) */
export type { StopConditions };

/** A stop condition the user picks; `ask` names the number still to be typed. */
export interface StopOption {
  label: string;
  detail: string;
  stop?: StopConditions;
  ask?: 'generations' | 'minutes' | 'target';
}

export function stopOptions(defaultEvaluations: number): StopOption[] {
  return [
    { label: `${defaultEvaluations} evaluations`, detail: 'peagen.evolve.defaultEvaluations', stop: { evaluations: defaultEvaluations } },
    { label: 'N generations…', detail: 'stop after this many generations', ask: 'generations' },
    { label: 'M minutes…', detail: 'stop after this much wall time', ask: 'minutes' },
    { label: 'A target…', detail: 'stop when the best objective reaches this value', ask: 'target' },
  ];
}

/** The stop condition for a typed number, or the reason it is not one. */
export function parseStopInput(ask: NonNullable<StopOption['ask']>, input: string): StopConditions | string {
  const value = Number(input.trim());
  if (input.trim() === '' || !Number.isFinite(value)) return 'type a number';
  if (ask === 'target') return { target: value };
  if (value <= 0) return 'type a number above 0';
  if (ask === 'generations') return Number.isInteger(value) ? { generations: value } : 'type a whole number of generations';
  return { wallMs: Math.round(value * 60_000) };
}

export interface ConfirmLimits {
  usd: number;
  tokens: number;
}

/** Whether the worst case is above either limit (a run with no LLM, or unbounded, is never "above"). */
export function needsConfirmation(worstCase: EstimateRun.Response['worstCase'], limits: ConfirmLimits): boolean {
  return worstCase !== null && (worstCase.usd > limits.usd || worstCase.tokens > limits.tokens);
}

/** One line for the user: what the run may spend at most. */
export function describeWorstCase(estimate: Pick<EstimateRun.Response, 'mutator' | 'worstCase'>): string {
  if (estimate.mutator !== 'llm-patch') return 'offline mutator: no LLM calls, nothing spent';
  const worst = estimate.worstCase;
  if (!worst) return 'worst case: unbounded (no evaluation, generation or call limit)';
  return `worst case: ${worst.calls} LLM calls, ${worst.tokens.toLocaleString('en-US')} tokens, $${worst.usd.toFixed(2)}`;
}
