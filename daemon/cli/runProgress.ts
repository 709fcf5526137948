/**
 * A run's progress on the terminal: one redrawn status line on a TTY (best objective,
 * evaluations per minute, patch yield, tokens, ETA), plain lines elsewhere (on each new best
 * and every 30 s), nothing on stdout so --json stays parseable.
 */
import type { RunProgress } from '../../shared/evolution';
import { comparesByFactor, factorOverSeed, objectiveValue, shortComparison, type ObjectiveTerms } from '../../shared/objectiveText';

const PLAIN_INTERVAL_MS = 30_000;

function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`;
}

export function progressLine(p: RunProgress): string {
  const terms: ObjectiveTerms = { name: p.objectiveName, direction: p.direction, unit: p.objectiveUnit };
  // A factor over the seed says how a speedup or a time moved; a score's progress is its value next to the seed's.
  const improvement = comparesByFactor(terms) ? factorOverSeed(terms, p.seedObjective, p.best?.objective) : undefined;
  const versus = p.best ? shortComparison(terms, p.seedObjective, p.best.objective) : undefined;
  const best = p.best ? `${objectiveValue(p.best.objective, terms)}${versus !== undefined ? ` (${versus})` : ''}` : '—';
  const parts = [
    `best ${p.objectiveName} ${best}`,
    `gen ${p.generation}`,
    `${p.evaluations} evals (${p.failedEvaluations} failed)`,
    `${p.evaluationsPerMinute.toFixed(1)}/min`,
  ];
  if (p.patchYield.answers > 0) parts.push(`yield ${Math.round(p.patchYield.firstTry * 100)}%/${Math.round(p.patchYield.afterRepair * 100)}%`);
  if (p.llmCalls > 0) {
    parts.push(`${p.llmCalls} calls${p.evaluations > 0 ? ` (${(p.llmCalls / p.evaluations).toFixed(2)}/eval)` : ''}, ${p.tokens.inputTokens + p.tokens.outputTokens} tok`);
    // Improvement per call: doublings of the objective per 100 calls.
    if (improvement !== undefined && improvement > 1) parts.push(`${((100 * Math.log2(improvement)) / p.llmCalls).toFixed(2)} doublings/100 calls`);
  }
  parts.push(duration(p.elapsedMs));
  if (p.etaMs !== undefined) parts.push(`ETA ${duration(p.etaMs)}`);
  return parts.join(' · ');
}

export class ProgressDisplay {
  private lastBest: number | undefined;
  private lastPlain = 0;
  private drawn = false;

  constructor(
    private readonly tty: boolean = Boolean(process.stderr.isTTY),
    private readonly write: (text: string) => void = (text) => void process.stderr.write(text),
  ) {}

  update(progress: RunProgress): void {
    const line = progressLine(progress);
    if (this.tty) {
      const width = process.stderr.columns ?? 120;
      this.write(`\r\x1b[2K${line.slice(0, width - 1)}`);
      this.drawn = true;
      return;
    }
    const improved = progress.best && progress.best.objective !== this.lastBest;
    if (improved || Date.now() - this.lastPlain >= PLAIN_INTERVAL_MS) {
      this.lastBest = progress.best?.objective;
      this.lastPlain = Date.now();
      this.write(`${line}\n`);
    }
  }

  /** Ends the status line so that what follows starts on a line of its own. */
  done(): void {
    if (this.drawn) this.write('\n');
    this.drawn = false;
  }
}
