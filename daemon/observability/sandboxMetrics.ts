/**
 * Sandbox timings per executor, counted into the metrics: start (the run asked for, to the
 * program started) and run (program started to exit). The sandbox measures them
 * (sandbox/runTiming.ts); {@link instrumentExecutor} listens where the executor is chosen.
 *
 * A one-shot child's sandboxes run in the child: its timings travel to the parent with the
 * task's outcome ({@link sandboxTimingReport}) and are counted by the pool that serves
 * /metrics.
 */
import { type SandboxTiming, timedExecutor } from '../sandbox/runTiming';
import type { ChildReport } from '../fabric/worker/oneShot';
import type { Executor } from '../sandbox/Executor';
import { type PeagenMetrics, processMetrics } from './metrics';

export type { SandboxTiming };

/** Set in a one-shot child: timings kept for the parent instead of observed here. */
let childTimings: SandboxTiming[] | undefined;

/** In a one-shot child: keep timings for the parent (see {@link takeChildTimings}). */
export function keepTimingsForParent(): void {
  childTimings ??= [];
}

/** The timings kept since the last call (one-shot child). */
function takeChildTimings(): SandboxTiming[] {
  const taken = childTimings ?? [];
  if (childTimings) childTimings = [];
  return taken;
}

/** In the parent: the timings a one-shot child kept (anything else it sent is ignored). */
function replayTimings(timings: unknown, metrics: PeagenMetrics = processMetrics()): void {
  if (!Array.isArray(timings)) return;
  for (const timing of timings as unknown[]) if (isTiming(timing)) observe(timing, metrics);
}

function isTiming(value: unknown): value is SandboxTiming {
  const timing = value as Partial<SandboxTiming> | null;
  return typeof timing?.executor === 'string' && Number.isFinite(timing.startSeconds) && Number.isFinite(timing.runSeconds);
}

/** The fabric's one-shot hook (fabric/worker/oneShot.ts): a child's timings travel to the parent that serves /metrics. */
export const sandboxTimingReport: ChildReport = { take: takeChildTimings, receive: (report) => replayTimings(report) };

function observe(timing: SandboxTiming, metrics: PeagenMetrics): void {
  if (childTimings) {
    childTimings.push(timing);
    return;
  }
  metrics.sandboxStart.observe({ executor: timing.executor }, timing.startSeconds);
  metrics.sandboxRun.observe({ executor: timing.executor }, timing.runSeconds);
}

/** The executor with every run (cold or prepared) timed into `metrics`. */
export function instrumentExecutor(inner: Executor, metrics?: PeagenMetrics): Executor {
  return timedExecutor(inner, (timing) => observe(timing, metrics ?? processMetrics()));
}
