/**
 * How an evaluation that ran a project's tests reads: "tests passed 9/10", from the metrics the
 * tests evaluators print (`tests_passed`, `tests_total`: harness/python/peagen_harness/project_tests.py).
 * The objective of `objective: tests` is the share with a speed tie break below 1/total, so
 * the count is what a reader wants to see, not 0.9004.
 */
export function testsPassedText(metrics: Readonly<Record<string, number>>): string | undefined {
  const passed = metrics.tests_passed;
  const total = metrics.tests_total;
  if (passed === undefined || total === undefined || !Number.isInteger(passed) || !Number.isInteger(total) || total <= 0) return undefined;
  return `tests passed ${passed}/${total}`;
}
