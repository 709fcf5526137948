#!/usr/bin/env node
// `npm run bench:queue`: enqueue → claim → ack → result for trivial echo jobs, closed loop,
// through each of these in one run, in interleaved rounds so machine noise hits all alike:
//   memory queue      Peagen's MemoryQueue in this process (adapter alone, no WorkerPool)
//   redis queue       Peagen's RedisStreamsQueue on a private redis-server (adapter alone)
//   BullMQ            Queue + Worker + QueueEvents on the same redis-server, same jobs
//   daemon, 1 client  dist/daemon.js over its socket: submitTask + getResult, as the CLI does
//   daemon, N clients the same with N connections at once (each with BENCH_IN_FLIGHT jobs)
// Prints tasks/s, p50/p99 enqueue→result latency, CPU per task (this process; the server:
// redis-server or the daemon), then the ratios and targets of issue 8.
//
// Knobs (environment): BENCH_TASKS jobs per contender per round (4000), BENCH_ROUNDS (3),
// BENCH_IN_FLIGHT jobs awaited at once per client (8), BENCH_CONCURRENCY worker slots (8),
// BENCH_CLIENTS for the multi-client daemon (3), BENCH_PAYLOAD_BYTES (64),
// BENCH_BACKLOG_IN_FLIGHT the jobs in flight of the second redis and BullMQ rows, which have
// a backlog (4 x BENCH_CONCURRENCY; 0 leaves them out), BENCH_ONLY=memory,redis,bullmq,daemon
// to run some of them,
// BENCH_DAEMON_PROFILE=DIR to run the daemons under `node --cpu-prof` (profiles land in DIR;
// `node bench/cpuProfileTop.mjs DIR/*.cpuprofile` lists their top costs),
// BENCH_BASELINE=DIR a built checkout of another version (e.g. a `git worktree` of main after
// `node scripts/build.mjs`): its daemon and client, and its redis queue, run beside this one's,
// in the same rounds; several, comma-separated, are named by their directory (to compare
// the steps of a change).
import { mkdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBullMQ, openDaemon, openPeagenQueue } from './queueDrivers.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const TASKS = env('BENCH_TASKS', 4000);
const ROUNDS = env('BENCH_ROUNDS', 3);
const IN_FLIGHT = env('BENCH_IN_FLIGHT', 8);
const CONCURRENCY = env('BENCH_CONCURRENCY', 8);
const CLIENTS = env('BENCH_CLIENTS', 3);
const BACKLOG = env('BENCH_BACKLOG_IN_FLIGHT', 4 * env('BENCH_CONCURRENCY', 8));
const PAYLOAD_BYTES = env('BENCH_PAYLOAD_BYTES', 64);
const ONLY = process.env.BENCH_ONLY?.split(',');
const PROFILE_DIR = process.env.BENCH_DAEMON_PROFILE ? resolve(process.env.BENCH_DAEMON_PROFILE) : undefined;
// Several baselines (comma-separated) are named by their directory, one alone "baseline".
const BASELINES = (process.env.BENCH_BASELINE?.split(',').filter(Boolean) ?? []).map((dir, _, all) => ({
  label: all.length === 1 ? 'baseline' : basename(resolve(dir)),
  repo: resolve(dir),
}));
const wanted = (group) => !ONLY || ONLY.includes(group);

const { startRedis, stopRedis } = await import(join(REPO, 'scripts', 'provision', 'redis.mjs'));
const redis = wanted('redis') || wanted('bullmq') ? await startRedis() : undefined;

const contenders = []; // { name, driver, shape }
const unavailable = [];
const common = { repo: REPO, payloadBytes: PAYLOAD_BYTES, concurrency: CONCURRENCY };
const single = { total: TASKS, inFlight: IN_FLIGHT, clients: 1 };
try {
  if (wanted('memory')) contenders.push({ name: 'memory queue', driver: await openPeagenQueue({ ...common, url: 'memory://' }), shape: single });
  if (wanted('redis')) {
    try {
      const url = `${redis.url}?prefix=bench-${process.pid}`;
      contenders.push({ name: 'redis queue', driver: await openPeagenQueue({ ...common, url, serverPids: [redis.pid] }), shape: single });
      for (const [index, { label, repo }] of BASELINES.entries()) {
        const baselineUrl = `${redis.url}?prefix=bench-baseline${index}-${process.pid}`;
        const driver = await openPeagenQueue({ ...common, repo, url: baselineUrl, serverPids: [redis.pid] });
        contenders.push({ name: `${label} redis queue`, driver, shape: single });
      }
    } catch (error) {
      unavailable.push(`redis queue: not available in this build (${error.message.split(';')[0]})`);
    }
  }
  if (wanted('bullmq')) {
    const driver = await openBullMQ({ ...common, port: redis.port, name: `bench-${process.pid}`, serverPids: [redis.pid] });
    contenders.push({ name: 'BullMQ 6', driver, shape: single });
  }
  // The same queues with a backlog: more jobs in flight than worker slots, so a slot that
  // finishes finds the next job waiting (where leasing it with the ack saves a round trip).
  if (BACKLOG > 0) {
    for (const contender of contenders.filter((c) => c.name.endsWith('redis queue') || c.name === 'BullMQ 6')) {
      contenders.push({ ...contender, name: `${contender.name}, backlog`, shape: { ...single, inFlight: BACKLOG }, closes: false });
    }
  }
  if (wanted('daemon')) {
    if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
    const nodeArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
    for (const [label, repo] of [['', REPO], ...BASELINES.map(({ label, repo }) => [`${label} `, repo])]) {
      const one = await openDaemon({ ...common, repo, maxClients: 1, nodeArgs });
      contenders.push({ name: `${label}daemon, 1 client`, driver: one, shape: single, daemon: true });
      const many = await openDaemon({ ...common, repo, maxClients: CLIENTS, nodeArgs });
      contenders.push({ name: `${label}daemon, ${CLIENTS} clients`, driver: many, shape: { ...single, clients: CLIENTS }, daemon: true });
    }
  }

  const totals = new Map(contenders.map((c) => [c.name, { tasks: 0, elapsedMs: 0, latencies: [], benchCpuMs: 0, serverCpuMs: 0 }]));
  // Warm-up: JIT, connections, Lua script loading.
  for (const { driver, shape } of contenders) await driver.run({ ...shape, total: Math.min(500, TASKS) });
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, driver, shape } of contenders) {
      const sample = await driver.run(shape);
      const total = totals.get(name);
      total.tasks += shape.total;
      total.elapsedMs += sample.elapsedMs;
      total.latencies.push(...sample.latencies);
      total.benchCpuMs += sample.benchCpuMs;
      total.serverCpuMs += sample.serverCpuMs.reduce((a, b) => a + b, 0);
    }
    process.stderr.write(`\rround ${round + 1}/${ROUNDS}`);
  }
  process.stderr.write('\n');
  report(totals);
} finally {
  for (const { driver, closes } of contenders) if (closes !== false) await driver.close().catch((error) => console.error(`closing: ${error.message}`));
  if (redis) await stopRedis({ port: redis.port, dir: redis.dir });
}

function report(totals) {
  const figures = new Map();
  for (const [name, total] of totals) {
    const sorted = total.latencies.sort((a, b) => a - b);
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    figures.set(name, {
      perSecond: (total.tasks * 1000) / total.elapsedMs,
      p50: at(0.5),
      p99: at(0.99),
      benchCpu: total.benchCpuMs / total.tasks,
      serverCpu: total.serverCpuMs / total.tasks,
    });
  }
  console.log(
    `echo jobs, ${ROUNDS} interleaved rounds of ${TASKS} per contender, ${IN_FLIGHT} in flight per client (${BACKLOG} in the backlog rows), ${CONCURRENCY} worker slots, ${PAYLOAD_BYTES}-byte payloads:`,
  );
  const row = (cells) => console.log(`  ${cells[0].padEnd(28)}${cells.slice(1).map((cell) => cell.padStart(13)).join('')}`);
  row(['', 'tasks/s', 'p50 ms', 'p99 ms', 'CPU ms/task', 'server CPU']);
  for (const [name, f] of figures) {
    row([name, f.perSecond.toFixed(0), f.p50.toFixed(2), f.p99.toFixed(2), f.benchCpu.toFixed(3), f.serverCpu ? f.serverCpu.toFixed(3) : '-']);
  }
  for (const line of unavailable) console.log(`  ${line}`);
  console.log('  (CPU ms/task: this process, which runs the in-process queues and every client; server CPU: redis-server or the daemon)');

  const checks = [];
  const target = (label, value, ok, goal) => checks.push(`  ${label.padEnd(48)} ${value.padStart(9)}  (target ${goal}: ${ok ? 'met' : 'MISSED'})`);
  for (const [name, bull] of [['redis queue', figures.get('BullMQ 6')], ['memory queue', figures.get('BullMQ 6')], ['redis queue, backlog', figures.get('BullMQ 6, backlog')]]) {
    const f = figures.get(name);
    if (!f || !bull) continue;
    target(`${name} throughput / BullMQ`, `${(f.perSecond / bull.perSecond).toFixed(2)}x`, f.perSecond >= 2 * bull.perSecond, '>= 2x');
    target(`${name} p50 / BullMQ p50`, `${(f.p50 / bull.p50).toFixed(2)}x`, f.p50 < bull.p50, '< 1x');
  }
  const memory = figures.get('memory queue');
  if (memory) target('memory queue p50', `${memory.p50.toFixed(2)} ms`, memory.p50 <= 1, '<= 1 ms');
  for (const { name, daemon } of contenders) {
    if (!daemon) continue;
    const f = figures.get(name);
    target(`${name}: daemon CPU per task`, `${f.serverCpu.toFixed(3)} ms`, f.serverCpu < 0.2, '< 0.2 ms');
  }
  if (checks.length > 0) console.log(['ratios and targets:', ...checks].join('\n'));
  if (PROFILE_DIR) console.log(`daemon CPU profiles (written as the daemons exit): ${PROFILE_DIR}`);
}
