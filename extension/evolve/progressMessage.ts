/** The line a followed run's progress notification shows, without vscode so it is unit-tested. */
import type { RunProgress } from '../../shared/evolution';
import { objectiveValue } from '../../shared/objectiveText';

/** `generation 3 · 40 evaluations · best speedup 2.35`, and what the run waits for when it waits for something nobody provides. */
export function progressMessage(progress: RunProgress): string {
  const best = progress.best ? `best ${progress.objectiveName} ${objectiveValue(progress.best.objective, { unit: progress.objectiveUnit }, 2)}` : 'no best yet';
  return `generation ${progress.generation} · ${progress.evaluations} evaluations · ${best}${progress.state === 'stopping' ? ' · stopping…' : ''}${progress.notice ? ` · waiting: ${progress.notice}` : ''}`;
}
