/**
 * The shipped alert rules (deploy/prometheus/alerts.yml, unchanged) in a real Prometheus that
 * scrapes a real daemon's /metrics (a cluster's daemon: Redis queue, its own worker slots with
 * caps [cpu]): a dead letter, a run over its token budget and a task no
 * worker can take each make their alert fire, seen through Prometheus's HTTP API, within 2
 * minutes of the moment the daemon's own endpoint first shows the crossing. The time from
 * crossing to firing is measured and printed.
 *
 * Prometheus must be installed (scripts/provision/prometheus.mjs; test/run.mjs runs it): this
 * suite fails, not skips, without it. Only this test's scrape and evaluation intervals are
 * short (1 s; PEAGEN_PROMETHEUS_TEST_INTERVAL=15s measures with the production intervals).
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parse } from 'yaml';
import { badSortResponder } from '../fixtures/badSortMoves';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { BAD_SORT_DIR, EvolveProject, NO_CONFIRMATION, parseJson, type RunOutput } from '../fixtures/evolveFixtures';
import { startOpenAiServer, type WireServer } from '../fixtures/llmWireServers';
import { CLI, REPO, TEST_PLUGIN } from '../fixtures/paths';
import { findBinary, freePort, type PrometheusAlert, PrometheusServer } from '../fixtures/prometheusServer';
import { type RedisServer, startRedisServer } from '../fixtures/redisServer';

const RULES = path.join(REPO, 'deploy', 'prometheus', 'alerts.yml');
const INTERVAL = process.env.PEAGEN_PROMETHEUS_TEST_INTERVAL ?? '1s';
/** What the issue promises: firing within 2 minutes of the crossing. */
const FIRING_BOUND_MS = 120_000;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, as far as these assertions need it (no escapes in our labels). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}


describe('Prometheus alert rules against a real daemon (real Prometheus)', function () {
  this.timeout(600_000);
  const daemon = new DaemonProcess();
  const project = new EvolveProject();
  const children: ChildProcess[] = [];
  let llm: WireServer | undefined;
  let redis: RedisServer | undefined;
  let queueUrl: string;
  let prometheus: PrometheusServer | undefined;
  let metricsUrl: string;
  const measured: string[] = [];

  /** The daemon's own /metrics, read directly (the crossing is timed here, not in Prometheus). */
  async function scrape(): Promise<Sample[]> {
    const response = await fetch(metricsUrl);
    assert.equal(response.status, 200, `GET ${metricsUrl}`);
    return parseExposition(await response.text());
  }
  const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
    samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;

  /** Polls `probe` every 100 ms until it returns a value; the time it first did. */
  async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<{ value: T; at: number }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return { value, at: Date.now() };
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await delay(100);
    }
  }

  async function firing(alertname: string, labels: Record<string, string>): Promise<PrometheusAlert | undefined> {
    const alerts = await prometheus!.alerts();
    return alerts.find((alert) => alert.state === 'firing' && alert.labels.alertname === alertname && Object.entries(labels).every(([key, value]) => alert.labels[key] === value));
  }

  /** Waits for the alert to fire, prints and returns the time since `crossedAt`. */
  async function timeToFiring(alertname: string, labels: Record<string, string>, crossedAt: number): Promise<{ alert: PrometheusAlert; ms: number }> {
    const { value: alert, at } = await waitFor(() => firing(alertname, labels), FIRING_BOUND_MS + 60_000, `${alertname} firing`);
    const ms = at - crossedAt;
    const line = `${alertname}: crossing -> firing ${(ms / 1000).toFixed(1)} s (scrape and evaluation every ${INTERVAL})`;
    measured.push(line);
    console.log(`      ${line}`);
    return { alert, ms };
  }

  /** The CLI against this daemon, asynchronously (the scripted LLM server lives in this process). */
  function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: project.dir, env: project.env({ PEAGEN_HOME: daemon.home, QUEUE_URL: queueUrl }), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  }

  before(async () => {
    assert.ok(findBinary('prometheus') && findBinary('promtool'), 'prometheus and promtool must be installed: node scripts/provision/prometheus.mjs (Debian package prometheus)');
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    llm = await startOpenAiServer({ responder: badSortResponder({ seed: 2 }), latencyMs: 20 });
    // A shared queue: the daemon accepts work that only other hosts' workers could take.
    redis = await startRedisServer();
    queueUrl = `${redis.url}?prefix=prom${process.pid}`;
    await daemon.start([], {
      QUEUE_URL: queueUrl,
      PEAGEN_METRICS_LISTEN: `127.0.0.1:${port}`,
      WORKER_PLUGINS: TEST_PLUGIN,
      OPENAI_BASE_URL: llm.baseUrl,
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
    });
    prometheus = await PrometheusServer.start({ jobs: [{ job: 'peagen-daemon', targets: [`127.0.0.1:${port}`] }], ruleFiles: [RULES], scrapeInterval: INTERVAL, evaluationInterval: INTERVAL });
    // Prometheus must have seen the values before any crossing (growth is relative to them).
    await waitFor(
      async () => ((await prometheus!.query('peagen_queue_dead{job="peagen-daemon"}')).length > 0 ? true : undefined),
      60_000,
      `Prometheus to scrape peagen_queue_dead from the daemon at ${metricsUrl}`,
    ).catch(async (error: Error) => {
      const targets = await fetch(`${prometheus!.url}/api/v1/targets`).then((response) => response.text());
      throw new Error(`${error.message}\ntargets: ${targets}\ndaemon log:\n${daemon.log.slice(-3000)}`);
    });
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    const alerts = await prometheus?.alerts().catch((error: Error) => error.message);
    console.log(`--- alerts: ${JSON.stringify(alerts)}\n--- prometheus log:\n${prometheus?.log.slice(-4000)}\n--- daemon log:\n${daemon.log.slice(-4000)}`);
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await prometheus?.stop();
    await daemon.stop();
    await llm?.close();
    await redis?.stop();
    project.cleanup();
    if (measured.length > 0) console.log(`      measured:\n${measured.map((line) => `        ${line}`).join('\n')}`);
  });

  it('promtool accepts the shipped rules, and Prometheus loaded all of them', async () => {
    const check = spawnSync(findBinary('promtool')!, ['check', 'rules', RULES], { encoding: 'utf8' });
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
    const shipped = (parse(fs.readFileSync(RULES, 'utf8')) as { groups: { rules: { alert: string }[] }[] }).groups.flatMap((group) => group.rules.map((rule) => rule.alert));
    assert.deepEqual((await prometheus!.ruleNames()).sort(), shipped.sort());
    assert.deepEqual((await prometheus!.alerts()).filter((alert) => alert.state === 'firing'), [], 'nothing fires on an idle daemon');
  });

  it('a dead letter fires PeagenDeadLettersGrowing within 2 minutes', async () => {
    const before = valueOf(await scrape(), 'peagen_queue_dead');
    assert.ok(before !== undefined, 'the daemon serves peagen_queue_dead');
    // flaky (test plugin): fails every attempt with a retryable error, dead-lettered after 3.
    const submitted = cli(['--json', 'task', 'submit', 'flaky', '--wait', '120']);
    const { at: crossedAt } = await waitFor(async () => ((valueOf(await scrape(), 'peagen_queue_dead') ?? 0) > before ? true : undefined), 150_000, 'peagen_queue_dead to grow');
    const result = await submitted;
    assert.match(result.stdout, /dead_letter/, result.stderr);
    const { alert, ms } = await timeToFiring('PeagenDeadLettersGrowing', { job: 'peagen-daemon' }, crossedAt);
    assert.equal(Number(alert.value), before + 1);
    assert.ok(ms < FIRING_BOUND_MS, `fired ${ms} ms after the crossing`);
  });

  it('a run resumed with a token budget below its spend fires PeagenTokenBudgetExceeded within 2 minutes', async () => {
    const first = await cli(['--json', 'evolve', 'run', BAD_SORT_DIR, ...NO_CONFIRMATION, '--quick', '--evaluations', '2', '--project', project.dir]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /started in the daemon/);
    const report = parseJson<RunOutput>({ ...first, signal: null });
    const spent = report.progress.tokens.inputTokens + report.progress.tokens.outputTokens;
    assert.ok(report.progress.llmCalls > 0 && spent > 1000, `the run called the scripted model (${report.progress.llmCalls} calls, ${spent} tokens)`);
    assert.equal(await firing('PeagenTokenBudgetExceeded', { run: report.runId }), undefined, 'no budget, no alert');

    const run = { run: report.runId };
    const resumed = cli(['--json', 'evolve', 'run', '--resume', report.runId, '--budget-tokens', '1000', '--project', project.dir]);
    const { at: crossedAt } = await waitFor(
      async () => {
        const samples = await scrape();
        const used = valueOf(samples, 'peagen_evolve_tokens_used', run);
        const budget = valueOf(samples, 'peagen_evolve_token_budget', run);
        return used !== undefined && budget !== undefined && used > budget ? true : undefined;
      },
      120_000,
      `peagen_evolve_tokens_used{run="${report.runId}"} above peagen_evolve_token_budget`,
    );
    const second = await resumed;
    assert.equal(second.code, 0, second.stderr);
    assert.equal(parseJson<RunOutput>({ ...second, signal: null }).stopReason, 'budget_tokens');
    const { alert, ms } = await timeToFiring('PeagenTokenBudgetExceeded', run, crossedAt);
    assert.equal(Number(alert.value), spent, 'the alert reports the run’s spend');
    assert.equal(alert.labels.severity, 'critical');
    assert.ok(ms < FIRING_BOUND_MS, `fired ${ms} ms after the crossing`);
  });

  it('a task no worker can take fires PeagenNoWorkersForPendingWork within 2 minutes', async () => {
    const labels = { kind: 'gpu-echo', requires: 'cpu,cuda12' };
    const submitted = await cli(['--json', 'task', 'submit', 'gpu-echo', '--requires', 'cpu,cuda12']);
    assert.equal(submitted.code, 0, submitted.stderr);
    const { taskId } = JSON.parse(submitted.stdout) as { taskId: string };
    try {
      const { at: crossedAt } = await waitFor(async () => ((valueOf(await scrape(), 'peagen_queue_pending', labels) ?? 0) >= 1 ? true : undefined), 60_000, 'the task to be pending');
      // `for: 1m`: pending first; firing a minute later.
      const { alert, ms } = await timeToFiring('PeagenNoWorkersForPendingWork', labels, crossedAt);
      assert.equal(Number(alert.value), 1);
      assert.ok(ms >= 60_000, `not before its 1 minute (fired after ${ms} ms)`);
      assert.ok(ms < FIRING_BOUND_MS, `fired ${ms} ms after the crossing`);
    } finally {
      await cli(['task', 'cancel', taskId]);
    }
  });
});
