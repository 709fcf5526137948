/**
 * What `peagen daemon status` / `peagen queue stats` print about the worker pools: totals
 * first, then groups by caps and by (host, caps), each pool only with `--workers`, so that
 * 64 pools read as a handful of lines. The CLI over a real Redis is tested in
 * test/integration/statusAtScale.test.ts; this covers the cases a fleet there does not.
 */
import * as assert from 'node:assert/strict';
import { describeCluster, MAX_HOST_LINES } from '../../daemon/cli/statusText';
import { LATE_AFTER_MS } from '../../daemon/cli/workerGroups';
import type { WorkerRecord } from '../../shared/task';
import { FLEET_CAPS_LINES, FLEET_HOST_LINES, FLEET_TOTAL_LINE, fleetRecords } from '../fixtures/workerFleet';

const NOW = 1_800_000_000_000;
const text = (workers: readonly WorkerRecord[], allWorkers = false): string[] =>
  describeCluster(workers, { allWorkers, command: 'peagen daemon status', now: NOW });

function pool(id: string, host: string, caps: string[], extra: Partial<WorkerRecord> = {}): WorkerRecord {
  return { id, host, pid: 1, caps, kinds: ['echo'], mode: 'in-process', slots: 2, busy: 1, startedAt: 0, seenAt: NOW, ...extra };
}

describe('status text: worker pools at scale', () => {
  it('64 pools: the totals, one line per caps set and per (host, caps), no pool line', () => {
    const lines = text(fleetRecords(NOW));
    assert.deepEqual(lines, [FLEET_TOTAL_LINE, 'by caps:', ...FLEET_CAPS_LINES, 'by host:', ...FLEET_HOST_LINES, '(one line per pool: peagen daemon status --workers)']);
  });

  it('--workers adds every pool, one line each, in host order with pool-2 before pool-10', () => {
    const records = fleetRecords(NOW);
    const lines = text(records, true);
    const pools = lines.slice(lines.indexOf('pools:') + 1);
    assert.equal(pools.length, 64);
    for (const record of records) assert.equal(pools.filter((line) => line.includes(` ${record.id} (pid ${record.pid})`)).length, 1, record.id);
    const hostA = pools.filter((line) => line.startsWith('  host-a ')).map((line) => line.split(/\s+/)[2]);
    assert.deepEqual(hostA, Array.from({ length: 16 }, (_, i) => `host-a-cpu+docker-${i + 1}`));
    assert.equal(pools[0], '  gpu-1  gpu-1-cpu+gpu-1 (pid 1049)  in-process 1/1 busy  caps [cpu, gpu]  serves evaluate  (seen 0 s ago)');
    assert.match(lines.find((line) => line.includes(' host-b-docker+cpu-3 '))!, /warm 4\/4 busy, 4 processes {2}caps \[docker, cpu\]/);
  });

  it('pools whose heartbeat is late are counted where they are', () => {
    const records = fleetRecords(NOW).map((record) => (record.id === 'host-c-cpu-5' || record.id === 'host-c-cpu-7' ? { ...record, seenAt: NOW - LATE_AFTER_MS - 1_000 } : record));
    const lines = text(records);
    assert.match(lines[0]!, /, 2 late \(no heartbeat for over 22 s/);
    assert.ok(lines.includes('  host-c  cpu         12 pools,  24 slots,   0 busy  2 late'), lines.join('\n'));
    assert.equal(lines.filter((line) => line.includes('late')).length, 3, 'the total, the caps group and the host group');
  });

  it('one pod per host (Kubernetes): the caps groups carry it, the host list stops after a screenful', () => {
    const records = fleetRecords(NOW).map((record, i) => ({ ...record, host: `peagen-worker-${i + 1}` }));
    const lines = text(records);
    assert.match(lines[0]!, /^cluster: 64 worker pools on 64 hosts, 200 slots, 108 busy/);
    assert.ok(lines.includes('  cpu,docker  32 pools  on 32 hosts,  128 slots,  96 busy  80 worker processes  serves evaluate, execute'), lines.join('\n'));
    const hostLines = lines.slice(lines.indexOf('by host:') + 1).filter((line) => line.startsWith('  peagen-worker-'));
    assert.equal(hostLines.length, MAX_HOST_LINES);
    assert.ok(lines.includes(`  ... and ${64 - MAX_HOST_LINES} more groups (${64 - MAX_HOST_LINES} pools) on ${64 - MAX_HOST_LINES} more hosts`), lines.join('\n'));
    assert.ok(lines.length <= MAX_HOST_LINES + 10, `${lines.length} lines`);
  });

  it('a small cluster: no caps section when each caps set is on one host; the host lines say what they serve', () => {
    const lines = text([pool('a', 'laptop', ['cpu']), pool('b', 'laptop', ['cpu', 'gpu'], { kinds: ['evaluate', 'echo'], slots: 1, busy: 0 })]);
    assert.deepEqual(lines, [
      'cluster: 2 worker pools on 1 host, 3 slots, 1 busy (33%)',
      'by host:',
      '  laptop  cpu      1 pool,  2 slots,  1 busy  serves echo',
      '  laptop  cpu,gpu  1 pool,  1 slot,   0 busy  serves echo, evaluate',
      '(one line per pool: peagen daemon status --workers)',
    ]);
  });

  it('no pool: says so', () => {
    assert.deepEqual(text([]), ['cluster: no worker is serving this queue']);
  });
});
