/**
 * A confirmed (or unconfirmed) gain in words, beside the figure it qualifies: "[95% CI
 * 1.30-1.55]" after a speedup, "no measurable improvement" when the interval holds "no
 * change". The CLI, report.md, the end-of-run notification and the proposals' titles all use
 * these, so they say the same thing.
 */
import { GAIN, type GainConfirmation } from './evolution';

type Interval = Pick<GainConfirmation, 'measure' | 'value' | 'low' | 'high' | 'pairs'>;

/** "[95% CI 1.30-1.55]" beside a ratio, "[95% CI +0.200 to +0.900]" beside a difference, "[not measured again]" without two pairs. */
export function confidenceText(confirmation: Interval): string {
  if (confirmation.pairs < 2) return '[not measured again]';
  if (confirmation.measure === 'ratio') return `[95% CI ${confirmation.low.toFixed(2)}-${confirmation.high.toFixed(2)}]`;
  return `[95% CI ${signed(confirmation.low)} to ${signed(confirmation.high)}]`;
}

/** The measured estimate with its interval: "1.42x [95% CI 1.30-1.55]", "+0.300 [95% CI +0.200 to +0.400]". */
export function measuredGain(confirmation: Interval): string {
  if (confirmation.pairs < 2) return confidenceText(confirmation);
  const value = confirmation.measure === 'ratio' ? `${confirmation.value.toFixed(2)}x` : signed(confirmation.value);
  return `${value} ${confidenceText(confirmation)}`;
}

export function isConfirmedGain(confirmation: Pick<GainConfirmation, 'verdict'> | undefined): boolean {
  return confirmation?.verdict === GAIN;
}

/**
 * One line for the end of a run: "gain confirmed: speedup 1.42x the seed [95% CI 1.30-1.55],
 * 4 pairs" or "no measurable improvement: speedup 1.02x the seed [95% CI 0.91-1.14] holds 1.0
 * (nothing to accept)".
 */
export function confirmationLine(objectiveName: string, confirmation: GainConfirmation): string {
  const versus = confirmation.pairs < 2 ? '' : ` ${measuredGain(confirmation).replace(' [', ' the seed [')}`;
  const pairs = `${confirmation.pairs} pair${confirmation.pairs === 1 ? '' : 's'} measured again, interleaved`;
  if (confirmation.verdict === GAIN) return `gain confirmed: ${objectiveName}${versus} (${pairs})`;
  const why = confirmation.reason ?? (confirmation.zeroSpread ? 'the same on every re-measure, no better' : `the interval holds ${confirmation.measure === 'ratio' ? '1.0' : '0'}`);
  return `no measurable improvement: ${objectiveName}${versus} (${pairs}; ${why}): nothing to accept`;
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;
}
