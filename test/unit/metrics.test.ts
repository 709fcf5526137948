import * as assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import * as net from 'node:net';
import { Registry } from 'prom-client';
import { describeSamples } from '../../daemon/cli/commands/metrics';
import type { ProposalEvent, RunEvent } from '../../daemon/evolution/runEvents';
import type { LlmExchange } from '../../daemon/evolution/mutation/Mutator';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { WorkerPool } from '../../daemon/fabric/worker/WorkerPool';
import { createRegistry } from '../../daemon/handlers';
import { EvolutionMetrics } from '../../daemon/observability/evolutionMetrics';
import { parseExposition, type Sample, sampleSum, sampleValue } from '../../daemon/observability/exposition';
import { createPeagenMetrics, type PeagenMetrics } from '../../daemon/observability/metrics';
import { startMetricsServer } from '../../daemon/observability/metricsServer';
import { queueMetricSource } from '../../daemon/observability/queueCollector';
import { instrumentExecutor } from '../../daemon/observability/sandboxMetrics';
import { finishedStatus, instrumentWorkers } from '../../daemon/observability/workerMetrics';
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import { newTask, type Result } from '../../shared/task';
import { TEST_PLUGIN } from '../fixtures/paths';

function fresh(): PeagenMetrics {
  return createPeagenMetrics(new Registry(), { processMetrics: false });
}

async function scrape(metrics: PeagenMetrics): Promise<Sample[]> {
  return parseExposition(await metrics.registry.metrics());
}

describe('metrics: queue gauges read at scrape time', () => {
  it('shows pending, in-flight, delayed, dead and the oldest pending age per requirement set, as the queue is now', async () => {
    const metrics = fresh();
    const queue = new MemoryQueue({ retryBaseMs: 60_000 });
    metrics.addSource(queueMetricSource(queue));
    for (let i = 0; i < 3; i++) await queue.enqueue(newTask({ kind: 'mutate', payload: {}, requires: ['llm', 'cpu'] }));
    await queue.enqueue(newTask({ kind: 'evaluate', payload: {}, requires: ['cpu'] }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const claim = await queue.claim({ consumer: 'w/0', accepts: [{ kind: 'evaluate', provides: ['cpu'] }], blockMs: 0 });
    assert.ok(claim);
    await queue.announceWorker({ id: 'p1', host: 'h', pid: 1, caps: ['llm', 'cpu'], kinds: ['mutate'], mode: 'in-process', slots: 4, busy: 0, startedAt: 0, seenAt: 0 }, 60_000);
    await queue.announceWorker({ id: 'p2', host: 'h', pid: 2, caps: ['cpu'], kinds: ['evaluate'], mode: 'in-process', slots: 2, busy: 2, startedAt: 0, seenAt: 0 }, 60_000);

    let samples = await scrape(metrics);
    const mutate = { kind: 'mutate', requires: 'cpu,llm' };
    assert.equal(sampleValue(samples, 'peagen_queue_pending', mutate), 3);
    assert.equal(sampleValue(samples, 'peagen_queue_in_flight', { kind: 'evaluate', requires: 'cpu' }), 1);
    const age = sampleValue(samples, 'peagen_queue_oldest_pending_age_seconds', mutate);
    assert.ok(age !== undefined && age >= 0.25 && age < 60, `the oldest mutate task waited about 0.3 s, not ${age}`);
    assert.equal(sampleValue(samples, 'peagen_queue_dead'), 0);
    assert.equal(sampleValue(samples, 'peagen_cluster_workers', { caps: 'cpu,llm' }), 1, 'caps are sorted in the label');
    assert.equal(sampleValue(samples, 'peagen_cluster_worker_slots', { caps: 'cpu,llm' }), 4);
    assert.equal(sampleValue(samples, 'peagen_cluster_worker_busy_slots', { caps: 'cpu,llm' }), 0);
    assert.equal(sampleValue(samples, 'peagen_cluster_worker_busy_slots', { caps: 'cpu' }), 2);
    // The pools that could take each set: caps including it and a handler of the kind (p2's cpu
    // caps are within p1's, but p1 serves no evaluate).
    assert.equal(sampleValue(samples, 'peagen_queue_capable_slots', mutate), 4);
    assert.equal(sampleValue(samples, 'peagen_queue_capable_busy_slots', mutate), 0);
    assert.equal(sampleValue(samples, 'peagen_queue_capable_slots', { kind: 'evaluate', requires: 'cpu' }), 2);
    assert.equal(sampleValue(samples, 'peagen_queue_capable_busy_slots', { kind: 'evaluate', requires: 'cpu' }), 2);

    // The evaluate task fails for good and the mutate tasks are claimed: the gauges follow.
    await queue.fail(claim, { code: 'broken', message: 'no', retryable: false });
    for (let i = 0; i < 3; i++) await queue.claim({ consumer: 'w/1', accepts: [{ kind: 'mutate', provides: ['cpu', 'llm'] }], blockMs: 0 });
    samples = await scrape(metrics);
    assert.equal(sampleValue(samples, 'peagen_queue_dead'), 1);
    assert.equal(sampleSum(samples, 'peagen_queue_pending'), 0);
    assert.equal(sampleValue(samples, 'peagen_queue_in_flight', mutate), 3);
    assert.equal(sampleValue(samples, 'peagen_queue_oldest_pending_age_seconds', mutate), 0);
    assert.equal(sampleValue(samples, 'peagen_queue_in_flight', { kind: 'evaluate' }), undefined, 'a drained requirement set leaves no stale series');
    await queue.close();
  });

  it('leaves the queue gauges out (and still serves the rest) when the queue does not answer', async () => {
    const metrics = fresh();
    const queue = new MemoryQueue();
    let down = false;
    // A queue whose server went away: every call fails (as Redis does when stopped).
    const reachable = new Proxy(queue, {
      get: (target, key) => {
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? (...args: unknown[]) => (down ? Promise.reject(new Error('connection refused')) : value.apply(target, args)) : value;
      },
    });
    metrics.addSource(queueMetricSource(reachable));
    await queue.enqueue(newTask({ kind: 'echo', payload: {} }));
    assert.equal(sampleValue(await scrape(metrics), 'peagen_queue_pending', { kind: 'echo' }), 1);
    down = true;
    const samples = await scrape(metrics);
    assert.equal(sampleValue(samples, 'peagen_queue_pending', { kind: 'echo' }), undefined);
    assert.equal(sampleValue(samples, 'peagen_evolve_runs_active'), 0);
    await queue.close();
  });
});

describe('metrics: tasks and worker processes', () => {
  it('names how a task ended', () => {
    const result = (status: Result['status'], code?: string): Result => ({ taskId: 't', status, attempts: 1, ...(code && { error: { code, message: '', retryable: false } }) });
    assert.equal(finishedStatus('done', result('ok')), 'succeeded');
    assert.equal(finishedStatus('done', result('error', 'timeout')), 'failed');
    assert.equal(finishedStatus('done', result('skip', 'cancelled')), 'cancelled');
    assert.equal(finishedStatus('retrying', undefined), 'failed');
    assert.equal(finishedStatus('dead', result('error', 'dead_letter')), 'failed');
    assert.equal(finishedStatus('cancelled', result('skip', 'cancelled')), 'cancelled');
    assert.equal(finishedStatus('stale', undefined), 'lease_lost');
    assert.equal(finishedStatus('released', undefined), 'released');
  });

  it("counts a real pool's tasks by kind and status, with their durations", async () => {
    const metrics = fresh();
    const queue = new MemoryQueue();
    const worker = new WorkerPool({ queue, registry: createRegistry([TEST_PLUGIN]), caps: ['cpu'], concurrency: 2, mode: 'in-process', claimBlockMs: 50 });
    instrumentWorkers(worker, metrics);
    worker.start();
    const ends = [];
    for (const payload of [{ n: 1 }, { n: 2 }]) {
      const ended = once(worker, 'taskEnd');
      await queue.enqueue(newTask({ kind: 'echo', payload }));
      ends.push(await ended);
    }
    const bad = once(worker, 'taskEnd');
    await queue.enqueue(newTask({ kind: 'sleep', payload: { ms: 'long' } }));
    await bad;
    await worker.stop({ drain: true });
    await queue.close();
    const samples = await scrape(metrics);
    assert.equal(sampleValue(samples, 'peagen_tasks_started_total', { kind: 'echo' }), 2);
    assert.equal(sampleValue(samples, 'peagen_tasks_finished_total', { kind: 'echo', status: 'succeeded' }), 2);
    assert.equal(sampleValue(samples, 'peagen_tasks_finished_total', { kind: 'sleep', status: 'failed' }), 1, 'an invalid payload is a failed task');
    assert.equal(sampleValue(samples, 'peagen_handler_duration_seconds_count', { kind: 'echo', status: 'succeeded' }), 2);
    assert.ok(sampleSum(samples, 'peagen_handler_duration_seconds_sum') > 0);
    assert.equal(sampleSum(samples, 'peagen_warm_pool_live_workers'), 0, 'an in-process pool has no worker processes to report');
  });

  it('counts spawns by caps and exits by reason, and reports live and ready processes at scrape time', async () => {
    const metrics = fresh();
    const spawner = Object.assign(new EventEmitter(), {
      live: 3,
      status: () => ({ caps: ['llm', 'cpu'], processes: spawner.live, ready: 2 }),
    });
    const remove = instrumentWorkers(spawner, metrics);
    for (let i = 0; i < 3; i++) spawner.emit('spawn');
    spawner.emit('exit', 1, 'completed');
    spawner.emit('exit', 2, 'idle');
    spawner.emit('exit', 3, 'idle');
    let samples = await scrape(metrics);
    assert.equal(sampleValue(samples, 'peagen_worker_spawns_total', { caps: 'cpu,llm' }), 3);
    assert.equal(sampleValue(samples, 'peagen_worker_exits_total', { reason: 'idle' }), 2);
    assert.equal(sampleValue(samples, 'peagen_worker_exits_total', { reason: 'completed' }), 1);
    assert.equal(sampleValue(samples, 'peagen_warm_pool_live_workers', { caps: 'cpu,llm' }), 3);
    assert.equal(sampleValue(samples, 'peagen_warm_pool_ready_workers', { caps: 'cpu,llm' }), 2);
    spawner.live = 0;
    samples = await scrape(metrics);
    assert.equal(sampleValue(samples, 'peagen_warm_pool_live_workers', { caps: 'cpu,llm' }), 0, 'read at scrape time: scaled to zero');
    remove();
    spawner.emit('spawn');
    assert.equal(sampleValue(await scrape(metrics), 'peagen_worker_spawns_total', { caps: 'cpu,llm' }), 3, 'nothing is counted once removed');
  });
});

describe('metrics: sandboxes', () => {
  it('times a sandbox start and run per executor', async () => {
    const metrics = fresh();
    const executor = instrumentExecutor(new ProcessExecutor(() => {}), metrics);
    const result = await executor.run({ command: ['sh', '-c', 'sleep 0.2'] });
    assert.equal(result.exitCode, 0);
    await executor.close();
    const samples = await scrape(metrics);
    assert.equal(sampleValue(samples, 'peagen_sandbox_start_seconds_count', { executor: 'process' }), 1);
    assert.equal(sampleValue(samples, 'peagen_sandbox_run_seconds_count', { executor: 'process' }), 1);
    const run = sampleValue(samples, 'peagen_sandbox_run_seconds_sum', { executor: 'process' })!;
    const start = sampleValue(samples, 'peagen_sandbox_start_seconds_sum', { executor: 'process' })!;
    assert.ok(run >= 0.15, `the program ran about 0.2 s, not ${run}`);
    assert.ok(start >= 0 && start < run + 30, `start ${start} s`);
  });
});

describe('metrics: evolution runs and LLM calls', () => {
  const proposal = (overrides: Partial<ProposalEvent>): RunEvent => ({
    type: 'proposal',
    job: 0,
    ok: true,
    mutator: 'llm-patch',
    model: 'openai/gpt-test',
    exchanges: [],
    repairs: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    ...overrides,
  });
  const evaluation = (correct: boolean): RunEvent =>
    ({
      type: 'evaluation',
      job: 0,
      childId: 'c',
      round: 'first',
      seed: 1,
      evaluation: { correct, objective: correct ? 1 : null, direction: 'minimize', metrics: {}, executor: 'process', exitCode: 0, wallMs: 1 },
    });
  const exchange = (inputTokens: number, outputTokens: number, latencyMs: number, costUsd: number): LlmExchange =>
    ({ backend: 'openai', model: 'gpt-test', request: { messages: [], seed: 1 }, response: { text: '' }, usage: { inputTokens, outputTokens }, latencyMs, costUsd });

  it('counts requests, tokens, cost and latency by model, patches and evaluations by run', async () => {
    const metrics = fresh();
    const runs = new EvolutionMetrics(metrics);
    runs.runStarted('r1', { budgetTokens: 5000 });
    const recorded: Record<string, LlmExchange> = { a: exchange(100, 20, 1500, 0.01), b: exchange(50, 10, 500, 0.005) };
    runs.onEvent('r1', proposal({ exchanges: ['a', 'b'], repairs: 1 }), (hash) => recorded[hash]);
    runs.onEvent('r1', proposal({ ok: false, reason: 'no_match', exchanges: ['a'] }), (hash) => recorded[hash]);
    runs.onEvent('r1', proposal({ ok: false, reason: 'llm_error', message: 'server: 500', exchanges: [] }), () => undefined);
    runs.onEvent('r1', proposal({ ok: false, reason: 'llm_error', message: 'aborted: the run stopped', exchanges: [] }), () => undefined);
    runs.onEvent('r1', proposal({ mutator: 'offline', model: undefined }), () => undefined);
    runs.onEvent('r1', evaluation(true), () => undefined);
    runs.onEvent('r1', evaluation(false), () => undefined);
    const samples = await scrape(metrics);
    const model = { model: 'openai/gpt-test' };
    assert.equal(sampleValue(samples, 'peagen_llm_requests_total', { ...model, outcome: 'ok' }), 3);
    assert.equal(sampleValue(samples, 'peagen_llm_requests_total', { ...model, outcome: 'error' }), 1, 'an aborted call is not an error');
    assert.equal(sampleValue(samples, 'peagen_llm_tokens_total', { ...model, direction: 'input' }), 250);
    assert.equal(sampleValue(samples, 'peagen_llm_tokens_total', { ...model, direction: 'output' }), 50);
    assert.ok(Math.abs(sampleValue(samples, 'peagen_llm_cost_usd_total', model)! - 0.025) < 1e-9);
    assert.equal(sampleValue(samples, 'peagen_llm_latency_seconds_count', model), 3);
    assert.equal(sampleValue(samples, 'peagen_llm_latency_seconds_sum', model), 3.5);
    assert.equal(sampleValue(samples, 'peagen_evolve_patches_total', { run: 'r1', outcome: 'applied' }), 2, 'the LLM patch and the offline child');
    assert.equal(sampleValue(samples, 'peagen_evolve_patches_total', { run: 'r1', outcome: 'rejected' }), 1, 'a failed LLM call is no patch');
    assert.equal(sampleValue(samples, 'peagen_evolve_evaluations_total', { run: 'r1', outcome: 'ok' }), 1);
    assert.equal(sampleValue(samples, 'peagen_evolve_evaluations_total', { run: 'r1', outcome: 'failed' }), 1);
    assert.equal(sampleValue(samples, 'peagen_evolve_token_budget', { run: 'r1' }), 5000);
    assert.equal(sampleValue(samples, 'peagen_evolve_cost_budget_usd', { run: 'r1' }), undefined, 'no USD budget: absent');
    assert.equal(sampleValue(samples, 'peagen_evolve_runs_active'), 1);
  });

  it('keeps the run label for active runs and the last 20 finished ones only', async () => {
    const metrics = fresh();
    const runs = new EvolutionMetrics(metrics);
    runs.runStarted('long', { budgetUsd: 1 });
    for (let i = 0; i < 25; i++) {
      const id = `run-${i}`;
      runs.runStarted(id, { budgetUsd: 2 });
      runs.onEvent(id, evaluation(true), () => undefined);
      runs.onProgress({ runId: id, best: { id: 'b', objective: i, generation: 1, confirmed: true }, tokens: { inputTokens: 1, outputTokens: 2 }, costUsd: 0.5 } as never);
      runs.runFinished(id);
    }
    const samples = await scrape(metrics);
    const labelled = new Set(samples.filter((sample) => sample.labels.run !== undefined).map((sample) => sample.labels.run));
    assert.deepEqual([...labelled].sort(), ['long', ...Array.from({ length: 20 }, (_, i) => `run-${i + 5}`)].sort());
    assert.equal(sampleValue(samples, 'peagen_evolve_best_objective', { run: 'run-24' }), 24);
    assert.equal(sampleValue(samples, 'peagen_evolve_tokens_used', { run: 'run-24' }), 3);
    assert.equal(sampleValue(samples, 'peagen_evolve_runs_active'), 1);
  });
});

describe('metrics: exposition text', () => {
  it('reads what prom-client writes, escapes and histograms included', () => {
    const samples = parseExposition(
      [
        '# HELP a_seconds A.',
        '# TYPE a_seconds histogram',
        'a_seconds_bucket{le="+Inf",model="x \\"q\\" \\\\ y"} 3',
        'a_seconds_sum{model="x"} 1.5',
        'a_seconds_count{model="x"} 3',
        '# TYPE g gauge',
        'g 1e3',
        'nan_one NaN',
      ].join('\n'),
    );
    assert.equal(samples[0]!.labels.model, 'x "q" \\ y');
    assert.equal(samples[0]!.labels.le, '+Inf');
    assert.equal(samples[0]!.family, 'a_seconds');
    assert.equal(samples[0]!.type, 'histogram');
    assert.equal(sampleValue(samples, 'g'), 1000);
    assert.ok(Number.isNaN(sampleValue(samples, 'nan_one')!));
    assert.equal(samples.find((sample) => sample.name === 'nan_one')?.type, 'untyped');
  });

  it('prints samples grouped and readable', () => {
    const text = describeSamples(
      parseExposition(
        [
          '# TYPE peagen_queue_pending gauge',
          'peagen_queue_pending{kind="mutate",requires="llm"} 3',
          '# TYPE peagen_handler_duration_seconds histogram',
          'peagen_handler_duration_seconds_bucket{le="+Inf",kind="echo",status="succeeded"} 2',
          'peagen_handler_duration_seconds_sum{kind="echo",status="succeeded"} 1',
          'peagen_handler_duration_seconds_count{kind="echo",status="succeeded"} 2',
        ].join('\n'),
      ),
      false,
    );
    assert.match(text, /^queue\s+pending\s+mutate\[llm\]\s+3$/m);
    assert.match(text, /^handler\s+duration seconds\s+echo status=succeeded\s+count 2, mean 0\.5 s$/m);
  });
});

describe('metrics: the endpoint', () => {
  const quiet = (): { lines: string[]; log: (line: string) => void } => {
    const lines: string[] = [];
    return { lines, log: (line) => lines.push(line) };
  };

  it('serves /metrics, /healthz and /readyz (503 with the reason when not ready)', async () => {
    const metrics = fresh();
    metrics.tasksStarted.inc({ kind: 'echo' });
    let problems: string[] = [];
    const endpoint = await startMetricsServer({ listen: '127.0.0.1:0', metrics, readiness: async () => problems, what: 'daemon', log: quiet().log });
    try {
      const base = `http://${endpoint.status.address}`;
      assert.equal(endpoint.status.url, `${base}/metrics`);
      const scraped = await fetch(`${base}/metrics`);
      assert.equal(scraped.status, 200);
      assert.match(scraped.headers.get('content-type') ?? '', /^text\/plain/);
      assert.equal(sampleValue(parseExposition(await scraped.text()), 'peagen_tasks_started_total', { kind: 'echo' }), 1);
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
      assert.equal((await fetch(`${base}/readyz`)).status, 200);
      problems = ['queue redis://x unreachable: connection refused'];
      const notReady = await fetch(`${base}/readyz`);
      assert.equal(notReady.status, 503);
      assert.match(await notReady.text(), /not ready: queue redis:\/\/x unreachable/);
      assert.equal((await fetch(`${base}/nothing`)).status, 404);
    } finally {
      await endpoint.close();
    }
  });

  it('warns and goes on without the endpoint when its port is taken; a worker pool takes the next free one', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as net.AddressInfo).port;
    const daemonLog = quiet();
    const daemon = await startMetricsServer({ listen: `127.0.0.1:${taken}`, readiness: async () => [], what: 'daemon', log: daemonLog.log });
    const poolLog = quiet();
    const pool = await startMetricsServer({ listen: `127.0.0.1:${taken}`, readiness: async () => [], what: 'worker pool', extraPorts: 10, log: poolLog.log });
    try {
      assert.equal(daemon.status.url, undefined);
      assert.match(daemon.status.error ?? '', /in use/);
      assert.match(daemonLog.lines.join('\n'), /^warning: daemon is not serving \/metrics.*in use.*metricsListen/m);
      assert.ok(pool.status.address, `the pool found a port: ${poolLog.lines.join('\n')}`);
      assert.notEqual(pool.status.address, `127.0.0.1:${taken}`);
      assert.equal((await fetch(`http://${pool.status.address}/healthz`)).status, 200);
      const off = await startMetricsServer({ listen: 'off', readiness: async () => [], what: 'daemon', log: daemonLog.log });
      assert.match(off.status.error ?? '', /turned off/);
    } finally {
      await pool.close();
      await daemon.close();
      blocker.close();
    }
  });
});
