/**
 * The queue gauges, read from the queue at scrape time (its depth per requirement set and its
 * cluster directory), so that they show what every worker sees now. Served by the daemon only:
 * the queue is shared, and a pool serving the same numbers would count them twice in a sum.
 */
import type { WorkerRecord } from '../../shared/task';
import type { QueueAdmin, WorkerDirectory } from '../fabric/queue/TaskQueue';
import { capsLabel, type MetricSource, type PeagenMetrics } from './metrics';

export function queueMetricSource(queue: QueueAdmin & WorkerDirectory): MetricSource {
  return {
    async collect(metrics: PeagenMetrics): Promise<void> {
      const [depth, stats, workers] = await Promise.all([queue.depth(), queue.stats(), queue.listWorkers()]);
      for (const set of depth) {
        const labels = { kind: set.kind, requires: set.requires.join(',') };
        metrics.queuePending.set(labels, set.pending);
        metrics.queueInFlight.set(labels, set.inFlight);
        metrics.queueDelayed.set(labels, set.delayed);
        metrics.queueOldestPendingAge.set(labels, set.pending > 0 ? set.oldestPendingMs / 1000 : 0);
        // Whether the pools that could take this work exist and are full: with mixed caps a
        // cluster-wide sum cannot say (idle cpu pools do not run gpu tasks).
        const capable = workers.filter((pool) => canRun(pool, set.kind, set.requires));
        metrics.queueCapableSlots.set(labels, sum(capable, 'slots'));
        metrics.queueCapableBusySlots.set(labels, sum(capable, 'busy'));
      }
      metrics.queueDead.set(stats.dead);
      for (const [caps, pools] of groupByCaps(workers)) {
        metrics.clusterWorkers.set({ caps }, pools.length);
        metrics.clusterWorkerSlots.set({ caps }, sum(pools, 'slots'));
        metrics.clusterWorkerBusySlots.set({ caps }, sum(pools, 'busy'));
      }
    },
  };
}

function groupByCaps(workers: readonly WorkerRecord[]): Map<string, WorkerRecord[]> {
  const groups = new Map<string, WorkerRecord[]>();
  for (const worker of workers) {
    const key = capsLabel(worker.caps);
    groups.set(key, [...(groups.get(key) ?? []), worker]);
  }
  return groups;
}

/** A pool can claim a task of `kind` needing `requires` when its caps include them all and a handler of it serves the kind. */
function canRun(pool: WorkerRecord, kind: string, requires: readonly string[]): boolean {
  return pool.kinds.includes(kind) && requires.every((cap) => pool.caps.includes(cap));
}

function sum(pools: readonly WorkerRecord[], count: 'slots' | 'busy'): number {
  return pools.reduce((total, pool) => total + pool[count], 0);
}
