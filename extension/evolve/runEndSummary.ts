/** The words of a followed run's end, without vscode so they are unit-tested. */
import type { RunProgress } from '../../shared/evolution';
import { objectiveValue, seedComparison, type ObjectiveTerms } from '../../shared/objectiveText';
import { confidenceText, confirmationLine, isConfirmedGain } from '../../shared/gainText';

/**
 * What the notification at a run's end says: `Peagen: run R finished (evaluations): 30
 * evaluations, best speedup 2.345 (1.7x the seed's 1.380).` or, for a score, `best score
 * 68.700% (+7.183 points over the seed's 61.517%).`
 */
export function runEndSummary(last: RunProgress): string {
  const best = last.best;
  const terms: ObjectiveTerms = { name: last.objectiveName, direction: last.direction, unit: last.objectiveUnit };
  const versus = best ? seedComparison(terms, last.seedObjective, best.objective) : undefined;
  const confirmation = last.confirmation;
  const interval = confirmation ? ` ${confidenceText(confirmation)}` : '';
  const bestText = best ? `, best ${last.objectiveName} ${objectiveValue(best.objective, terms)}${versus ? ` (${versus})` : ''}${interval}` : '';
  // Below the bar the notification says so, and that nothing is offered.
  const verdict = confirmation && !isConfirmedGain(confirmation) ? ` ${capitalized(confirmationLine(last.objectiveName, confirmation))}.` : '';
  return `Peagen: run ${last.runId} ${last.state}${last.stopReason ? ` (${last.stopReason})` : ''}: ${last.evaluations} evaluations${bestText}.${verdict}`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
