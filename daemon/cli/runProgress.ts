/**
 * A run's progress on the terminal: one redrawn status line on a TTY (best objective,
 * evaluations per minute, patch yield, tokens, the evaluations running with their time and
 * limit, ETA), plain lines elsewhere (on each new best, every 30 s, and when an evaluation
 * has run long), nothing on stdout so --json stays parseable.
 *
 * Between two snapshots of the run the clock still runs: the line is redrawn every second
 * with the running evaluations' times (and the ETA) moved on by the time since the snapshot,
 * so a slow evaluation is seen ticking towards its limit, never a frozen "ETA 3s".
 */
import type { RunProgress } from '../../shared/evolution';
import { comparesByFactor, factorOverSeed, objectiveValue, shortComparison, type ObjectiveTerms } from '../../shared/objectiveText';

const PLAIN_INTERVAL_MS = 30_000;
/** How often the TTY line is redrawn (and a plain-text display looks for a long evaluation). */
const TICK_MS = 1_000;
/** Without a TTY, an evaluation running this long (or half its limit, when that is less) gets a line of its own. */
const LONG_EVALUATION_MS = 10_000;
/** Running evaluations named on the line; the others are counted. */
const RUNNING_NAMED = 3;

export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** `2 running: #19 4m12s/5m00s, #20 3s/5m00s`: what is being evaluated, for how long, against what limit. */
export function runningText(inFlight: RunProgress['inFlight']): string | undefined {
  if (!inFlight || inFlight.length === 0) return undefined;
  const named = inFlight.slice(0, RUNNING_NAMED).map((entry) => `${entry.label} ${duration(entry.elapsedMs)}/${duration(entry.limitMs)}`);
  const more = inFlight.length - named.length;
  return `${inFlight.length} running: ${named.join(', ')}${more > 0 ? ` +${more} more` : ''}`;
}

/** `ETA 3s`, or `ETA 3s–4m48s` when an evaluation in flight may run to its limit. */
export function etaText(p: Pick<RunProgress, 'etaMs' | 'etaMaxMs'>): string | undefined {
  if (p.etaMs === undefined) return undefined;
  const low = duration(p.etaMs);
  const high = p.etaMaxMs !== undefined ? duration(p.etaMaxMs) : low;
  return high === low ? `ETA ${low}` : `ETA ${low}–${high}`;
}

/**
 * The status line; with `width`, parts that matter least (the rate, the yield, the calls,
 * the generation) are left out until it fits, so a narrow terminal still shows the best,
 * what is running, the time and the ETA.
 */
export function progressLine(p: RunProgress, width = Infinity): string {
  const terms: ObjectiveTerms = { name: p.objectiveName, direction: p.direction, unit: p.objectiveUnit };
  // A factor over the seed says how a speedup or a time moved; a score's progress is its value next to the seed's.
  const improvement = comparesByFactor(terms) ? factorOverSeed(terms, p.seedObjective, p.best?.objective) : undefined;
  const versus = p.best ? shortComparison(terms, p.seedObjective, p.best.objective) : undefined;
  const best = p.best ? `${objectiveValue(p.best.objective, terms)}${versus !== undefined ? ` (${versus})` : ''}` : '—';
  // Each part with the order in which it is dropped when the line is too wide (0: never).
  const parts: [string, number][] = [
    [`best ${p.objectiveName} ${best}`, 0],
    [`gen ${p.generation}`, 5],
    [`${p.evaluations} evals (${p.failedEvaluations} failed)`, 6],
    [`${p.evaluationsPerMinute.toFixed(1)}/min`, 4],
  ];
  if (p.patchYield.answers > 0) parts.push([`yield ${Math.round(p.patchYield.firstTry * 100)}%/${Math.round(p.patchYield.afterRepair * 100)}%`, 3]);
  if (p.llmCalls > 0) {
    parts.push([`${p.llmCalls} calls${p.evaluations > 0 ? ` (${(p.llmCalls / p.evaluations).toFixed(2)}/eval)` : ''}, ${p.tokens.inputTokens + p.tokens.outputTokens} tok`, 2]);
    // Improvement per call: doublings of the objective per 100 calls.
    if (improvement !== undefined && improvement > 1) parts.push([`${((100 * Math.log2(improvement)) / p.llmCalls).toFixed(2)} doublings/100 calls`, 1]);
  }
  const running = runningText(p.inFlight);
  if (running) parts.push([running, 0]);
  parts.push([duration(p.elapsedMs), 0]);
  const eta = etaText(p);
  if (eta) parts.push([eta, 0]);
  const line = (): string => parts.map(([text]) => text).join(' · ');
  for (let drop = 1; drop <= 6 && line().length > width; drop++) {
    const index = parts.findIndex(([, order]) => order === drop);
    if (index >= 0) parts.splice(index, 1);
  }
  return line();
}

/**
 * The progress as it stands `sinceMs` after the snapshot: the run and its running evaluations
 * that much older, the ETA that much nearer (a finished run's snapshot is as it was).
 */
export function progressAged(p: RunProgress, sinceMs: number): RunProgress {
  if (sinceMs <= 0 || (p.state !== 'running' && p.state !== 'stopping')) return p;
  const nearer = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : Math.max(0, ms - sinceMs));
  const etaMs = nearer(p.etaMs);
  const etaMaxMs = nearer(p.etaMaxMs);
  return {
    ...p,
    elapsedMs: p.elapsedMs + sinceMs,
    ...(etaMs !== undefined && { etaMs }),
    ...(etaMaxMs !== undefined && { etaMaxMs }),
    ...(p.inFlight && { inFlight: p.inFlight.map((entry) => ({ ...entry, elapsedMs: entry.elapsedMs + sinceMs })) }),
  };
}

/** An evaluation that has run long enough to be worth a line of its own when there is no TTY. */
function isLong(entry: NonNullable<RunProgress['inFlight']>[number]): boolean {
  return entry.elapsedMs >= Math.min(LONG_EVALUATION_MS, entry.limitMs / 2);
}

export class ProgressDisplay {
  private lastBest: number | undefined;
  private lastPlain = 0;
  private drawn = false;
  private latest: { progress: RunProgress; at: number } | undefined;
  private ticker: NodeJS.Timeout | undefined;
  /** The long evaluations a plain line has named (each gets one). */
  private readonly announced = new Set<string>();

  constructor(
    private readonly tty: boolean = Boolean(process.stderr.isTTY),
    private readonly write: (text: string) => void = (text) => void process.stderr.write(text),
    private readonly now: () => number = Date.now,
  ) {}

  update(progress: RunProgress): void {
    this.latest = { progress, at: this.now() };
    this.show(progress, false);
    const live = progress.state === 'running' || progress.state === 'stopping';
    if (live && !this.ticker) {
      this.ticker = setInterval(() => this.tick(), TICK_MS);
      this.ticker.unref();
    } else if (!live) this.stopTicking();
  }

  /** Redraws the latest snapshot, aged to now. */
  tick(): void {
    if (!this.latest) return;
    this.show(progressAged(this.latest.progress, this.now() - this.latest.at), true);
  }

  private show(progress: RunProgress, ticking: boolean): void {
    if (this.tty) {
      // After done() (a log line was printed) the next snapshot redraws; a tick alone does not.
      if (ticking && !this.drawn) return;
      // 0 when the terminal does not say (script, some CI consoles): then a common width.
      const width = process.stderr.columns || 120;
      this.write(`\r\x1b[2K${progressLine(progress, width - 1).slice(0, width - 1)}`);
      this.drawn = true;
      return;
    }
    const improved = !ticking && progress.best && progress.best.objective !== this.lastBest;
    const long = (progress.inFlight ?? []).filter((entry) => isLong(entry) && !this.announced.has(entry.label));
    if (improved || long.length > 0 || this.now() - this.lastPlain >= PLAIN_INTERVAL_MS) {
      for (const entry of long) this.announced.add(entry.label);
      if (!ticking) this.lastBest = progress.best?.objective;
      this.lastPlain = this.now();
      this.write(`${progressLine(progress)}\n`);
    }
    // A label is reused (a job's confirmation, the next reduction trial): forget those no longer running.
    for (const label of this.announced) if (!(progress.inFlight ?? []).some((entry) => entry.label === label)) this.announced.delete(label);
  }

  private stopTicking(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  /** Ends the status line so that what follows starts on a line of its own. */
  done(): void {
    this.stopTicking();
    if (this.drawn) this.write('\n');
    this.drawn = false;
  }
}
