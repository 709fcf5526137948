/**
 * How long each sandboxed run took to start (the run asked for, to the program started) and
 * to run (program started to exit, the executor's own `wallMs`), measured here and handed to
 * whoever listens: the sandbox emits, observability counts (observability/sandboxMetrics.ts).
 * The executor is wrapped once where it is chosen ({@link timedExecutor}); the instant the
 * program starts is marked by one call, {@link noteProgramStarted}, at the spawn or exec in
 * each executor, which finds its run through AsyncLocalStorage, so no executor signature
 * changes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ExecutionRequest, ExecutionResult, Executor, PreparedSandbox, PrepareOptions } from './Executor';

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

/** Called by an executor the moment the sandboxed program starts. */
export function noteProgramStarted(): void {
  const clock = currentRun.getStore();
  if (clock && clock.programStartedAt === undefined) clock.programStartedAt = performance.now();
}

async function timed<R extends ExecutionResult>(run: () => Promise<R>, onTiming: (timing: SandboxTiming) => void): Promise<R> {
  const clock: RunClock = { requestedAt: performance.now() };
  const result = await currentRun.run(clock, run);
  // An executor without the mark (none today) still reports: the time not spent running.
  const startMs = clock.programStartedAt !== undefined ? clock.programStartedAt - clock.requestedAt : Math.max(0, performance.now() - clock.requestedAt - result.wallMs);
  onTiming({ executor: result.executor, startSeconds: Math.max(0, startMs) / 1000, runSeconds: result.wallMs / 1000 });
  return result;
}

/** The executor with every run (cold or prepared) timed, each timing handed to `onTiming`. */
export function timedExecutor(inner: Executor, onTiming: (timing: SandboxTiming) => void): Executor {
  const wrapPrepared = (prepared: PreparedSandbox): PreparedSandbox => ({
    executor: prepared.executor,
    run: (request: ExecutionRequest) => timed(() => prepared.run(request), onTiming),
    discard: () => prepared.discard(),
  });
  return {
    name: inner.name,
    isolates: inner.isolates,
    available: () => inner.available(),
    run: (request: ExecutionRequest) => timed(() => inner.run(request), onTiming),
    prepare: async (options?: PrepareOptions) => wrapPrepared(await inner.prepare(options)),
    reclaim: (owner: string) => inner.reclaim(owner),
    close: () => inner.close(),
  };
}
