/**
 * Which of a run's kinds of task the worker pools listed on a shared queue serve: what a run
 * leaves to them as it starts, and what it notices when they leave (cli/servingWorkers.ts,
 * evolution/controller/unservedWatch.ts).
 */
import type { Task, WorkerRecord } from '../../../shared/task';
import { canAccept } from '../queue/TaskQueue';

/**
 * How often the directory is read. A record lapses HEARTBEAT_TTL_MS (40 s) after its worker
 * died without retiring it, so checking more often than this gains little; a worker stopped
 * cleanly retires its record at once, and what it served is noticed within this time.
 */
export const SERVING_CHECK_MS = 5_000;

/**
 * For each of `tasks` that some of `workers` claim, their slots and number. Not the slots of a
 * CLI command (another evolve run's own): they leave with it.
 */
export function poolsServing(workers: readonly WorkerRecord[], tasks: readonly Pick<Task, 'kind' | 'requires'>[]): { kind: string; slots: number; pools: number }[] {
  return tasks.flatMap((task) => {
    const pools = workers.filter((worker) => !worker.passing && servesTask(worker, task));
    return pools.length > 0 ? [{ kind: task.kind, slots: pools.reduce((sum, pool) => sum + pool.slots, 0), pools: pools.length }] : [];
  });
}

/** Whether a listed pool claims such tasks: its handler's capabilities, where the record has them. */
function servesTask(worker: WorkerRecord, task: Pick<Task, 'kind' | 'requires'>): boolean {
  if (worker.accepts) return canAccept(task, worker.accepts);
  return worker.kinds.includes(task.kind) && task.requires.every((cap) => worker.caps.includes(cap));
}

/**
 * Runs `check` every `intervalMs` (SERVING_CHECK_MS by default), one at a time. A directory
 * that cannot be read now is read again at the next tick: the run's own calls to the queue
 * report what is wrong with it. Returns the function that stops checking.
 */
export function checkDirectoryEvery(check: () => Promise<void>, intervalMs = SERVING_CHECK_MS): () => void {
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    check()
      .catch(() => undefined)
      .finally(() => (checking = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
