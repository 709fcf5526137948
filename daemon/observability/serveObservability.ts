/**
 * Wires a process's metrics and its endpoint: the daemon (queue gauges, its own slots, runs)
 * and `peagen worker start` pools (their slots or warm spawner). The metric names are in
 * docs/metrics.md.
 */
import type { QueueAdmin, WorkerDirectory } from '../fabric/queue/TaskQueue';
import type { Executor } from '../sandbox/Executor';
import { processMetrics } from './metrics';
import { type MetricsEndpoint, queueAndExecutorReadiness, startMetricsServer } from './metricsServer';
import { queueMetricSource } from './queueCollector';
import { type InstrumentedWorkers, instrumentWorkers } from './workerMetrics';

/** How many ports after a worker pool's default are tried: one per pool on a host. */
export const WORKER_EXTRA_PORTS = 10;

export interface ObservedProcess {
  /** `host:port`, port 0 for any, or `off`. */
  listen: string;
  /** Gauges and readiness read it; it is not used to submit or run work here. */
  queue: QueueAdmin & WorkerDirectory;
  /** The slots or spawner of this process, if it runs tasks. */
  workers?: InstrumentedWorkers | undefined;
  /** The executor its sandboxes run on (readiness); none for a spawner, whose children run them. */
  executor?: () => Executor | undefined;
  log(line: string): void;
}

export interface Observability {
  endpoint: MetricsEndpoint;
  close(): Promise<void>;
}

/** The daemon: queue gauges (it alone serves them), its slots, and its runs' metrics. */
export function serveDaemonObservability(process: ObservedProcess): Promise<Observability> {
  return serve(process, { what: 'daemon', withQueueGauges: true });
}

/** A `peagen worker start` pool: its slots or warm spawner; the next free port when its own is taken. */
export function serveWorkerObservability(process: ObservedProcess): Promise<Observability> {
  return serve(process, { what: 'worker pool', withQueueGauges: false, extraPorts: WORKER_EXTRA_PORTS });
}

async function serve(observed: ObservedProcess, how: { what: string; withQueueGauges: boolean; extraPorts?: number }): Promise<Observability> {
  const metrics = processMetrics();
  const removers = [
    ...(how.withQueueGauges ? [metrics.addSource(queueMetricSource(observed.queue))] : []),
    ...(observed.workers ? [instrumentWorkers(observed.workers, metrics)] : []),
  ];
  const endpoint = await startMetricsServer({
    listen: observed.listen,
    metrics,
    readiness: queueAndExecutorReadiness(observed.queue, observed.executor),
    what: how.what,
    log: observed.log,
    ...(how.extraPorts !== undefined && { extraPorts: how.extraPorts }),
  });
  if (endpoint.status.url) observed.log(`${how.what}: metrics on ${endpoint.status.url} (also /healthz, /readyz)`);
  return {
    endpoint,
    async close() {
      await endpoint.close();
      for (const remove of removers) remove();
    },
  };
}
