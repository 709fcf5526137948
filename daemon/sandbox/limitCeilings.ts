/**
 * The most a task may ask of a sandbox on this worker. A task names its own limits (an
 * `execute` task's `limits`, an example's), and a queued task is written by whoever can write
 * to the queue: without a ceiling one could ask for the network (and reach the worker host's
 * loopback: its Redis, its daemon), a day of wall time, a terabyte of memory. The worker's
 * configuration (`sandbox.maxLimits`) sets the ceilings; a request above one is lowered to it
 * and the result says so (`limitsLowered`), so the task still runs and its author sees why it
 * was stopped or offline.
 */
import { DEFAULT_LIMITS, type ExecutionLimits, type ExecutionRequest, type Executor, type LimitOverrides, type PreparedSandbox, type PrepareOptions } from './Executor';

/** Generous for any example (the bundled ones ask at most 2 minutes, 2 GiB, 64 processes); the network is off. */
export const DEFAULT_MAX_LIMITS: ExecutionLimits = {
  timeoutMs: 60 * 60_000,
  memoryMb: 8_192,
  pids: 1_024,
  outputBytes: 64 << 20,
  network: false,
};

/**
 * `limits` with every value above its ceiling lowered to it, and one line per lowered value
 * (empty when none was). A value left unset whose default is above a ceiling is lowered too.
 */
export function lowerToCeilings(limits: LimitOverrides | undefined, ceilings: ExecutionLimits): { limits: LimitOverrides; lowered: string[] } {
  const result: LimitOverrides = { ...limits };
  const lowered: string[] = [];
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ExecutionLimits)[]) {
    const asked = result[key] ?? DEFAULT_LIMITS[key];
    const ceiling = ceilings[key];
    if (Number(asked) <= Number(ceiling)) continue;
    (result as Record<string, unknown>)[key] = ceiling;
    // Only what the task asked for is reported: a default above a ceiling is this worker's own choice.
    if (limits?.[key] !== undefined) lowered.push(`${key} ${String(asked)} lowered to ${String(ceiling)} (this worker's sandbox.maxLimits.${key})`);
  }
  return { limits: result, lowered };
}

/** The executor each ceiling executor wraps (withoutCeilings). */
const uncapped = new WeakMap<Executor, Executor>();

/**
 * The executor under `executor`'s ceilings, for Peagen's own runs that no task wrote: an
 * example environment's install (its requirements checked, pip or npm with no package code
 * run) needs the registry's network, which the ceilings rightly keep from task code.
 */
export function withoutCeilings(executor: Executor): Executor {
  return uncapped.get(executor) ?? executor;
}

/** `inner`, with every run's (and prepared sandbox's) limits lowered to `ceilings`; results carry `limitsLowered`. */
export function ceilingExecutor(inner: Executor, ceilings: ExecutionLimits): Executor {
  const run = async <T extends object>(request: ExecutionRequest, runner: (request: ExecutionRequest) => Promise<T>): Promise<T & { limitsLowered?: string[] }> => {
    const { limits, lowered } = lowerToCeilings(request.limits, ceilings);
    const result = await runner({ ...request, limits });
    return lowered.length > 0 ? { ...result, limitsLowered: lowered } : result;
  };
  const wrapPrepared = (prepared: PreparedSandbox): PreparedSandbox => ({
    executor: prepared.executor,
    run: (request) => run(request, (lowered) => prepared.run(lowered)),
    discard: () => prepared.discard(),
  });
  const bounded: Executor = {
    name: inner.name,
    isolates: inner.isolates,
    available: () => inner.available(),
    run: (request) => run(request, (lowered) => inner.run(lowered)),
    prepare: async (options?: PrepareOptions) => wrapPrepared(await inner.prepare({ ...options, limits: lowerToCeilings(options?.limits, ceilings).limits })),
    reclaim: (owner) => inner.reclaim(owner),
    close: () => inner.close(),
  };
  uncapped.set(bounded, withoutCeilings(inner));
  return bounded;
}
