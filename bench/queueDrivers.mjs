// The contenders of `npm run bench:queue` (bench/queue.mjs), each behind the same shape:
//   const driver = await openX(...); await driver.run({ total, inFlight, clients }); await driver.close();
// run() pushes `total` trivial echo jobs through enqueue → claim → ack → result with `inFlight`
// jobs awaited at once per client, and returns the wall time, every job's enqueue→result
// latency, and the CPU the bench process and the server process(es) spent meanwhile.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const CLOCK_TICKS_PER_S = 100; // Linux USER_HZ: /proc/PID/stat counts CPU in 1/100 s

/** CPU ms (user + system) a process has used so far, from /proc/PID/stat. */
export function processCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
}

const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export const payloadOf = (index, bytes) => ({ message: `job ${index} ${'x'.repeat(bytes)}` });

/**
 * Runs `clients` closed loops side by side, each keeping `inFlight` jobs awaited, until
 * `total` jobs have finished; `submitAndWait(client, index)` does one job end to end.
 */
async function closedLoops({ total, inFlight, clients }, submitAndWait, serverPids) {
  let next = 0;
  const latencies = [];
  const cpuBefore = { bench: ownCpuMs(), servers: serverPids.map(processCpuMs) };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients * inFlight }, async (_, lane) => {
      const client = lane % clients;
      while (next < total) {
        const index = next++;
        const sent = performance.now();
        await submitAndWait(client, index);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const serverCpuMs = serverPids.map((pid, i) => processCpuMs(pid) - cpuBefore.servers[i]);
  return { elapsedMs, latencies, benchCpuMs: ownCpuMs() - cpuBefore.bench, serverCpuMs };
}

function expectEcho(data, index, payloadBytes) {
  if (data?.message !== payloadOf(index, payloadBytes).message) throw new Error(`job ${index} came back with ${JSON.stringify(data)}`);
}

/**
 * A Peagen TaskQueue adapter in this process: `inFlight` consumers claim and ack (the echo
 * result), producers enqueue and waitForResult. No WorkerPool, so this is the adapter alone,
 * as BullMQ's Worker is BullMQ alone.
 */
export async function openPeagenQueue({ repo, url, payloadBytes, concurrency, serverPids = [] }) {
  const { createQueue } = require(join(repo, 'out', 'daemon', 'fabric', 'queue', 'createQueue.js'));
  const { newTask } = require(join(repo, 'out', 'shared', 'task.js'));
  const queue = await createQueue(url); // QueueAddressError where the adapter is missing
  const stop = new AbortController();
  const accepts = [{ kind: 'echo', provides: ['cpu'] }];
  // As a WorkerPool slot does (and BullMQ's Worker): each ack leases the slot's next task when
  // one is waiting. A build from before ackAndClaimNext (a baseline) acks, then claims.
  const leasesWithAck = typeof queue.ackAndClaimNext === 'function';
  const consumers = Array.from({ length: concurrency }, async (_, slot) => {
    const consumer = `bench/${slot}`;
    let next = null;
    while (!stop.signal.aborted) {
      let claim = next;
      next = null;
      try {
        claim ??= await queue.claim({ consumer, accepts, blockMs: 1_000, signal: stop.signal });
      } catch (error) {
        if (stop.signal.aborted) return;
        throw error;
      }
      if (!claim) continue;
      const now = new Date().toISOString();
      const result = {
        taskId: claim.task.id,
        status: 'ok',
        data: { message: claim.task.payload.message },
        attempts: claim.task.attempts + 1,
        startedAt: now,
        finishedAt: now,
        durationMs: 0,
        workerId: claim.consumer,
      };
      if (leasesWithAck) next = (await queue.ackAndClaimNext(claim, result, { consumer, accepts })).next;
      else await queue.ack(claim, result);
    }
    if (next) await queue.release(next);
  });
  return {
    async run(shape) {
      return closedLoops(
        shape,
        async (_, index) => {
          const task = newTask({ kind: 'echo', payload: payloadOf(index, payloadBytes), requires: ['cpu'] });
          await queue.enqueue(task);
          const result = await queue.waitForResult(task.id, 30_000);
          if (result?.status !== 'ok') throw new Error(`task ${task.id}: ${JSON.stringify(result)}`);
          expectEcho(result.data, index, payloadBytes);
        },
        serverPids,
      );
    },
    async close() {
      stop.abort();
      await Promise.allSettled(consumers);
      await queue.close();
    },
  };
}

/**
 * BullMQ 6.7, installed on first use into a cache outside the repo: as a devDependency its
 * optional native helper (msgpackr-extract) names platform packages this registry lacks, and
 * `npm ci` then refuses the lock file.
 */
async function importBullMQ() {
  const { execFileSync } = await import('node:child_process');
  const { existsSync, mkdirSync } = await import('node:fs');
  const { homedir } = await import('node:os');
  const { join } = await import('node:path');
  const { createRequire } = await import('node:module');
  const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'peagen-bench', 'bullmq-6.7');
  const entry = join(dir, 'node_modules', 'ioredis');
  if (!existsSync(entry)) {
    mkdirSync(dir, { recursive: true });
    process.stderr.write(`installing bullmq@6.7.0 (with ioredis 6, its optional client) into ${dir} (once)\n`);
    execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', 'bullmq@6.7.0', 'ioredis@6.0.0'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return createRequire(join(dir, 'package.json'))('bullmq');
}

/** BullMQ as its docs show it: Queue.add, a Worker with a processor, job.waitUntilFinished(QueueEvents). */
export async function openBullMQ({ port, payloadBytes, concurrency, name, serverPids = [] }) {
  const { Queue, Worker, QueueEvents } = await importBullMQ();
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
  const queue = new Queue(name, { connection });
  const events = new QueueEvents(name, { connection });
  const worker = new Worker(name, async (job) => ({ message: job.data.message }), { connection, concurrency });
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady(), worker.waitUntilReady()]);
  return {
    async run(shape) {
      return closedLoops(
        shape,
        async (_, index) => {
          const job = await queue.add('echo', payloadOf(index, payloadBytes));
          expectEcho(await job.waitUntilFinished(events, 30_000), index, payloadBytes);
        },
        serverPids,
      );
    },
    async close() {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    },
  };
}

/**
 * A real daemon (dist/daemon.js) with a private PEAGEN_HOME, as the CLI and the editor use
 * it: each client is its own socket connection; a job is peagen/submitTask then
 * peagen/getResult (waiting), which is what `peagen task submit --wait` does.
 */
export async function openDaemon({ repo, payloadBytes, concurrency, maxClients, nodeArgs = [], env = {} }) {
  const { DaemonClient } = require(join(repo, 'out', 'daemon', 'rpc', 'client.js'));
  const { SubmitTask, GetResult, Shutdown } = require(join(repo, 'out', 'shared', 'protocol.js'));
  const home = mkdtempSync(join(tmpdir(), 'peagen-bench-daemon-'));
  writeFileSync(join(home, 'peagen.json'), JSON.stringify({ worker: { concurrency } }));
  const child = spawn(process.execPath, [...nodeArgs, join(repo, 'dist', 'daemon.js'), '--config', join(home, 'peagen.json')], {
    cwd: home,
    env: { ...process.env, PEAGEN_HOME: home, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (chunk) => (log += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let record;
  for (let i = 0; i < 400 && !record; i++) {
    const file = join(home, 'daemon.json');
    if (existsSync(file)) record = JSON.parse(readFileSync(file, 'utf8'));
    else if (child.exitCode !== null) break;
    else await delay(50);
  }
  if (!record) throw new Error(`the daemon did not start:\n${log}`);
  const token = readFileSync(join(home, 'daemon.token'), 'utf8');
  const clients = [];
  for (let i = 0; i < maxClients; i++) clients.push(await DaemonClient.connect(record.address, token, `bench-${i}`));
  let updates = 0;
  // Every client follows task updates the way `peagen task submit --wait` does.
  for (const client of clients) client.onTaskUpdate(() => updates++);
  return {
    pid: child.pid,
    get updatesSeen() {
      return updates;
    },
    async run(shape) {
      return closedLoops(
        shape,
        async (clientIndex, index) => {
          const client = clients[clientIndex];
          const { taskId } = await client.request(SubmitTask.type, { kind: 'echo', payload: payloadOf(index, payloadBytes) });
          const { result } = await client.request(GetResult.type, { taskId, waitMs: 30_000 });
          if (result?.status !== 'ok') throw new Error(`task ${taskId}: ${JSON.stringify(result)}`);
          expectEcho(result.data, index, payloadBytes);
        },
        [child.pid],
      );
    },
    async close() {
      // A clean exit, so that --cpu-prof writes its profile.
      await clients[0].request(Shutdown.type, { drain: false }).catch(() => undefined);
      for (const client of clients) client.close();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      rmSync(home, { recursive: true, force: true });
    },
  };
}
