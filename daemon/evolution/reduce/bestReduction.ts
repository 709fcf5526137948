/** The journaled reduction of a best as the clients and the report show it (shared BestReduction). */
import type { BestReduction, Program } from '../../../shared/evolution';
import type { ReduceEvent } from '../runEvents';

/**
 * Metrics whose names say they count what the evaluator checked (inputs compared with the
 * reference, test cases passed; not timing sizes such as `timing_inputs_per_repeat`): what a
 * reviewer wants to know a proposal went through.
 */
const CHECK_METRIC = /checked|passed|correctness|equivalen|cases|^tests?(_|$)/i;

export function checksOf(metrics: Record<string, number> | undefined): Record<string, number> {
  const checks: Record<string, number> = {};
  for (const [name, value] of Object.entries(metrics ?? {})) if (CHECK_METRIC.test(name) && Number.isInteger(value) && value >= 0) checks[name] = value;
  return checks;
}

export function bestReductionOf(event: ReduceEvent, best: Program): BestReduction | undefined {
  if (best.objective === null || event.best !== best.id) return undefined;
  const program = event.program;
  return {
    bestId: best.id,
    bestObjective: best.objective,
    bestChangedLines: event.changedLines.best,
    changes: event.changes,
    evaluations: event.evaluations,
    ...(program &&
      program.objective !== null && {
        reduced: { id: program.id, objective: program.objective, changedLines: event.changedLines.reduced, measured: program.measurements.map((m) => m.objective).filter((value): value is number => value !== null), checks: checksOf(program.evaluation?.metrics), ...(event.confirmation && { confirmation: event.confirmation }) },
      }),
  };
}
