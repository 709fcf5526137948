/**
 * peagen metrics: the current values of the daemon's metrics (its endpoint's address from the
 * status request), or of a worker pool's (--url), grouped and readable; --json gives the parsed
 * samples. The names are documented in docs/metrics.md.
 */
import type { Command } from 'commander';
import { type MetricsEndpointStatus, Status } from '../../../shared/protocol';
import { parseListen } from '../../observability/metricsServer';
import { parseExposition, type Sample } from '../../observability/exposition';
import { CliContext, CliError, ExitCode } from '../context';

const FETCH_TIMEOUT_MS = 10_000;
/** Of Node's default process metrics, the few shown without --all. */
const PROCESS_SHOWN = new Set(['peagen_process_cpu_seconds_total', 'peagen_process_resident_memory_bytes', 'peagen_nodejs_heap_size_used_bytes']);

export function registerMetricsCommand(program: Command): void {
  program
    .command('metrics')
    .description("print the current metric values of the running daemon (or of a worker pool with --url); names in docs/metrics.md")
    .option('--url <url>', 'scrape this endpoint instead, e.g. a worker pool: http://127.0.0.1:9465 (or host:port)')
    .option('--all', "also show every default Node process metric")
    .action(async (options: { url?: string; all?: boolean }, command: Command) => {
      const ctx = CliContext.of(command);
      const url = options.url !== undefined ? metricsUrlOf(options.url) : await daemonMetricsUrl(ctx);
      const samples = parseExposition(await scrape(url));
      ctx.output({ url, samples }, () => `metrics of ${url}\n${describeSamples(samples, options.all ?? false)}`);
    });
}

/** `host:port`, `http://host:port` or the full `.../metrics` URL. */
export function metricsUrlOf(text: string): string {
  const withScheme = /^https?:\/\//.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new CliError(`--url: expected http://host:port[/metrics] or host:port, got "${text}"`, ExitCode.Usage);
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/metrics';
  return url.toString();
}

async function daemonMetricsUrl(ctx: CliContext): Promise<string> {
  const status = await ctx.withDaemon((client) => client.request(Status.type));
  if (status.metrics?.url) return status.metrics.url;
  throw new CliError(
    status.metrics
      ? `the daemon serves no metrics endpoint: ${status.metrics.error ?? 'unknown reason'}`
      : 'the running daemon is of a version without a metrics endpoint; restart it (peagen daemon stop && peagen daemon start)',
    ExitCode.Failed,
  );
}

async function scrape(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new CliError(`cannot read ${url}: ${cause}`, ExitCode.Failed);
  }
  if (!response.ok) throw new CliError(`${url} answered ${response.status} ${response.statusText}`, ExitCode.Failed);
  return response.text();
}

/** `--metrics-listen`: `host:port` or `off`, checked before anything starts. */
export function parseMetricsListen(value: string): string {
  if (value === 'off') return value;
  try {
    parseListen(value);
  } catch (error) {
    throw new CliError(`--metrics-listen: ${(error as Error).message}`, ExitCode.Usage);
  }
  return value;
}

/** One line for `daemon status`. */
export function describeMetricsEndpoint(endpoint: MetricsEndpointStatus): string {
  return endpoint.url ? `metrics: ${endpoint.url} (also /healthz, /readyz)` : `metrics: not served (${endpoint.error ?? endpoint.listen})`;
}

/**
 * One line per series, grouped by the word after `peagen_`, e.g.
 * `queue  pending  mutate[llm]  3`; histograms as their count and mean.
 */
export function describeSamples(samples: readonly Sample[], all: boolean): string {
  const rows: [string, string, string, string][] = [];
  for (const sample of samples) {
    if (!sample.name.startsWith('peagen_')) continue;
    const isProcess = /^peagen_(process|nodejs)_/.test(sample.family);
    if (isProcess && !all && !PROCESS_SHOWN.has(sample.name)) continue;
    if (sample.type === 'histogram' || sample.type === 'summary') {
      if (!sample.name.endsWith('_count')) continue;
      const sum = samples.find((other) => other.name === `${sample.family}_sum` && sameLabels(other.labels, sample.labels))?.value ?? 0;
      const mean = sample.value > 0 ? sum / sample.value : 0;
      const unit = sample.family.endsWith('_seconds') ? ' s' : '';
      rows.push([...nameColumns(sample.family, isProcess), labelText(sample.labels), `count ${sample.value}, mean ${formatNumber(mean)}${unit}`]);
      continue;
    }
    rows.push([...nameColumns(sample.family, isProcess), labelText(sample.labels), formatNumber(sample.value)]);
  }
  if (rows.length === 0) return '(no samples)';
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column]!) : cell)).join('  ').trimEnd()).join('\n');
}

function nameColumns(family: string, isProcess: boolean): [string, string] {
  const rest = family.replace(/^peagen_/, '');
  if (isProcess) return ['process', rest.replace(/_/g, ' ')];
  const [group, ...words] = rest.replace(/_total$/, '').split('_');
  return [group!, words.join(' ')];
}

function labelText(labels: Record<string, string>): string {
  const { kind, requires, ...rest } = labels;
  const head = kind !== undefined ? (requires !== undefined ? `${kind}[${requires}]` : kind) : requires !== undefined ? `[${requires}]` : '';
  return [head, ...Object.entries(rest).map(([key, value]) => `${key}=${value}`)].filter(Boolean).join(' ');
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(1) : String(Number(value.toPrecision(3)));
}
