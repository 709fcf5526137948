/**
 * The cluster directory summed up the way an operator reads it at scale: totals first, then
 * one group per capability set and one per (host, capability set). With 64 pools the raw
 * records are 64 lines; a handful of hosts and caps sets is what can be taken in at a glance.
 */
import type { WorkerRecord } from '../../shared/task';

/** Counts summed over a set of worker pools. */
export interface WorkerTotals {
  pools: number;
  slots: number;
  busy: number;
  /** Live worker processes of the pools that report them (warm and one-shot); undefined when none does. */
  processes?: number;
  /** Pools whose last heartbeat is older than a beat and a half: slow, overloaded or going away. */
  late: number;
}

export interface WorkerGroup extends WorkerTotals {
  /** The capability set, sorted and joined by `,` (as the metrics' `caps` label). */
  caps: string;
  /** Distinct hosts in the group. */
  hosts: string[];
  /** Task kinds the group's pools serve, sorted. */
  kinds: string[];
}

export interface HostGroup extends WorkerGroup {
  host: string;
}

export interface WorkerSummary {
  total: WorkerTotals & { hosts: number };
  byCaps: WorkerGroup[];
  byHost: HostGroup[];
}

/** 15 s heartbeats (workerHeartbeat.ts): a record not renewed for 1.5 beats is worth a look. */
export const LATE_AFTER_MS = 22_500;

/** A capability set as one name: sorted, without repeats, joined by `,` (as the metrics' `caps` label). */
export function capsKey(caps: readonly string[]): string {
  return [...new Set(caps)].sort().join(',');
}

/** Pools in a stable, human order: by host, caps, then id with numbers compared as numbers (pool-2 before pool-10). */
export function sortPools(workers: readonly WorkerRecord[]): WorkerRecord[] {
  return [...workers].sort((a, b) => naturalCompare(a.host, b.host) || naturalCompare(capsKey(a.caps), capsKey(b.caps)) || naturalCompare(a.id, b.id));
}

export function summarizeWorkers(workers: readonly WorkerRecord[], now: number): WorkerSummary {
  const byCaps = new Map<string, WorkerRecord[]>();
  const byHost = new Map<string, WorkerRecord[]>();
  for (const worker of workers) {
    const caps = capsKey(worker.caps);
    push(byCaps, caps, worker);
    // A JSON pair keeps host and caps apart whatever characters they hold.
    push(byHost, JSON.stringify([worker.host, caps]), worker);
  }
  const group = (pools: WorkerRecord[]): WorkerGroup => ({
    caps: capsKey(pools[0]!.caps),
    hosts: [...new Set(pools.map((pool) => pool.host))].sort(naturalCompare),
    kinds: [...new Set(pools.flatMap((pool) => pool.kinds))].sort(),
    ...totals(pools, now),
  });
  return {
    total: { ...totals(workers, now), hosts: new Set(workers.map((worker) => worker.host)).size },
    byCaps: [...byCaps.values()].map(group).sort((a, b) => naturalCompare(a.caps, b.caps)),
    byHost: [...byHost.values()]
      .map((pools) => ({ host: pools[0]!.host, ...group(pools) }))
      .sort((a, b) => naturalCompare(a.host, b.host) || naturalCompare(a.caps, b.caps)),
  };
}

function totals(pools: readonly WorkerRecord[], now: number): WorkerTotals {
  const reporting = pools.filter((pool) => pool.processes !== undefined);
  return {
    pools: pools.length,
    slots: sum(pools.map((pool) => pool.slots)),
    busy: sum(pools.map((pool) => pool.busy)),
    ...(reporting.length > 0 && { processes: sum(reporting.map((pool) => pool.processes ?? 0)) }),
    late: pools.filter((pool) => now - pool.seenAt > LATE_AFTER_MS).length,
  };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

const collator = new Intl.Collator('en', { numeric: true });
const naturalCompare = (a: string, b: string): number => collator.compare(a, b);
