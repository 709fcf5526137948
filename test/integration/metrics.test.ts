/**
 * Metrics and health of real processes: a daemon (memory queue) that runs tasks and evolution
 * runs (the offline mutator, then the scripted model), scraped over HTTP; `peagen metrics`;
 * readiness of a redis:// daemon while its Redis is stopped and restarted; a warm worker pool's
 * own endpoint.
 */
import * as assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import type { Status } from '../../shared/protocol';
import { parseExposition, type Sample, sampleSum, sampleValue } from '../../daemon/observability/exposition';
import { badSortResponder } from '../fixtures/badSortMoves';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { type CliProcess, EvolveProject, NO_CONFIRMATION, parseJson, readJournalEvents, type RunOutput } from '../fixtures/evolveFixtures';
import { startOpenAiServer, type WireServer } from '../fixtures/llmWireServers';
import { startRedisServer, type RedisServer } from '../fixtures/redisServer';

/** bad_sort by counted instructions (badSortOps.ts): the metrics count the run's work, not its speed. */
const EXAMPLE = badSortOpsDir();

async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url);
  assert.equal(response.status, 200, `${url} answered ${response.status}`);
  return parseExposition(await response.text());
}

async function statusOf(project: EvolveProject, home: string): Promise<Status.Response> {
  const result = await project.run(['--json', 'daemon', 'status'], { PEAGEN_HOME: home });
  assert.equal(result.code, 0, result.stderr);
  return parseJson<Status.Response>(result);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await delay(200);
  }
}

describe('metrics and health of a real daemon (memory queue)', function () {
  this.timeout(300_000);
  const project = new EvolveProject();
  const daemon = new DaemonProcess();
  let server: WireServer;
  let metricsUrl: string;

  before(async () => {
    server = await startOpenAiServer({ responder: badSortResponder({ seed: 2 }), latencyMs: 20 });
    await daemon.start([], { ...project.env(), PEAGEN_HOME: daemon.home, PEAGEN_EXECUTOR: 'process', OPENAI_BASE_URL: server.baseUrl });
    const status = await statusOf(project, daemon.home);
    assert.ok(status.metrics?.url, `the status names the endpoint: ${JSON.stringify(status.metrics)}`);
    metricsUrl = status.metrics.url;
  });
  after(async () => {
    await daemon.stop();
    await server.close();
    project.cleanup();
  });

  it('daemon status shows the endpoint actually bound (port 0 here: an ephemeral port)', async () => {
    const result = await project.run(['daemon', 'status'], { PEAGEN_HOME: daemon.home });
    assert.match(result.stdout, /^metrics: http:\/\/127\.0\.0\.1:(\d+)\/metrics \(also \/healthz, \/readyz\)$/m, result.stdout);
    assert.doesNotMatch(result.stdout, /127\.0\.0\.1:0\//);
    const base = metricsUrl.replace(/\/metrics$/, '');
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200, await ready.text());
  });

  it('tasks and an offline evolution run show in /metrics as the work implies', async () => {
    const before = await scrape(metricsUrl);
    const echoesBefore = sampleValue(before, 'peagen_tasks_finished_total', { kind: 'echo', status: 'succeeded' }) ?? 0;
    for (let i = 0; i < 3; i++) {
      const submitted = await project.run(['task', 'submit', 'echo', '--payload', `{"n":${i}}`, '--wait', '60'], { PEAGEN_HOME: daemon.home });
      assert.equal(submitted.code, 0, submitted.stderr);
    }
    const result = await project.run(
      ['--json', 'evolve', 'run', EXAMPLE, ...NO_CONFIRMATION, '--quick', '--mutator', 'offline', '--evaluations', '4', '--project', project.dir],
      { PEAGEN_HOME: daemon.home },
    );
    assert.equal(result.code, 0, result.stderr);
    const report = parseJson<RunOutput>(result);
    const journal = readJournalEvents(report.runDir);
    const evaluations = journal.filter((event) => event.type === 'evaluation').length;
    const proposals = journal.filter((event) => event.type === 'proposal');

    const after = await scrape(metricsUrl);
    const run = { run: report.runId };
    assert.equal(sampleValue(after, 'peagen_tasks_finished_total', { kind: 'echo', status: 'succeeded' }), echoesBefore + 3);
    assert.equal(sampleValue(after, 'peagen_handler_duration_seconds_count', { kind: 'echo', status: 'succeeded' }), echoesBefore + 3);
    // The seed's evaluation is not journaled as an evaluation event, but it ran as a task.
    assert.ok(sampleSum(after, 'peagen_tasks_started_total', { kind: 'evaluate' }) >= evaluations + 1);
    assert.equal(sampleSum(after, 'peagen_tasks_started_total', { kind: 'mutate' }), proposals.length);
    assert.equal(sampleSum(after, 'peagen_evolve_evaluations_total', run), evaluations, 'one per journaled evaluation');
    assert.ok(evaluations >= 4);
    assert.equal(sampleSum(after, 'peagen_evolve_patches_total', run), proposals.length);
    assert.equal(sampleValue(after, 'peagen_evolve_patches_total', { ...run, outcome: 'applied' }) ?? 0, proposals.filter((event) => event.ok).length);
    assert.equal(sampleValue(after, 'peagen_evolve_best_objective', run), report.best?.objective);
    assert.equal(sampleValue(after, 'peagen_evolve_runs_active'), 0);
    assert.equal(sampleValue(after, 'peagen_evolve_token_budget', run), undefined, 'no budget: absent');
    assert.ok((sampleValue(after, 'peagen_sandbox_run_seconds_count', { executor: 'process' }) ?? 0) >= evaluations + 1, 'every evaluation ran in a sandbox');
    assert.ok((sampleValue(after, 'peagen_sandbox_start_seconds_count', { executor: 'process' }) ?? 0) >= evaluations + 1);
    assert.ok(sampleSum(after, 'peagen_llm_requests_total') === 0, 'the offline mutator calls no model');
    assert.equal(sampleSum(after, 'peagen_queue_pending'), 0, 'nothing left waiting');
    assert.ok(after.some((sample) => sample.name === 'peagen_process_cpu_seconds_total'), 'the default process metrics, prefixed');
    assert.ok(after.every((sample) => !Object.keys(sample.labels).some((label) => /task|program|id$/i.test(label))), 'no task or program ids in labels');
  });

  it('an LLM run counts requests, tokens, cost and latency by model, and the token budget', async () => {
    const calls = server.requests.length;
    const result = await project.run(
      ['--json', 'evolve', 'run', EXAMPLE, ...NO_CONFIRMATION, '--quick', '--mutator', 'llm-patch', '--evaluations', '3', '--budget-tokens', '500000', '--project', project.dir],
      { PEAGEN_HOME: daemon.home },
    );
    assert.equal(result.code, 0, result.stderr);
    const report = parseJson<RunOutput>(result);
    const samples = await scrape(metricsUrl);
    const answered = server.requests.length - calls;
    const ok = sampleSum(samples, 'peagen_llm_requests_total', { outcome: 'ok' });
    assert.ok(answered > 0);
    assert.equal(ok, report.progress.llmCalls, `requests counted: ${ok}, the run says ${report.progress.llmCalls}, the server saw ${answered}`);
    const model = samples.find((sample) => sample.name === 'peagen_llm_requests_total')?.labels.model;
    assert.ok(model && model.includes('/'), `labelled backend/model: ${model}`);
    assert.equal(sampleValue(samples, 'peagen_llm_tokens_total', { model, direction: 'input' }), report.progress.tokens.inputTokens);
    assert.equal(sampleValue(samples, 'peagen_llm_tokens_total', { model, direction: 'output' }), report.progress.tokens.outputTokens);
    assert.equal(sampleValue(samples, 'peagen_llm_latency_seconds_count', { model }), ok);
    assert.ok((sampleValue(samples, 'peagen_llm_latency_seconds_sum', { model }) ?? 0) >= ok * 0.015, 'the server answers after 20 ms');
    assert.equal(sampleValue(samples, 'peagen_evolve_token_budget', { run: report.runId }), 500_000);
    assert.equal(sampleValue(samples, 'peagen_evolve_tokens_used', { run: report.runId }), report.progress.tokens.inputTokens + report.progress.tokens.outputTokens);
  });

  it('peagen metrics prints the values readably, and parsed with --json', async () => {
    const readable = await project.run(['metrics'], { PEAGEN_HOME: daemon.home });
    assert.equal(readable.code, 0, readable.stderr);
    assert.match(readable.stdout, /^tasks\s+finished\s+echo status=succeeded\s+\d+$/m, readable.stdout);
    assert.match(readable.stdout, /^evolve\s+runs active\s+0$/m);
    const json = await project.run(['--json', 'metrics'], { PEAGEN_HOME: daemon.home });
    assert.equal(json.code, 0, json.stderr);
    const parsed = parseJson<{ url: string; samples: Sample[] }>(json);
    assert.equal(parsed.url, metricsUrl);
    assert.ok((sampleValue(parsed.samples, 'peagen_tasks_finished_total', { kind: 'echo', status: 'succeeded' }) ?? 0) >= 3);
    const noDaemon = await project.run(['metrics'], { PEAGEN_HOME: project.home });
    assert.equal(noDaemon.code, 3, 'no daemon: exit code 3');
  });
});

describe('readiness of a redis:// daemon, and a warm worker pool endpoint', function () {
  this.timeout(300_000);
  const project = new EvolveProject();
  const daemon = new DaemonProcess();
  let redis: RedisServer;
  let worker: CliProcess | undefined;

  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    worker?.child.kill('SIGKILL');
    await worker?.exited;
    await daemon.stop();
    await redis.stop();
    project.cleanup();
  });

  it('/readyz answers 503 with the reason while Redis is down, and 200 again once it is back', async () => {
    // No slots of its own: the warm pool below serves the tasks.
    await daemon.start(['--no-workers'], { ...project.env(), PEAGEN_HOME: daemon.home, PEAGEN_EXECUTOR: 'process', QUEUE_URL: redis.url });
    const base = (await statusOf(project, daemon.home)).metrics!.url!.replace(/\/metrics$/, '');
    assert.equal((await fetch(`${base}/readyz`)).status, 200);
    process.kill(redis.pid, 'SIGKILL');
    const down = await waitFor('readyz 503', async () => {
      const response = await fetch(`${base}/readyz`);
      return response.status === 503 ? response.text() : undefined;
    });
    assert.match(down, /not ready: queue redis:\/\/127\.0\.0\.1:\d+ unreachable/, down);
    assert.equal((await fetch(`${base}/healthz`)).status, 200, 'the process is still up');
    await redis.restart();
    await waitFor('readyz 200', async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined));
  });

  it("a warm worker pool serves its own /metrics: spawns and exits by reason", async () => {
    worker = project.start(['worker', 'start', '--warm-pool', '1', '--max-workers', '2', '--exit-after-idle', '2'], {
      QUEUE_URL: redis.url,
      PEAGEN_EXECUTOR: 'process',
    });
    const url = await waitFor('the worker pool metrics line', async () => /metrics on (http:\S+\/metrics)/.exec(worker!.stderr)?.[1]);
    // One warm process is made; after 2 s idle the pool scales to zero (exit reason idle).
    const samples = await waitFor('an idle exit', async () => {
      const scraped = await scrape(url);
      return (sampleValue(scraped, 'peagen_worker_exits_total', { reason: 'idle' }) ?? 0) >= 1 ? scraped : undefined;
    });
    assert.ok(sampleSum(samples, 'peagen_worker_spawns_total') >= 1);
    assert.equal(sampleSum(samples, 'peagen_queue_pending'), 0, 'queue gauges are the daemon\'s, not repeated by pools');
    const readable = await project.run(['metrics', '--url', url]);
    assert.equal(readable.code, 0, readable.stderr);
    assert.match(readable.stdout, /^worker\s+exits\s+reason=idle\s+\d+$/m, readable.stdout);
    assert.match(readable.stdout, /^warm\s+pool live workers\s+caps=cpu\s+0$/m, 'scaled to zero');
    // A task brings it back; the process that ran it exits `completed`.
    const submitted = await project.run(['task', 'submit', 'echo', '--payload', '{"n":1}', '--wait', '60'], { PEAGEN_HOME: daemon.home });
    assert.equal(submitted.code, 0, submitted.stderr);
    const after = await waitFor('a completed exit', async () => {
      const scraped = await scrape(url);
      return (sampleValue(scraped, 'peagen_worker_exits_total', { reason: 'completed' }) ?? 0) >= 1 ? scraped : undefined;
    });
    assert.equal(sampleValue(after, 'peagen_tasks_finished_total', { kind: 'echo', status: 'succeeded' }), 1);
    assert.ok(sampleSum(after, 'peagen_worker_spawns_total') >= 2);
    worker.child.kill('SIGTERM');
    const ended = await worker.exited;
    assert.equal(ended.code, 0, ended.stderr);
  });
});
