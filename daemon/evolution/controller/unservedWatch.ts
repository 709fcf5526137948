/**
 * A daemon that runs no workers (`--no-workers`, a cluster's coordinator) leaves every task of
 * its runs to `peagen worker start` pools on the shared queue. When no listed pool serves a
 * kind a run needs (none was started, or the last one stopped for good: a pool scaled to zero
 * keeps its record), the run's tasks of that kind would wait forever, silently. This watch
 * reads the queue's worker directory and says so at once, says so again when a pool serves the
 * kind again, and when nobody has served it for `waitMs` it stops the run with a checkpoint
 * (resumable with `--resume` once workers are back) instead of waiting forever.
 */
import type { Task } from '../../../shared/task';
import type { WorkerDirectory } from '../../fabric/queue/TaskQueue';
import { checkDirectoryEvery, poolsServing } from '../../fabric/worker/servingPools';

export interface WatchedRun {
  runId: string;
  /** The kinds of task the run submits and what each requires (taskSpecs.ts runTaskKinds). */
  tasks: readonly Pick<Task, 'kind' | 'requires'>[];
}

export interface UnservedWatchOptions {
  directory: WorkerDirectory;
  /** The runs to watch now (read at every check). */
  runs(): readonly WatchedRun[];
  /** A run's notice changed: why it waits, or undefined once it waits for nothing. */
  notice(runId: string, notice: string | undefined): void;
  /** Nobody served a kind the run needs for `waitMs`: stop it with a checkpoint. */
  stop(runId: string, notice: string): void;
  waitMs: number;
  intervalMs?: number;
  now?: () => number;
}

/** Starts watching; returns the function that stops it. */
export function watchUnservedKinds(options: UnservedWatchOptions): () => void {
  const now = options.now ?? Date.now;
  /** Per run: the kinds nobody serves and since when. */
  const waiting = new Map<string, { kinds: string; since: number }>();
  /** Runs told to stop: each is stopped once, and says nothing more while it ends. */
  const stopped = new Set<string>();

  const check = async (): Promise<void> => {
    const runs = options.runs();
    for (const runId of [...waiting.keys(), ...stopped]) {
      if (runs.some((run) => run.runId === runId)) continue;
      waiting.delete(runId);
      stopped.delete(runId);
    }
    if (runs.length === 0) return;
    const workers = await options.directory.listWorkers();
    for (const run of runs) {
      if (stopped.has(run.runId)) continue;
      const served = new Set(poolsServing(workers, run.tasks).map((pools) => pools.kind));
      const unserved = [...new Set(run.tasks.map((task) => task.kind))].filter((kind) => !served.has(kind));
      const was = waiting.get(run.runId);
      if (unserved.length === 0) {
        if (was) {
          waiting.delete(run.runId);
          options.notice(run.runId, undefined);
        }
        continue;
      }
      const kinds = unserved.map((kind) => `${kind} tasks`).join(' or ');
      if (!was || was.kinds !== kinds) {
        waiting.set(run.runId, { kinds, since: was?.since ?? now() });
        options.notice(run.runId, `no worker on the queue serves ${kinds} (none started, or they stopped), and this daemon runs no workers: the run waits for one (start \`peagen worker start\` on a host that shares this queue) and stops with a checkpoint after ${duration(options.waitMs)} without one`);
        continue;
      }
      if (now() - was.since >= options.waitMs) {
        waiting.delete(run.runId);
        stopped.add(run.runId);
        options.stop(run.runId, `no worker served ${kinds} for ${duration(options.waitMs)}: the run stopped with a checkpoint; start \`peagen worker start\` on a host that shares this queue, then continue it with: peagen evolve run --resume ${run.runId}`);
      }
    }
  };
  return checkDirectoryEvery(check, options.intervalMs);
}

function duration(ms: number): string {
  return ms < 60_000 ? `${Number((ms / 1000).toFixed(1))} s` : `${Number((ms / 60_000).toFixed(1))} min`;
}
