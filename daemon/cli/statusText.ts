/**
 * `peagen daemon status` and `peagen queue stats` as text. Totals come first, then the queue's
 * depth per requirement set, then the worker pools grouped by capability set and by host, so
 * that the text stays a screenful with 64 pools; each pool's own line only when asked
 * (`--workers`). `--json` prints every record instead (the commands do that).
 */
import type { ClusterStatus, Status } from '../../shared/protocol';
import type { WorkerRecord } from '../../shared/task';
import { type HostGroup, LATE_AFTER_MS, type WorkerGroup, type WorkerTotals, sortPools, summarizeWorkers } from './workerGroups';

export interface StatusTextOptions {
  /** One line per pool after the groups (`--workers`). */
  allWorkers: boolean;
  /** The command that prints this, to say how to ask for every pool. */
  command: string;
  now?: number;
}

/** Past this many (host, caps) groups the rest is counted, not listed (on Kubernetes every pod is a host). */
export const MAX_HOST_LINES = 20;

export function describeStatus(status: Status.Response, options: StatusTextOptions): string {
  const { queue, workers } = status;
  return [
    `queue: ${queue.backend} (${queue.url}) — ${queue.pending} pending, ${queue.inFlight} in flight, ${queue.delayed} waiting to retry, ${queue.dead} dead`,
    ...(queue.problems ?? []).map((problem) => `  warning: ${problem}`),
    ...describeDepth(status.cluster),
    workers.count > 0
      ? `workers here: ${workers.count} ${workers.mode} (${workers.busy} busy), caps [${workers.caps.join(', ')}]`
      : 'workers here: none (tasks are served by `peagen worker start` on the cluster)',
    ...describeCluster(status.cluster.workers, options),
    `sandbox: ${status.sandbox.executor}${status.sandbox.isolates ? '' : ' (NOT isolated)'} — ${status.sandbox.reason}`,
  ].join('\n');
}

/** Pending work per requirement set: which kind of worker the queue is waiting for. */
function describeDepth(cluster: ClusterStatus): string[] {
  const waiting = cluster.depth.filter((entry) => entry.pending + entry.inFlight + entry.delayed > 0);
  if (waiting.length === 0) return [];
  return [
    'by requirement set:',
    ...waiting.map((entry) => {
      const oldest = entry.pending > 0 && entry.oldestPendingMs > 0 ? `, oldest waiting ${duration(entry.oldestPendingMs)}` : '';
      return `  ${entry.kind} [${entry.requires.join(', ')}]: ${entry.pending} pending, ${entry.inFlight} in flight, ${entry.delayed} waiting to retry${oldest}`;
    }),
  ];
}

/** Totals, then groups by caps (when a caps set spans hosts) and by host, then each pool if asked. */
export function describeCluster(workers: readonly WorkerRecord[], options: StatusTextOptions): string[] {
  if (workers.length === 0) return ['cluster: no worker is serving this queue'];
  const now = options.now ?? Date.now();
  const summary = summarizeWorkers(workers, now);
  const { total } = summary;
  const utilisation = total.slots > 0 ? ` (${Math.round((100 * total.busy) / total.slots)}%)` : '';
  const lines = [`cluster: ${plural(total.pools, 'worker pool')} on ${plural(total.hosts, 'host')}, ${plural(total.slots, 'slot')}, ${total.busy} busy${utilisation}${processes(total)}${late(total, true)}`];
  // With every caps set on one host, the host groups already say all the caps groups would.
  const capsSpanHosts = summary.byCaps.some((group) => group.hosts.length > 1);
  if (capsSpanHosts) {
    lines.push('by caps:');
    const rows = summary.byCaps.map((group): Cell[] => [
      group.caps,
      count(group.pools, 'pool'),
      count(group.hosts.length, 'host,', 'hosts,', 'on'),
      ...counts(group),
      ...notes(group, true),
    ]);
    lines.push(...table(rows));
  }
  lines.push('by host:');
  const shown = summary.byHost.slice(0, MAX_HOST_LINES);
  const rows = shown.map((group): Cell[] => [group.host, group.caps, count(group.pools, 'pool,', 'pools,'), ...counts(group), ...notes(group, !capsSpanHosts)]);
  lines.push(...table(rows));
  const hidden = summary.byHost.slice(MAX_HOST_LINES);
  if (hidden.length > 0) lines.push(`  ... and ${describeHidden(hidden, shown)}`);
  if (options.allWorkers) {
    lines.push('pools:', ...sortPools(workers).map((worker) => describePool(worker, now)));
  } else {
    lines.push(`(one line per pool: ${options.command} --workers)`);
  }
  return lines;
}

/** `N more groups on M more hosts`: what the cut-off list leaves out. */
function describeHidden(hidden: readonly HostGroup[], shown: readonly HostGroup[]): string {
  const shownHosts = new Set(shown.map((group) => group.host));
  const moreHosts = new Set(hidden.map((group) => group.host).filter((host) => !shownHosts.has(host)));
  const pools = hidden.reduce((sum, group) => sum + group.pools, 0);
  return `${plural(hidden.length, 'more group')} (${plural(pools, 'pool')}) on ${plural(moreHosts.size, 'more host')}`;
}

function describePool(worker: WorkerRecord, now: number): string {
  const processCount = worker.processes !== undefined ? `, ${plural(worker.processes, 'process', 'processes')}` : '';
  const seen = Math.max(0, Math.round((now - worker.seenAt) / 1000));
  return `  ${worker.host}  ${worker.id} (pid ${worker.pid})  ${worker.mode} ${worker.busy}/${worker.slots} busy${processCount}  caps [${worker.caps.join(', ')}]  serves ${worker.kinds.join(', ') || 'nothing'}  (seen ${seen} s ago)`;
}

/** The count cells of a group line: its slots and how many are busy. */
function counts(group: WorkerGroup): Cell[] {
  return [count(group.slots, 'slot,', 'slots,'), count(group.busy, 'busy', 'busy')];
}

/** What follows the counts: live processes and late pools when there are any, and what the group serves. */
function notes(group: WorkerGroup, withKinds: boolean): string[] {
  return [`${processes(group)}${late(group, false)}`.replace(/^, /, ''), withKinds ? `serves ${group.kinds.join(', ') || 'nothing'}` : ''];
}

function processes(totals: WorkerTotals): string {
  return totals.processes !== undefined ? `, ${plural(totals.processes, 'worker process', 'worker processes')}` : '';
}

function late(totals: WorkerTotals, explain: boolean): string {
  if (totals.late === 0) return '';
  return `, ${totals.late} late${explain ? ` (no heartbeat for over ${Math.floor(LATE_AFTER_MS / 1000)} s: overloaded, cut off or stopping)` : ''}`;
}

/** A number and its unit (`12 pools,`), optionally after a word (`on 2 hosts,`). */
interface Count {
  before?: string;
  count: number;
  unit: string;
}

/** Text (left-aligned) or a count (the number right-aligned, so that the numbers line up). */
type Cell = string | Count;

function count(value: number, one: string, many = `${one}s`, before?: string): Count {
  return { ...(before !== undefined && { before }), count: value, unit: value === 1 ? one : many };
}

/** Rows of cells as columns; a column empty in every row (no group has notes) takes no room. */
function table(rows: readonly Cell[][]): string[] {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const rendered: string[][] = rows.map(() => []);
  for (let i = 0; i < columns; i++) {
    const cells = rows.map((row) => row[i] ?? '');
    const width = (pick: (cell: Count) => string): number => Math.max(0, ...cells.map((cell) => (typeof cell === 'string' ? 0 : pick(cell).length)));
    const [before, number, unit] = [width((cell) => cell.before ?? ''), width((cell) => String(cell.count)), width((cell) => cell.unit)];
    const text = cells.map((cell) =>
      typeof cell === 'string'
        ? cell
        : [...(before > 0 ? [(cell.before ?? '').padEnd(before)] : []), String(cell.count).padStart(number), cell.unit.padEnd(unit)].join(' '),
    );
    const columnWidth = Math.max(...text.map((cell) => cell.length));
    if (columnWidth === 0) continue;
    text.forEach((cell, row) => rendered[row]!.push(cell.padEnd(columnWidth)));
  }
  return rendered.map((cells) => `  ${cells.join('  ')}`.trimEnd());
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}
