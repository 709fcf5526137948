/**
 * What ships in deploy/prometheus/ against the metrics contract (docs/metrics.md) and
 * Prometheus's own tools: promtool accepts the rules and the reference configuration, the
 * rules' unit tests (alerts.test.yml, synthetic series) pass and cover every alert, every
 * alert fires within 2 minutes at the reference 15 s intervals, and the alert rules and the
 * Grafana dashboard use only documented metric names in valid PromQL.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import { findBinary } from '../fixtures/prometheusServer';
import { REPO, tempDir } from '../fixtures/paths';

const DIR = path.join(REPO, 'deploy', 'prometheus');
const RULES = path.join(DIR, 'alerts.yml');
const DASHBOARD = path.join(DIR, 'grafana-dashboard.json');

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

const alertRules = (): AlertRule[] => (parse(fs.readFileSync(RULES, 'utf8')) as { groups: { rules: AlertRule[] }[] }).groups.flatMap((group) => group.rules);
const dashboardPanels = (): Panel[] => (JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] }).panels;

/** Metric name -> type, from the tables of docs/metrics.md. */
function documentedMetrics(markdown: string): Map<string, string> {
  const metrics = new Map<string, string>();
  for (const line of markdown.split('\n')) {
    const row = /^\|\s*`([a-zA-Z_:][a-zA-Z0-9_:]*)`\s*\|\s*(counter|gauge|histogram|summary)\s*\|/.exec(line);
    if (row) metrics.set(row[1]!, row[2]!);
  }
  return metrics;
}

/** Names a histogram or summary is exposed under. */
function exposedNames(metrics: Map<string, string>): Set<string> {
  const names = new Set<string>();
  for (const [name, type] of metrics) {
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'bool', 'inf', 'nan', 'atan2']);

/**
 * The metric names a PromQL expression selects: identifiers left once strings, label
 * matchers, ranges, grouping lists and Grafana variables are removed, that are neither
 * keywords nor function calls.
 */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names: string[] = [];
  for (const match of bare.matchAll(/(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const rest = bare.slice(match.index + match[0].length);
    if (/^\s*\(/.test(rest) || PROMQL_KEYWORDS.has(match[0].toLowerCase())) continue;
    names.push(match[0]);
  }
  return names;
}

/** Prometheus duration to seconds (the forms used in rules: 30s, 1m, 1m30s, 0m). */
function seconds(duration: string): number {
  let total = 0;
  for (const [, value, unit] of duration.matchAll(/(\d+)(ms|s|m|h)/g)) total += Number(value) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as 'ms' | 's' | 'm' | 'h'];
  return total;
}

function promtool(args: string[], cwd = DIR): { status: number | null; output: string } {
  const run = spawnSync(findBinary('promtool')!, args, { cwd, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('deploy/prometheus: alert rules and dashboard', () => {
  const documented = exposedNames(documentedMetrics(fs.readFileSync(path.join(REPO, 'docs', 'metrics.md'), 'utf8')));

  describe('against docs/metrics.md (no tools needed)', () => {
    it('reads the documented names from the tables', () => {
      // A parser that found nothing would let every check below pass.
      for (const name of ['peagen_queue_pending', 'peagen_queue_dead', 'peagen_llm_tokens_total', 'peagen_evolve_best_objective', 'peagen_llm_latency_seconds_bucket']) assert.ok(documented.has(name), name);
      assert.deepEqual(metricNamesIn('sum by (le, model) (rate(peagen_llm_latency_seconds_bucket{model=~"$m"}[$__rate_interval])) / on () x_total offset 5m > bool 0.5'), ['peagen_llm_latency_seconds_bucket', 'x_total']);
    });

    it('every alert rule selects only documented metrics (and `up`)', () => {
      const rules = alertRules();
      assert.ok(rules.length >= 7, `${rules.length} alert rules`);
      for (const rule of rules) {
        const names = metricNamesIn(rule.expr);
        assert.ok(names.length > 0, `${rule.alert} selects no metric`);
        for (const name of names) assert.ok(documented.has(name) || name === 'up', `${rule.alert} uses ${name}, which docs/metrics.md does not document`);
      }
    });

    it('every dashboard panel queries only documented metrics', () => {
      const panels = dashboardPanels().filter((panel) => panel.type !== 'row');
      assert.ok(panels.length >= 10, `${panels.length} panels`);
      for (const panel of panels) {
        assert.ok(panel.targets && panel.targets.length > 0, `panel "${panel.title}" has no query`);
        for (const { expr } of panel.targets) {
          const names = metricNamesIn(expr);
          assert.ok(names.length > 0, `panel "${panel.title}" selects no metric: ${expr}`);
          for (const name of names) assert.ok(documented.has(name), `panel "${panel.title}" uses ${name}, which docs/metrics.md does not document`);
        }
      }
    });

    it('the dashboard graphs tokens per second, pending tasks and the best score', () => {
      const exprs = dashboardPanels().flatMap((panel) => panel.targets ?? []).map((target) => target.expr);
      assert.ok(exprs.some((expr) => /rate\(peagen_llm_tokens_total\[/.test(expr)), 'tokens per second');
      assert.ok(exprs.some((expr) => /peagen_queue_pending\b/.test(expr)), 'pending tasks');
      assert.ok(exprs.some((expr) => /peagen_evolve_best_objective\b/.test(expr)), 'best objective');
    });

    it('no dashboard query draws one series per worker pool: with 64 pools a panel still has a few lines', () => {
      // Worker-pool metrics come from one scrape target (instance) per pool; the cluster ones are per caps set.
      const perPool = /\bpeagen_(tasks_|handler_|sandbox_|warm_pool_|worker_)\w*/;
      const aggregated = (expr: string): boolean =>
        /^\s*(histogram_quantile\(\s*[\d.]+\s*,\s*)?(sum|max|min|avg|count|topk\(\s*\d+\s*,\s*sum)\b/.test(expr) &&
        ![...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].some(([, labels]) => /\b(instance|pod|pid|id)\b/.test(labels!));
      // The check itself: a raw per-pool series, or one grouped by instance, is refused.
      assert.equal(aggregated('rate(peagen_tasks_finished_total[5m])'), false);
      assert.equal(aggregated('sum by (instance) (rate(peagen_tasks_finished_total[5m]))'), false);
      assert.equal(aggregated('topk(10, sum by (host) (rate(peagen_tasks_finished_total[5m])))'), true);
      const exprs = dashboardPanels().flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
      const workerQueries = exprs.filter(({ expr }) => perPool.test(expr) || /peagen_cluster_/.test(expr));
      assert.ok(workerQueries.length >= 8, `${workerQueries.length} worker queries`);
      for (const { panel, expr } of workerQueries) assert.ok(aggregated(expr), `panel "${panel}" draws a series per pool: ${expr}`);
    });

    it('the alerts the issue asks for exist, with a severity and what to do', () => {
      const names = alertRules().map((rule) => rule.alert);
      for (const name of ['PeagenTokenBudgetNearlySpent', 'PeagenTokenBudgetExceeded', 'PeagenTaskWaitingTooLong', 'PeagenDeadLettersGrowing', 'PeagenNoWorkersForPendingWork', 'PeagenEvaluationFailureRateHigh']) assert.ok(names.includes(name), name);
      for (const rule of alertRules()) {
        assert.match(rule.labels?.severity ?? '', /^(warning|critical)$/, rule.alert);
        assert.ok(rule.annotations?.summary && rule.annotations.description, `${rule.alert} has a summary and a description`);
      }
    });

    it('every alert fires within 2 minutes of its condition at the reference 15 s intervals', () => {
      const config = parse(fs.readFileSync(path.join(DIR, 'prometheus.yml'), 'utf8')) as { global: { scrape_interval: string; evaluation_interval: string } };
      const scrape = seconds(config.global.scrape_interval);
      const evaluation = seconds(config.global.evaluation_interval);
      assert.equal(scrape, 15);
      assert.equal(evaluation, 15);
      for (const rule of alertRules()) {
        // A change just after a scrape, its sample just after an evaluation, then `for`, checked at the next evaluation.
        const worst = scrape + evaluation + seconds(rule.for ?? '0s') + evaluation;
        assert.ok(worst < 120, `${rule.alert}: up to ${worst} s from condition to firing`);
      }
    });
  });

  describe('with promtool', function () {
    before(function () {
      if (!findBinary('promtool')) {
        console.log('    SKIPPED: promtool is not installed (node scripts/provision/prometheus.mjs installs Debian package prometheus)');
        this.skip();
      }
    });

    it('promtool check rules accepts alerts.yml', () => {
      const result = promtool(['check', 'rules', RULES]);
      assert.equal(result.status, 0, result.output);
      assert.match(result.output, new RegExp(`SUCCESS: ${alertRules().length} rules found`));
    });

    it('promtool check config accepts the reference prometheus.yml and its rule file', () => {
      const result = promtool(['check', 'config', 'prometheus.yml']);
      assert.equal(result.status, 0, result.output);
    });

    it('promtool test rules: the unit tests of alerts.test.yml pass and cover every alert', () => {
      const tests = parse(fs.readFileSync(path.join(DIR, 'alerts.test.yml'), 'utf8')) as { tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[] };
      const fired = new Set(tests.tests.flatMap((test) => (test.alert_rule_test ?? []).filter((check) => (check.exp_alerts ?? []).length > 0).map((check) => check.alertname)));
      for (const rule of alertRules()) assert.ok(fired.has(rule.alert), `no test of alerts.test.yml expects ${rule.alert} to fire`);
      const result = promtool(['test', 'rules', 'alerts.test.yml']);
      assert.equal(result.status, 0, result.output);
      assert.match(result.output, /SUCCESS/);
    });

    it("every dashboard query is valid PromQL (checked as recording rules)", () => {
      const exprs = dashboardPanels().flatMap((panel) => panel.targets ?? []).map((target) => target.expr);
      // Grafana's variables, as Grafana would substitute them.
      const substituted = exprs.map((expr) => expr.replace(/\$__rate_interval/g, '1m').replace(/\$run\b/g, '.*'));
      const dir = tempDir('dashboard-rules');
      try {
        const file = path.join(dir, 'dashboard.rules.yml');
        fs.writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules: substituted.map((expr, i) => ({ record: `dashboard:panel_query:${i}`, expr })) }] }));
        const result = promtool(['check', 'rules', file], dir);
        assert.equal(result.status, 0, result.output);
        assert.match(result.output, new RegExp(`SUCCESS: ${exprs.length} rules found`));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
