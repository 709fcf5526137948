/**
 * The executors of this process that have run something since they were last closed, so that
 * a process about to die of SIGINT/SIGTERM can remove its sandboxes first: Node runs no
 * `exit` handlers when a signal ends it, and the runs' own `finally` blocks never get to run.
 *
 * The one call a signal handler makes before it exits:
 *
 *   process.once('SIGINT', () => void reclaimOwnSandboxes().finally(() => process.exit(130)));
 */
import type { Executor } from './Executor';
import { sandboxOwner } from './owner';
import { reclaimSandboxDirs } from './sandboxDir';

const live = new Set<Executor>();

/** Called by an executor when it starts a run. */
export function trackExecutor(executor: Executor): void {
  live.add(executor);
}

/** Called by an executor's close(). */
export function untrackExecutor(executor: Executor): void {
  live.delete(executor);
}

/**
 * Kills every sandbox of this process (its owner tag) and removes its directories, containers
 * and cgroups. The runs in progress then end with a stop or an error; call it only when the
 * process is about to exit. Never throws.
 */
export async function reclaimOwnSandboxes(): Promise<void> {
  const owner = sandboxOwner();
  await Promise.allSettled([...live].map((executor) => executor.reclaim(owner)));
  // Directories of executors that were closed meanwhile, or never ran (a failed create).
  await reclaimSandboxDirs(owner).catch(() => undefined);
}
