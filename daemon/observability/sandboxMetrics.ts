/**
 * Sandbox timings per executor: start (the run asked for, to the program started) and run
 * (program started to exit, the executor's own `wallMs`). The executor is wrapped once where
 * it is chosen (selectExecutor); the instant the program starts is marked by one call,
 * {@link noteProgramStarted}, at the spawn or exec in each executor, which finds its run
 * through AsyncLocalStorage, so no executor signature changes.
 *
 * A one-shot child's sandboxes run in the child: its timings travel to the parent with the
 * task's outcome ({@link takeChildTimings} there, {@link replayTimings} here) and are counted
 * by the pool that serves /metrics.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ExecutionRequest, ExecutionResult, Executor, PreparedSandbox, PrepareOptions } from '../sandbox/Executor';
import { type PeagenMetrics, processMetrics } from './metrics';

export interface SandboxTiming {
  executor: string;
  startSeconds: number;
  runSeconds: number;
}

interface RunClock {
  requestedAt: number;
  programStartedAt?: number;
}

const currentRun = new AsyncLocalStorage<RunClock>();
/** Set in a one-shot child: timings kept for the parent instead of observed here. */
let childTimings: SandboxTiming[] | undefined;

/** Called by an executor the moment the sandboxed program starts. */
export function noteProgramStarted(): void {
  const clock = currentRun.getStore();
  if (clock && clock.programStartedAt === undefined) clock.programStartedAt = performance.now();
}

/** In a one-shot child: keep timings for the parent (see {@link takeChildTimings}). */
export function keepTimingsForParent(): void {
  childTimings ??= [];
}

/** The timings kept since the last call (one-shot child). */
export function takeChildTimings(): SandboxTiming[] {
  const taken = childTimings ?? [];
  if (childTimings) childTimings = [];
  return taken;
}

export function replayTimings(timings: readonly SandboxTiming[] | undefined, metrics: PeagenMetrics = processMetrics()): void {
  for (const timing of timings ?? []) observe(timing, metrics);
}

function observe(timing: SandboxTiming, metrics: PeagenMetrics): void {
  if (childTimings) {
    childTimings.push(timing);
    return;
  }
  metrics.sandboxStart.observe({ executor: timing.executor }, timing.startSeconds);
  metrics.sandboxRun.observe({ executor: timing.executor }, timing.runSeconds);
}

async function timed<R extends ExecutionResult>(run: () => Promise<R>, metrics: PeagenMetrics): Promise<R> {
  const clock: RunClock = { requestedAt: performance.now() };
  const result = await currentRun.run(clock, run);
  // An executor without the mark (none today) still reports: the time not spent running.
  const startMs = clock.programStartedAt !== undefined ? clock.programStartedAt - clock.requestedAt : Math.max(0, performance.now() - clock.requestedAt - result.wallMs);
  observe({ executor: result.executor, startSeconds: Math.max(0, startMs) / 1000, runSeconds: result.wallMs / 1000 }, metrics);
  return result;
}

/** The executor with every run (cold or prepared) timed into `metrics`. */
export function instrumentExecutor(inner: Executor, metrics?: PeagenMetrics): Executor {
  const target = (): PeagenMetrics => metrics ?? processMetrics();
  const wrapPrepared = (prepared: PreparedSandbox): PreparedSandbox => ({
    executor: prepared.executor,
    run: (request: ExecutionRequest) => timed(() => prepared.run(request), target()),
    discard: () => prepared.discard(),
  });
  return {
    name: inner.name,
    isolates: inner.isolates,
    available: () => inner.available(),
    run: (request: ExecutionRequest) => timed(() => inner.run(request), target()),
    prepare: async (options?: PrepareOptions) => wrapPrepared(await inner.prepare(options)),
    reclaim: (owner: string) => inner.reclaim(owner),
    close: () => inner.close(),
  };
}
