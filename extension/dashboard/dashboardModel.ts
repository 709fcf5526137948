/**
 * The dashboard's data, without vscode: the history of run progress and queue status the
 * extension keeps while it runs (so a dashboard opened late, or shown again, has all of it),
 * and its shaping into the numbers and series the webview draws.
 */
import type { RunProgress, RunState } from '../../shared/evolution';
import type { ServerStatus } from '../../shared/protocol';
import { formatNumber } from '../evolutionView/evolutionModel';

/** `[seconds since the run started, value]`. */
export type Point = [number, number];

export const METRICS = ['bestObjective', 'evaluations', 'evaluationsPerMinute', 'tokensPerSecond', 'pendingTasks', 'patchYield'] as const;
export type MetricName = (typeof METRICS)[number];

/** What the webview renders: the message it is posted and the state it keeps. */
export interface DashboardModel {
  run: { runId: string; example: string; state: RunState; objectiveName: string; direction: 'maximize' | 'minimize'; mutator: string } | null;
  /** The latest value of each metric; null when there is none yet. */
  metrics: Record<MetricName, number | null>;
  /** The same, as shown (units included). */
  display: Record<MetricName, string>;
  series: Record<MetricName, Point[]>;
  /** One line under the title: which run, how long, why it stopped. */
  caption: string;
}

interface ProgressSample {
  at: number;
  progress: RunProgress;
}

interface StatusSample {
  at: number;
  pending: number;
}

/** Samples kept per series: hours of a run at one sample per few seconds, a small message. */
const MAX_SAMPLES = 600;
/** Token rates are averaged over this much of the run: single samples are bursty. */
const RATE_WINDOW_MS = 30_000;

function pushBounded<T>(list: T[], item: T): void {
  list.push(item);
  // Halve the older half rather than dropping the start: the chart keeps the whole run.
  if (list.length > MAX_SAMPLES) {
    const half = Math.floor(list.length / 2);
    const thinned = list.slice(0, half).filter((_, index) => index % 2 === 0);
    list.splice(0, half, ...thinned);
  }
}

function totalTokens(progress: RunProgress): number {
  return progress.tokens.inputTokens + progress.tokens.outputTokens;
}

/**
 * Tokens per second at each sample: the tokens spent since the earliest sample at most
 * RATE_WINDOW_MS of run time before it, over that time. The first sample has no rate.
 */
export function tokenRates(samples: readonly RunProgress[]): Point[] {
  const points: Point[] = [];
  let from = 0;
  for (let index = 1; index < samples.length; index++) {
    const current = samples[index]!;
    while (from < index - 1 && current.elapsedMs - samples[from]!.elapsedMs > RATE_WINDOW_MS) from++;
    const start = samples[from]!;
    const seconds = (current.elapsedMs - start.elapsedMs) / 1000;
    if (seconds <= 0) continue;
    points.push([current.elapsedMs / 1000, Math.max(0, totalTokens(current) - totalTokens(start)) / seconds]);
  }
  return points;
}

function display(metric: MetricName, value: number | null): string {
  if (value === null) return '—';
  if (metric === 'evaluations' || metric === 'pendingTasks') return String(Math.round(value));
  if (metric === 'patchYield') return `${Math.round(value * 100)}%`;
  if (metric === 'evaluationsPerMinute' || metric === 'tokensPerSecond') return value.toFixed(1);
  return formatNumber(value);
}

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export class DashboardHistory {
  private readonly runs = new Map<string, ProgressSample[]>();
  private readonly statuses: StatusSample[] = [];
  /** The run shown: the one that reported last. */
  private currentRunId: string | undefined;

  recordProgress(progress: RunProgress, at = Date.now()): void {
    let samples = this.runs.get(progress.runId);
    if (!samples) {
      samples = [];
      this.runs.set(progress.runId, samples);
    }
    pushBounded(samples, { at, progress });
    this.currentRunId = progress.runId;
  }

  recordStatus(status: Pick<ServerStatus.Params, 'queue'>, at = Date.now()): void {
    pushBounded(this.statuses, { at, pending: status.queue.pending });
  }

  model(): DashboardModel {
    const samples = (this.currentRunId && this.runs.get(this.currentRunId)) || [];
    const last = samples.at(-1);
    const progress = samples.map((sample) => sample.progress);
    // The run's start in wall-clock time places the queue samples on the run's time axis.
    const startedAt = samples[0] ? samples[0].at - samples[0].progress.elapsedMs : (this.statuses[0]?.at ?? 0);
    const seconds = (at: number): number => Math.max(0, (at - startedAt) / 1000);
    const rates = tokenRates(progress);
    const series: Record<MetricName, Point[]> = {
      bestObjective: progress.flatMap((p): Point[] => (p.best ? [[p.elapsedMs / 1000, p.best.objective]] : [])),
      evaluations: progress.map((p): Point => [p.elapsedMs / 1000, p.evaluations]),
      evaluationsPerMinute: progress.map((p): Point => [p.elapsedMs / 1000, p.evaluationsPerMinute]),
      tokensPerSecond: rates,
      pendingTasks: this.statuses.filter((sample) => sample.at >= startedAt).map((sample): Point => [seconds(sample.at), sample.pending]),
      patchYield: progress.flatMap((p): Point[] => (p.patchYield.answers > 0 ? [[p.elapsedMs / 1000, p.patchYield.firstTry]] : [])),
    };
    const latest = last?.progress;
    const metrics: Record<MetricName, number | null> = {
      bestObjective: latest?.best?.objective ?? null,
      evaluations: latest?.evaluations ?? null,
      evaluationsPerMinute: latest?.evaluationsPerMinute ?? null,
      tokensPerSecond: latest ? (rates.at(-1)?.[1] ?? 0) : null,
      pendingTasks: this.statuses.at(-1)?.pending ?? null,
      patchYield: latest && latest.patchYield.answers > 0 ? latest.patchYield.firstTry : null,
    };
    const shown = Object.fromEntries(METRICS.map((metric) => [metric, display(metric, metrics[metric])])) as Record<MetricName, string>;
    if (latest && latest.patchYield.answers > 0) shown.patchYield += ` (${Math.round(latest.patchYield.afterRepair * 100)}% after repair)`;
    return {
      run: latest
        ? { runId: latest.runId, example: latest.example, state: latest.state, objectiveName: latest.objectiveName, direction: latest.direction, mutator: latest.mutator }
        : null,
      metrics,
      display: shown,
      series,
      caption: latest
        ? `${latest.example} · run ${latest.runId} · ${latest.state}${latest.stopReason ? ` (${latest.stopReason})` : ''} · ${duration(latest.elapsedMs)} · ${latest.mutator}` +
          (latest.patchYield.answers === 0 ? ' · no LLM answers yet' : '')
        : 'No run has reported yet: start one with Evolve Selection or `peagen evolve run`.',
    };
  }
}
