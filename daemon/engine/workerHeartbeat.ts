/**
 * Keeps this process's worker pool listed in the queue's cluster directory, so that
 * `peagen daemon status` and `queue stats` on any host show every worker serving the queue.
 * A record lapses when its host stops renewing it (a killed process, a lost node), so the
 * directory never shows workers that are gone for longer than one TTL.
 */
import * as os from 'node:os';
import type { WorkerRecord } from '../../shared/task';
import type { WorkerDirectory } from '../fabric/queue/TaskQueue';

/** The brief's heartbeat is 15 s; a record survives two missed beats plus slack. */
export const HEARTBEAT_INTERVAL_MS = 15_000;
export const HEARTBEAT_TTL_MS = 40_000;

/** What the pool says about itself at each beat. */
export type WorkerSnapshot = Omit<WorkerRecord, 'host' | 'pid' | 'startedAt' | 'seenAt'>;

export interface Heartbeat {
  /** Announces now (e.g. after a scale change) instead of at the next beat. */
  beat(): Promise<void>;
  /** Removes the record; the pool has stopped. */
  stop(): Promise<void>;
}

export function startWorkerHeartbeat(
  queue: WorkerDirectory,
  snapshot: () => WorkerSnapshot,
  options: { intervalMs?: number; ttlMs?: number; log?: (line: string) => void } = {},
): Heartbeat {
  const intervalMs = options.intervalMs ?? HEARTBEAT_INTERVAL_MS;
  const ttlMs = options.ttlMs ?? Math.max(HEARTBEAT_TTL_MS, intervalMs * 2 + 10_000);
  const startedAt = Date.now();
  let stopped = false;
  let failing = false;
  let workerId: string | undefined;
  const beat = async (): Promise<void> => {
    if (stopped) return;
    const record: WorkerRecord = { ...snapshot(), host: os.hostname(), pid: process.pid, startedAt, seenAt: Date.now() };
    workerId = record.id;
    try {
      await queue.announceWorker(record, ttlMs);
      if (failing) options.log?.(`worker ${record.id}: heartbeat reaches the queue again`);
      failing = false;
    } catch (error) {
      // The queue is unreachable: the worker goes on; the record lapses if this lasts.
      if (!failing) options.log?.(`worker ${record.id}: heartbeat failed (${(error as Error).message}); retrying`);
      failing = true;
    }
  };
  const timer = setInterval(() => void beat(), intervalMs);
  timer.unref();
  void beat();
  return {
    beat,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (workerId) await queue.retireWorker(workerId).catch(() => undefined);
    },
  };
}
