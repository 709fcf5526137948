/**
 * A sealed verdict: the daemon gives the evaluator a fresh secret on its stdin (never on its
 * command line or in its environment, which other processes of the sandbox can read), and
 * accepts the verdict line only when it carries that secret as `seal`. An evaluator that
 * reads its stdin before anything untrusted runs, and keeps the secret in a process nothing
 * untrusted shares, is then the only writer of a verdict: a line printed by the candidate (or
 * by a process that ended before the evaluator judged) has no seal and is a failure.
 *
 * Peagen's OpenEvolve adapter (harness/python/peagen_openevolve) is such an evaluator, and the
 * one that needs it: evaluator.py, which is not Peagen's code, runs in the same sandbox, and
 * in the in-process mode the candidate with it. Evaluators built on the harness library keep
 * the plain last line: their candidates run in processes that never share their stdout.
 */
import { randomBytes } from 'node:crypto';

/** The adapter's flag: read the seal from the first line of stdin, put it in the verdict. */
export const SEALED_VERDICT_FLAG = '--sealed-verdict';

/** A fresh secret for one evaluation. */
export function newVerdictSeal(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The verdict without its seal when `line` (parsed JSON) carries `seal`; otherwise why not,
 * in words for the failure.
 */
export function unsealVerdict(line: unknown, seal: string): { verdict: Record<string, unknown> } | { problem: string } {
  if (line === null || typeof line !== 'object' || Array.isArray(line)) return { problem: 'the last line of stdout is not a verdict object' };
  const { seal: carried, ...verdict } = line as Record<string, unknown>;
  if (carried !== seal) {
    return {
      problem:
        "the verdict line is not Peagen's adapter's (it lacks the seal the adapter was given): the evaluation ended before the adapter judged it, or something else printed it",
    };
  }
  return { verdict };
}
