// Which test files run where in `npm test` (test/run.mjs), and what `npm run test:soak` runs.
//
// Most integration files wait on processes (daemons, workers, sandboxes, Redis) more than they
// compute, so they run two at a time, each in a lane process of its own. The files below
// assert on measured speed or on how fast something answers under a deadline, or rebuild the
// checkout: they run one at a time with nothing beside them, as the whole suite used to, so
// that sharing the machine's two cores can never make them flaky.

/**
 * Integration files (compiled names, relative to out/test/integration) that run alone (and
 * UNIT_ALONE's unit files, below).
 */
export const ALONE = [
  // Speedups measured by the real timing path: floors, ceilings and confirmed gains.
  'evaluate.test.js',
  'evolveConfirm.test.js',
  'evolveRun.test.js',
  'jsExampleProbes.test.js',
  'lookupTableProbes.test.js',
  'peagenHarness.test.js',
  'pythonExampleProbes.test.js',
  'pythonHarness.test.js',
  // Deadlines and start-up times of sandboxes, asserted against bounds within a second or two
  // of what they measure. (The executors' conformance files, whose deadline bounds are 3.5 s
  // over a 1 s limit and whose runs take 0.2 s, share a lane: bwrapExecutor, bwrapPrepared,
  // dockerExecutor, dockerPrepared.)
  'isolation.bwrap.test.js',
  'isolation.docker.test.js',
  'isolation.process.test.js',
  'warmSpawner.test.js',
  // Bounds on time in a file otherwise about something else: a timed bad_sort score (evalCli),
  // an init probe's speedup ceiling, a scale-down within seconds, a refusal within 4 s.
  'evalCli.test.js',
  'initHostile.test.js',
  'scaleToZeroCli.test.js',
  'trustReadback.test.js',
  // `npm install` of this checkout runs its prepare script, which builds dist/ and out/ anew:
  // a lane beside it could load a test file or a bundle while it is being rewritten.
  'cli.test.js',
  'pluginsWalkthrough.test.js',
];

/**
 * Unit files (compiled names, relative to out/test/unit) that run alone: they time real
 * evaluations (a candidate many times faster must read so) or a process's deadline. The other
 * unit files share a lane with the integration files.
 */
export const UNIT_ALONE = ['evolveSelectionScaffold.test.js', 'processExecutor.test.js'];

/**
 * Integration files that wait far more than they work: each runs in a lane of its own beside
 * the shared lanes, from their start. prometheusAlerts waits a minute for an alert's `for: 1m`
 * (the shipped rules, unchanged) and up to two for the others; its bounds are minutes.
 */
export const BESIDE = ['prometheusAlerts.test.js'];

/**
 * The robustness runs whose full size is a soak: `npm test` runs them at smoke size (the same
 * assertions on fewer tasks, kills or alerts), `npm run test:soak` at full size (PEAGEN_SOAK=1,
 * read by test/fixtures/soak.ts), one at a time, nothing else beside them.
 */
export const SOAK = [
  'integration/chaos.test.js',
  'integration/bwrapPrepared.test.js',
  'integration/dockerPrepared.test.js',
  'integration/isolation.bwrap.test.js',
  'integration/isolation.docker.test.js',
  'integration/isolation.process.test.js',
  'integration/oneShotCleanup.test.js',
];
