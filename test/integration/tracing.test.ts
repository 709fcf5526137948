/**
 * Traces end to end: a real daemon (dist/daemon.js) exporting to a local OTLP/HTTP receiver
 * while `evolve run` runs in it, with one-shot workers (a process per task). One run is one
 * trace: the run's root span, a span per mutate and evaluate job under it, and under each the
 * span of the task that served it, sent by the child process that ran it. The trace crosses
 * the memory and the Redis queues; without an endpoint nothing is sent and tasks carry no
 * trace; with an unreachable endpoint the run completes and the daemon still stops promptly.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { EvolveProject, NO_CONFIRMATION, parseJson, type RunOutput } from '../fixtures/evolveFixtures';
import { startOtlpReceiver, startSilentEndpoint, type OtlpReceiver, type ReceivedSpan } from '../fixtures/otlpReceiver';
import { tempDir } from '../fixtures/paths';
import { startRedisServer, type RedisServer } from '../fixtures/redisServer';

const NO_LLM = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_API_KEY: '' };
/** bad_sort by counted instructions (badSortOps.ts): a trace follows the run's tasks, not what they measure. */
const EXAMPLE = badSortOpsDir();

/** A daemon with one-shot workers on the process executor (the fastest; isolation is not under test here). */
async function startDaemon(daemon: DaemonProcess, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = tempDir('tracing-config');
  const configFile = path.join(dir, 'peagen.json');
  fs.writeFileSync(configFile, JSON.stringify({ worker: { mode: 'one-shot', concurrency: 2 } }));
  try {
    // On a shared (Redis) queue a one-shot worker, a process that did not submit the task, takes
    // an example directory only inside its roots; bad_sort_ops is laid out in a temp directory,
    // outside the default ones (the cwd and examples/).
    await daemon.start(['--config', configFile], { ...NO_LLM, PEAGEN_EXECUTOR: 'process', OTEL_EXPORTER_OTLP_ENDPOINT: '', PEAGEN_WORKER_ROOTS: EXAMPLE, ...env });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** SIGTERM, as a service manager stops it: the daemon stops its runs and flushes its spans. Returns how long it took. */
async function stopGracefully(daemon: DaemonProcess): Promise<number> {
  const started = performance.now();
  if (daemon.alive) {
    const exited = new Promise((resolve) => daemon.child!.once('exit', resolve));
    daemon.child!.kill('SIGTERM');
    await exited;
  }
  return performance.now() - started;
}

async function evolve(project: EvolveProject, daemon: DaemonProcess, evaluations: number): Promise<RunOutput> {
  const result = await project.run(['--json', 'evolve', 'run', EXAMPLE, '--quick', '--mutator', 'offline', '--evaluations', String(evaluations), ...NO_CONFIRMATION, '--project', project.dir], {
    PEAGEN_HOME: daemon.home,
  });
  assert.equal(result.code, 0, `${result.stderr}\n--- daemon log ---\n${daemon.log}`);
  assert.match(result.stderr, /started in the daemon/);
  return parseJson<RunOutput>(result);
}

interface RunTrace {
  root: ReceivedSpan;
  jobs: ReceivedSpan[];
  tasks: ReceivedSpan[];
}

/** The run's spans, checked to form one trace: root, job spans under it, task spans under those. */
function runTrace(spans: ReceivedSpan[], runId: string, runner: { service: 'peagen-daemon' | 'peagen-cli'; pid?: number }): RunTrace {
  const names = spans.map((span) => span.name).join(', ');
  const roots = spans.filter((span) => span.name === `evolve run ${runId}`);
  assert.equal(roots.length, 1, `one root span for the run; received: ${names}`);
  const root = roots[0]!;
  assert.equal(root.parentSpanId, '', 'the run span is the root of its trace');
  assert.equal(root.resource['service.name'], runner.service);
  if (runner.pid !== undefined) assert.equal(root.resource['process.pid'], runner.pid);

  const ofRun = spans.filter((span) => span.attributes['peagen.run.id'] === runId);
  assert.deepEqual([...new Set(ofRun.map((span) => span.traceId))], [root.traceId], 'every span of the run is in one trace');
  const inTrace = spans.filter((span) => span.traceId === root.traceId);
  assert.ok(inTrace.every((span) => span.attributes['peagen.run.id'] === runId), 'the trace holds only this run');

  const jobs = inTrace.filter((span) => span.name === 'mutate' || span.name === 'evaluate');
  for (const job of jobs) assert.equal(job.parentSpanId, root.spanId, `${job.name} hangs under the run span`);
  const tasks = inTrace.filter((span) => span.name.startsWith('task '));
  const jobById = new Map(jobs.map((job) => [job.spanId, job]));
  for (const task of tasks) {
    const job = jobById.get(task.parentSpanId);
    assert.ok(job, `${task.name} (${task.attributes['peagen.task.id']}) hangs under a job span`);
    assert.equal(task.name, `task ${job.name}`, 'a mutate task under a mutate job, an evaluate task under an evaluate job');
    assert.equal(task.attributes['peagen.task.kind'], job.name);
    // 1, unless a loaded machine made a delivery fail and the task ran again.
    assert.ok(Number(task.attributes['peagen.task.attempt']) >= 1);
    assert.equal(typeof task.attributes['peagen.task.status'], 'string');
  }
  for (const job of jobs) assert.ok(tasks.some((task) => task.parentSpanId === job.spanId), `the ${job.name} job span has its task's span under it`);
  return { root, jobs, tasks };
}

/** Every task record the Redis queue holds under `prefix`, as stored. */
async function taskRecords(url: string, prefix: string): Promise<Record<string, unknown>[]> {
  const redis = new Redis(url, { lazyConnect: true });
  await redis.connect();
  try {
    const records: Record<string, unknown>[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `{${prefix}}:task:*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const text = await redis.hget(key, 'task');
        if (text) records.push(JSON.parse(text) as Record<string, unknown>);
      }
    } while (cursor !== '0');
    return records;
  } finally {
    redis.disconnect();
  }
}

describe('traces of evolution runs (real daemon, one-shot workers, OTLP/HTTP receiver)', function () {
  this.timeout(300_000);
  let receiver: OtlpReceiver;
  const daemons: DaemonProcess[] = [];
  const projects: EvolveProject[] = [];
  let redis: RedisServer | undefined;

  before(async () => (receiver = await startOtlpReceiver()));
  after(async () => {
    for (const daemon of daemons) await daemon.stop();
    for (const project of projects) project.cleanup();
    await receiver?.close();
    await redis?.stop();
  });
  function fresh(): { daemon: DaemonProcess; project: EvolveProject } {
    const daemon = new DaemonProcess();
    const project = new EvolveProject();
    daemons.push(daemon);
    projects.push(project);
    return { daemon, project };
  }

  it('one trace per run: the run span, its mutate and evaluate job spans, and the task spans from the one-shot processes', async () => {
    const { daemon, project } = fresh();
    await startDaemon(daemon, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const daemonPid = daemon.child!.pid!;
    const report = await evolve(project, daemon, 4);
    const stopMs = await stopGracefully(daemon);
    console.log(`      daemon stop (with the final flush) took ${stopMs.toFixed(0)} ms; ${receiver.spans.length} spans in ${receiver.requests} export requests`);
    assert.deepEqual(receiver.rejected, [], 'every export is OTLP/HTTP JSON at /v1/traces');

    const { jobs, tasks } = runTrace(receiver.spans, report.runId, { service: 'peagen-daemon', pid: daemonPid });
    const evaluateTasks = tasks.filter((task) => task.name === 'task evaluate');
    const mutateTasks = tasks.filter((task) => task.name === 'task mutate');
    // The seed and 4 children (a would-be best is measured again: more are fine).
    assert.ok(evaluateTasks.length >= 5, `${evaluateTasks.length} evaluate task spans`);
    assert.ok(mutateTasks.length >= 4, `${mutateTasks.length} mutate task spans`);
    assert.ok(jobs.some((job) => job.name === 'mutate') && jobs.some((job) => job.name === 'evaluate'));
    // One-shot: every task ran in a process of its own, not in the daemon.
    const pids = new Set(tasks.map((task) => task.resource['process.pid']));
    assert.ok(!pids.has(daemonPid), 'tasks ran outside the daemon');
    assert.ok(pids.size > 1, `task spans come from ${pids.size} process(es)`);
    assert.ok(tasks.every((task) => task.resource['service.name'] === 'peagen-task'));
  });

  it('a run in the CLI\'s own process (--sync, no daemon) is one trace too, exported by the CLI before it exits', async () => {
    const { project } = fresh();
    const result = await project.run(['--json', 'evolve', 'run', EXAMPLE, '--sync', '--quick', '--mutator', 'offline', '--evaluations', '3', ...NO_CONFIRMATION, '--project', project.dir], {
      ...NO_LLM,
      PEAGEN_EXECUTOR: 'process',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    assert.equal(result.code, 0, result.stderr);
    const report = parseJson<RunOutput>(result);
    // Nothing waits for a late export: the CLI flushed its spans before exiting.
    const { root, jobs, tasks } = runTrace(receiver.spans, report.runId, { service: 'peagen-cli' });
    assert.ok(jobs.some((job) => job.name === 'mutate') && jobs.some((job) => job.name === 'evaluate'));
    assert.ok(tasks.filter((task) => task.name === 'task evaluate').length >= 4, `${tasks.length} task spans`);
    // The embedded engine's workers run in the CLI process: their task spans come from it.
    assert.ok(tasks.every((task) => task.resource['process.pid'] === root.resource['process.pid'] && task.resource['service.name'] === 'peagen-cli'));
  });

  it('the trace crosses the Redis queue: task records carry the traceparent of their job span', async () => {
    redis = await startRedisServer();
    const { daemon, project } = fresh();
    const prefix = `tracing-on-${process.pid}`;
    await startDaemon(daemon, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, QUEUE_URL: `${redis.url}?prefix=${prefix}` });
    const daemonPid = daemon.child!.pid!;
    const report = await evolve(project, daemon, 2);
    await stopGracefully(daemon);
    const { jobs, tasks } = runTrace(receiver.spans, report.runId, { service: 'peagen-daemon', pid: daemonPid });
    const records = await taskRecords(redis.url, prefix);
    assert.ok(records.length >= 3, `${records.length} task records in Redis`);
    for (const record of records) {
      const job = jobs.find((span) => (record.trace as { traceparent?: string } | undefined)?.traceparent === `00-${span.traceId}-${span.spanId}-01`);
      assert.ok(job, `task ${String(record.id)} carries the traceparent of a job span: ${JSON.stringify(record.trace)}`);
      assert.ok(tasks.some((task) => task.attributes['peagen.task.id'] === record.id && task.parentSpanId === job.spanId), `task ${String(record.id)} has its span under that job`);
    }
  });

  it('with no endpoint, nothing is sent and task records carry no trace field', async () => {
    redis ??= await startRedisServer();
    const { daemon, project } = fresh();
    const prefix = `tracing-off-${process.pid}`;
    const before = receiver.requests;
    await startDaemon(daemon, { QUEUE_URL: `${redis.url}?prefix=${prefix}` });
    await evolve(project, daemon, 2);
    await stopGracefully(daemon);
    assert.equal(receiver.requests, before, 'no export requests');
    const records = await taskRecords(redis.url, prefix);
    assert.ok(records.length >= 3, `${records.length} task records in Redis`);
    for (const record of records) assert.equal('trace' in record, false, JSON.stringify(record).slice(0, 300));
  });

  it('with the endpoint unreachable (a collector that never answers), the run completes and the daemon still stops promptly', async () => {
    const silent = await startSilentEndpoint();
    try {
      const { daemon, project } = fresh();
      await startDaemon(daemon, { OTEL_EXPORTER_OTLP_ENDPOINT: silent.url });
      const started = performance.now();
      const report = await evolve(project, daemon, 3);
      const runMs = performance.now() - started;
      const stopMs = await stopGracefully(daemon);
      const warnings = daemon.log.split('\n').filter((line) => /traces are dropped/.test(line));
      console.log(`      run with an unreachable collector: ${runMs.toFixed(0)} ms; daemon stop ${stopMs.toFixed(0)} ms; ${silent.connections} connections held; ${warnings.length} warning(s)`);
      assert.ok(silent.connections > 0, 'spans were being sent to it');
      assert.equal(report.stopReason, 'evaluations');
      assert.equal(daemon.child!.exitCode, 0, daemon.log);
      // Generous: the drain, the run's checkpoint and the bounded flush (3 s at most), on a loaded machine.
      assert.ok(stopMs < 30_000, `the daemon took ${stopMs} ms to stop`);
      assert.ok(warnings.length <= 1, warnings.join('\n'));
    } finally {
      await silent.close();
    }
  });
});
