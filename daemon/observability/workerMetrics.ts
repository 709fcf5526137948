/**
 * Task and one-shot process metrics of a worker pool or warm spawner, taken from the events
 * they already emit (taskStart, taskEnd, spawn, exit), so the fabric knows nothing of metrics.
 */
import type { EventEmitter } from 'node:events';
import type { Result, Task } from '../../shared/task';
import type { TaskEnd } from '../fabric/worker/ClaimRunner';
import type { ExitReason } from '../fabric/worker/oneShot';
import { capsLabel, type PeagenMetrics, processMetrics } from './metrics';

/** `released`: handed back untouched at a shutdown, to run again elsewhere. */
export type FinishedStatus = 'succeeded' | 'failed' | 'cancelled' | 'lease_lost' | 'released';

/** How a task's end reads on a dashboard. */
export function finishedStatus(end: TaskEnd, result: Result | undefined): FinishedStatus {
  switch (end) {
    case 'done':
      if (result?.status === 'ok') return 'succeeded';
      return result?.status === 'skip' && result.error?.code === 'cancelled' ? 'cancelled' : 'failed';
    case 'cancelled':
      return 'cancelled';
    case 'stale':
      return 'lease_lost';
    case 'released':
      return 'released';
    default:
      // retrying, dead: this delivery failed.
      return 'failed';
  }
}

/** What a pool or spawner offers for instrumentation (both emit these events). */
export interface InstrumentedWorkers extends Pick<EventEmitter, 'on' | 'off'> {
  status(): { caps: string[]; processes?: number; ready?: number; mode?: string; busy?: number };
}

/**
 * Counts the tasks `workers` starts and finishes and the one-shot processes it spawns and ends;
 * for a warm spawner (or a one-shot pool) also reports its live and ready processes at scrape
 * time. Returns the removal of every listener and source.
 */
export function instrumentWorkers(workers: InstrumentedWorkers, metrics: PeagenMetrics = processMetrics()): () => void {
  // Keyed by the task object: ClaimRunner emits the same one at the start and at the end.
  const startedAt = new WeakMap<Task, number>();
  const onStart = (task: Task): void => {
    startedAt.set(task, performance.now());
    metrics.tasksStarted.inc({ kind: task.kind });
  };
  const onEnd = (task: Task, end: TaskEnd, result: Result | undefined): void => {
    const labels = { kind: task.kind, status: finishedStatus(end, result) };
    metrics.tasksFinished.inc(labels);
    const started = startedAt.get(task);
    if (started !== undefined) metrics.handlerDuration.observe(labels, (performance.now() - started) / 1000);
  };
  const onSpawn = (): void => void metrics.workerSpawns.inc({ caps: capsLabel(workers.status().caps) });
  const onExit = (_pid: number | undefined, reason: ExitReason): void => void metrics.workerExits.inc({ reason });
  workers.on('taskStart', onStart);
  workers.on('taskEnd', onEnd);
  workers.on('spawn', onSpawn);
  workers.on('exit', onExit);
  const removeSource = metrics.addSource({
    collect(target) {
      const status = workers.status();
      // A warm spawner counts its processes; a one-shot pool has one per busy slot; an
      // in-process pool has none to report.
      const live = status.processes ?? (status.mode === 'one-shot' ? (status.busy ?? 0) : undefined);
      if (live === undefined) return;
      const caps = capsLabel(status.caps);
      target.warmLive.inc({ caps }, live);
      target.warmReady.inc({ caps }, status.ready ?? 0);
    },
  });
  return () => {
    workers.off('taskStart', onStart);
    workers.off('taskEnd', onEnd);
    workers.off('spawn', onSpawn);
    workers.off('exit', onExit);
    removeSource();
  };
}
