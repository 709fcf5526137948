// bench:p1 — the brief's headline KPI, P-1: time to the best on bad_sort, end to end, with a
// model that has real latency. An honest simulated model (../shared/sim-llm/server.mjs, its
// answers drawn uniformly from the moves of bench/moves/bad_sort.moves.json that apply, at
// 2 s ± 0.5 s per call) and `peagen evolve run examples/bad_sort` until its best reaches 90% of
// the table's best reachable program (the chain's end, measured over the seed by `peagen
// eval`), or the time cap.
//
// Modes (--modes, default single,redis:8,redis:32):
//   single    one host, the embedded memory queue, `evolve run --sync` with its default
//             workers and the full evaluator: what a user with nothing but Node gets.
//   redis:W   a private redis-server, `peagen worker start --concurrency W` serving the
//             evaluations (no model there), and `evolve run --workers W` on the same queue
//             (it makes the LLM calls itself). This machine has 2 cores, so W slots of the full
//             evaluator would measure the cores, not the fabric: these runs use the evaluator's
//             --quick mode (small inputs, a few tens of ms of CPU per candidate), which keeps
//             the objective a real timing of the candidate.
// For each it prints, per seed and as the median of the seeds: minutes to 90% (by the run's
// clock: its timeline's first best at or above the target), the LLM calls and evaluations it
// took, and the ideal beside it: those calls at the model's mean latency with as many calls in
// flight as the run allows (W evaluation slots plus the proposals it keeps ahead), with
// evaluations and the controller costing nothing. The run's final best is measured again beside
// the seed (bench:evolve's paired measurement), so a best that only looked good is seen.
// Targets: single host <= 30 min, W = 32 <= 5 min (median of the seeds).
//
// usage: node bench/p1.mjs [--seeds N] [--modes single,redis:8,redis:32] [--minutes M (cap, 30)]
//                          [--latency-ms 2000] [--jitter-ms 500] [--sim-llm PATH] [--keep]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { honestSetting, startSimLlm } from './evolve/honest.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const CLI = join(REPO, 'dist', 'cli.js');
const PROBLEM = 'bad_sort';
const TARGET_SHARE = 0.9;
const TARGETS_MIN = { single: 30, 'redis:32': 5 };

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
if (args.includes('--help')) {
  console.log('usage: node bench/p1.mjs [--seeds N] [--modes single,redis:8,redis:32] [--minutes M] [--latency-ms 2000] [--jitter-ms 500] [--sim-llm PATH] [--keep]');
  process.exit(0);
}
const SEEDS = Number(option('seeds', '5'));
const MODES = option('modes', 'single,redis:8,redis:32').split(',');
const CAP_MIN = Number(option('minutes', '30'));
const LATENCY_MS = Number(option('latency-ms', '2000'));
const JITTER_MS = Number(option('jitter-ms', '500'));
const SIM_LLM = resolve(option('sim-llm', resolve(REPO, '..', 'shared', 'sim-llm', 'server.mjs')));
const KEEP = args.includes('--keep');
for (const mode of MODES) if (mode !== 'single' && !/^redis:\d+$/.test(mode)) throw new Error(`--modes: "${mode}" is neither single nor redis:W`);

const honest = honestSetting(REPO);
const { startRedis, stopRedis } = await import(join(REPO, 'scripts', 'provision', 'redis.mjs'));
const { createQueue } = require(join(REPO, 'out', 'daemon', 'fabric', 'queue', 'createQueue.js'));

function cleanEnv(extra) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(OPENAI|ANTHROPIC|PEAGEN|QUEUE|WORKER)_/.test(name)) delete env[name];
  return { ...env, ...extra };
}

function startProcess(argv, options) {
  const child = spawn(process.execPath, argv, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdoutText = '';
  child.stderrText = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (child.stdoutText += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (child.stderrText = (child.stderrText + chunk).slice(-50_000)));
  child.exited = new Promise((done) => child.once('exit', (code, signal) => done(code ?? (signal ? 128 : 1))));
  return child;
}

/** sim-llm on bad_sort's table at the bench's latency: { baseUrl, close() }. */
const startModel = (seed) => startSimLlm(SIM_LLM, join(REPO, 'bench', 'moves', `${PROBLEM}.moves.json`), seed, ['--latency-ms', String(LATENCY_MS), '--jitter-ms', String(JITTER_MS)]);

/** The evaluation slots W of a mode ('single': the run's default). */
const slotsOf = (mode) => (mode === 'single' ? undefined : Number(mode.split(':')[1]));

/** One run of a mode: the figures of its row. */
async function runOnce(mode, seed, reachable) {
  const quick = mode !== 'single';
  const w = slotsOf(mode);
  const project = mkdtempSync(join(tmpdir(), 'peagen-bench-p1-'));
  const model = await startModel(seed);
  const started = [];
  let redis;
  try {
    const env = { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'bench', OPENAI_MODEL: 'gpt-4o-mini', PEAGEN_HOME: join(project, 'home') };
    // The target in the run's own terms: 90% of the reachable speedup over the seed, times the
    // seed's speedup as `peagen eval` measures it here (bad_sort's speedup is against its reference).
    const seedObjective = reachable.seedObjective;
    const target = TARGET_SHARE * reachable.overSeed * seedObjective;
    const argv = [CLI, '--json', 'evolve', 'run', join(REPO, 'examples', PROBLEM), '--seed', String(seed), '--project', project, '--target', target.toFixed(3), '--minutes', String(CAP_MIN), '--max-llm-calls', '100000', ...(quick ? ['--quick'] : [])];
    if (mode === 'single') {
      argv.push('--sync');
    } else {
      redis = await startRedis();
      const queueUrl = `redis://127.0.0.1:${redis.port}?prefix=p1-${process.pid}-${seed}`;
      Object.assign(env, { QUEUE_URL: queueUrl });
      const worker = startProcess([CLI, 'worker', 'start', '--concurrency', String(w), '--metrics-listen', 'off'], { cwd: project, env: cleanEnv({ QUEUE_URL: queueUrl, PEAGEN_HOME: join(project, 'worker-home'), PEAGEN_WORKER_ROOTS: REPO }) });
      started.push(worker);
      const queue = await createQueue(queueUrl);
      try {
        for (let i = 0; ; i++) {
          const listed = await queue.listWorkers();
          if (listed.some((record) => record.kinds.includes('evaluate'))) break;
          if (worker.exitCode !== null || i > 600) throw new Error(`the worker did not start:\n${worker.stderrText.slice(-3000)}`);
          await delay(100);
        }
      } finally {
        await queue.close();
      }
      argv.push('--workers', String(w));
    }
    const evolve = startProcess(argv, { cwd: project, env: cleanEnv(env) });
    started.push(evolve);
    const code = await evolve.exited;
    let report;
    try {
      report = JSON.parse(evolve.stdoutText);
    } catch {
      throw new Error(`${mode} seed ${seed}: the run failed (exit ${code}): ${evolve.stderrText.slice(-3000)}`);
    }
    const reached = report.timeline.find((point) => point.objective !== null && point.objective >= target);
    const bestCode = report.best ? readFileSync(report.best.file, 'utf8') : undefined;
    const again = bestCode ? await honest.measuredAgain(PROBLEM, bestCode, quick) : { ofReachable: 0 };
    // The run keeps max(2, W) proposals out (usecases/startRun.ts mutateSlotsOf): at most that many calls in flight.
    const workers = JSON.parse(readFileSync(join(report.runDir, 'run.json'), 'utf8')).workers ?? w ?? 1;
    const inFlight = Math.max(2, workers);
    return {
      minutes: reached ? reached.elapsedMs / 60_000 : undefined,
      calls: reached?.llmCalls,
      evaluations: reached?.evaluations,
      ideal: reached ? (reached.llmCalls * LATENCY_MS) / 60_000 / inFlight : undefined,
      workers,
      share: again.ofReachable,
      stopReason: report.stopReason,
      runMinutes: (report.progress?.elapsedMs ?? 0) / 60_000,
    };
  } finally {
    for (const child of started) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(started.map((child) => child.exited));
    await model.close();
    if (redis) await stopRedis(redis);
    if (!KEEP) rmSync(project, { recursive: true, force: true });
  }
}

/** The median of all the values, a run that never reached the target counting as Infinity. */
function medianOf(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const fmt = (value, digits = 1) => (value === undefined ? '—' : value.toFixed(digits));
console.log(`bench:p1: ${PROBLEM} to ${TARGET_SHARE * 100}% of the best reachable; sim-llm at ${LATENCY_MS} ± ${JITTER_MS} ms per call; ${SEEDS} seed(s); cap ${CAP_MIN} min; modes ${MODES.join(', ')}`);
const reachableFull = { overSeed: await honest.bestReachable(PROBLEM, false), seedObjective: await honest.seedObjective(PROBLEM, false) };
const reachableQuick = MODES.some((mode) => mode !== 'single') ? { overSeed: await honest.bestReachable(PROBLEM, true), seedObjective: await honest.seedObjective(PROBLEM, true) } : undefined;
console.log(`best reachable: ${fmt(reachableFull.overSeed)}x the seed (full evaluator)${reachableQuick ? `, ${fmt(reachableQuick.overSeed)}x (--quick)` : ''}`);
const summary = [];
for (const mode of MODES) {
  const rows = [];
  for (let seed = 1; seed <= SEEDS; seed++) {
    const row = await runOnce(mode, seed, mode === 'single' ? reachableFull : reachableQuick);
    rows.push(row);
    console.log(`  ${mode} seed ${seed} (W = ${row.workers}): ${row.minutes === undefined ? `not reached in ${CAP_MIN} min` : `${fmt(row.minutes)} min to ${TARGET_SHARE * 100}% (${row.calls} calls, ${row.evaluations} evaluations; ideal ${fmt(row.ideal)} min)`}; final best ${fmt(100 * row.share, 0)}% of the reachable measured again; stopped: ${row.stopReason}`);
  }
  // A seed that did not reach the target counts as never (Infinity): the median is a time only when most seeds reached it.
  const minutes = rows.map((row) => row.minutes ?? Infinity);
  const reachedMinutes = minutes.filter(Number.isFinite);
  const med = medianOf(minutes);
  const ideal = medianOf(rows.map((row) => row.ideal ?? Infinity));
  const target = TARGETS_MIN[mode];
  summary.push(
    `${mode.padEnd(9)} median ${Number.isFinite(med) ? fmt(med) : `> ${CAP_MIN}`} min` +
      (reachedMinutes.length > 0 ? ` [${fmt(Math.min(...reachedMinutes))}–${fmt(Math.max(...reachedMinutes))}]` : '') +
      `, reached in ${reachedMinutes.length}/${rows.length}; ideal ${Number.isFinite(ideal) ? fmt(ideal) : '—'} min` +
      (target !== undefined ? `; target <= ${target} min: ${med <= target ? 'met' : 'MISSED'}` : ''),
  );
}
console.log('\nminutes to 90% of the best reachable (median of the seeds [min–max of those that reached])');
for (const line of summary) console.log(`  ${line}`);
