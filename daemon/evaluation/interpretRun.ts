/**
 * Turns one sandboxed evaluator run into an Evaluation: the metrics line when there is a
 * valid one, otherwise the reason the candidate has no score and the text that explains it.
 * With a seal (verdictSeal.ts), only a last line that carries it is a verdict.
 */
import * as z from 'zod';
import { type Direction, type Evaluation, type EvaluatorOutput, EvaluatorOutputSchema, FAILED_TESTS_LIMIT, type FailureReason } from '../../shared/evaluation';
import type { ExecutionResult } from '../sandbox/Executor';
import { unsealVerdict } from './verdictSeal';

const ERROR_TEXT_LIMIT = 4_000;

export function interpretRun(run: ExecutionResult, direction: Direction, options: { seal?: string } = {}): Evaluation {
  const base = {
    direction,
    executor: run.executor,
    exitCode: run.exitCode,
    wallMs: run.wallMs,
    ...(run.stoppedBy && { stoppedBy: run.stoppedBy }),
    ...(run.peakMemoryKb !== undefined && { peakMemoryKb: run.peakMemoryKb }),
  };
  const stderrTail = run.stderr.slice(-ERROR_TEXT_LIMIT).trim();
  const failed = (reason: FailureReason, message: string, errorText = stderrTail): Evaluation => ({
    ...base,
    correct: false,
    objective: null,
    metrics: {},
    failure: { reason, message },
    ...(errorText && { errorText }),
  });

  if (run.stoppedBy) {
    const limits: Record<string, string> = {
      timeout: 'the evaluation ran past its deadline and was killed',
      memory: 'the evaluation exceeded its memory limit and was killed',
      pids: 'the evaluation exceeded its process limit and was killed',
      output: 'the evaluation flooded its output and was killed',
      cancelled: 'the evaluation was cancelled',
    };
    return failed(run.stoppedBy, limits[run.stoppedBy] ?? run.stoppedBy);
  }

  const lastLine = run.stdout.trimEnd().split('\n').pop() ?? '';
  let json: unknown;
  try {
    json = JSON.parse(lastLine);
  } catch {
    return run.exitCode === 0
      ? failed('invalid_output', 'the evaluator printed no JSON metrics line')
      : failed('crash', `the evaluator exited with ${run.exitCode === null ? `signal ${run.signal}` : `code ${run.exitCode}`} without metrics`);
  }
  if (options.seal !== undefined) {
    const unsealed = unsealVerdict(json, options.seal);
    if ('problem' in unsealed) return failed('invalid_output', unsealed.problem);
    json = unsealed.verdict;
  }
  const output = EvaluatorOutputSchema.safeParse(json);
  if (!output.success) return failed('invalid_output', `the metrics line is not valid: ${z.prettifyError(output.error)}`);
  const metrics = output.data;
  // The example's declared direction is what the search optimises; an evaluator that says
  // otherwise is broken, and trusting either side silently would rank candidates backwards.
  if (metrics.direction !== direction) {
    return failed('invalid_output', `the evaluator reported direction "${metrics.direction}" but the example declares "${direction}"`);
  }
  if (!metrics.correct) {
    const why = metrics.error ?? 'the candidate failed the correctness check';
    const failedTests = metrics.failed_tests?.slice(0, FAILED_TESTS_LIMIT);
    const originalPassedTests = passedTests(metrics);
    return {
      ...failed('incorrect', why, [metrics.error, stderrTail].filter(Boolean).join('\n')),
      metrics: metrics.metrics,
      ...(failedTests?.length && { failedTests }),
      ...(originalPassedTests && { originalPassedTests }),
    };
  }
  // A correct verdict may still say what is wrong (objective: tests names the failing tests).
  const originalPassedTests = passedTests(metrics);
  return {
    ...base, correct: true, objective: metrics.objective, metrics: metrics.metrics,
    ...(metrics.error && { errorText: metrics.error }),
    ...(originalPassedTests && { originalPassedTests }),
  };
}

/** The original's passed tests a verdict lists: whole, or not at all. */
function passedTests(metrics: EvaluatorOutput): string[] | undefined {
  const listed = metrics.original_passed_tests;
  return listed && listed.length <= FAILED_TESTS_LIMIT ? listed : undefined;
}
