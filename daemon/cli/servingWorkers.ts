/**
 * Which of a run's tasks the workers listed on a shared queue serve, and what the run does
 * when they leave for good. An `evolve run` on a shared queue leaves the kinds that listed
 * workers serve to them (runFabric.ts). The split was decided once, as the run started: a
 * worker that then exited (rather than scaling to zero, which keeps its record) left the run's
 * tasks of that kind waiting forever. Now the run keeps checking the directory, and a kind no
 * listed worker serves any more is taken over by the run's own process, which says so.
 */
import type { Task } from '../../shared/task';
import type { WorkerDirectory } from '../fabric/queue/TaskQueue';
import { checkDirectoryEvery, poolsServing } from '../fabric/worker/servingPools';
import type { WorkerPool } from '../fabric/worker/WorkerPool';

export interface TakeOverOptions {
  directory: WorkerDirectory;
  /** The run's own pool, which leaves some of `tasks`' kinds to the listed workers. */
  pool: WorkerPool;
  tasks: readonly Pick<Task, 'kind' | 'requires'>[];
  /** The slots the pool runs with once it serves every kind (the run's slots without workers). */
  slots: number;
  log: (line: string) => void;
  intervalMs?: number;
}

/**
 * Checks every `intervalMs` that some listed worker still serves each kind the pool leaves to
 * others; a kind none serves is taken over by the pool (with `slots` slots), once. Returns
 * the function that stops checking.
 */
export function takeOverWhenWorkersLeave(options: TakeOverOptions): () => void {
  const stop = checkDirectoryEvery(async () => {
    const left = options.pool.leftToOthers;
    if (left.length === 0) return stop();
    const served = new Set(poolsServing(await options.directory.listWorkers(), options.tasks).map((pools) => pools.kind));
    const gone = left.filter((kind) => !served.has(kind));
    if (gone.length === 0) return;
    options.pool.takeOver(gone, options.slots);
    options.log(`no worker on the queue serves ${gone.map((kind) => `${kind} tasks`).join(' or ')} any more (they stopped): this process runs them from now on, with ${options.slots} slot(s) in all`);
  }, options.intervalMs);
  return stop;
}
