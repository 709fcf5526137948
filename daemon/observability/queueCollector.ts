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
      }
      metrics.queueDead.set(stats.dead);
      for (const [caps, pools] of groupByCaps(workers)) {
        metrics.clusterWorkers.set({ caps }, pools.length);
        metrics.clusterWorkerSlots.set({ caps }, pools.reduce((sum, pool) => sum + pool.slots, 0));
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
