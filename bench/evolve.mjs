#!/usr/bin/env node
// `npm run bench:evolve`: how much better code Peagen finds per LLM call, judged honestly.
//
//  1. honest: for each problem (bench/moves/<problem>.moves.json) and each worker count, 5
//     seeds of `peagen evolve run --max-llm-calls 200` against a model whose answers are drawn
//     uniformly from the edits that apply (bench/evolve/honest.mjs), beside a best-of-N control
//     at the same call budget. Medians and [min–max] over seeds.
//  2. friendly: examples/bad_sort with the scripted model that improves 60% of the time and
//     fixes on repair, 4 workers, 15 minutes, 2 s latency (bench/evolve/friendly.mjs): the
//     engine must not get worse there.
// Then the targets, met or missed. Figures only: the exit code is non-zero only when a run fails.
//
//   npm run bench:evolve                                  # both settings (a few hours)
//   npm run bench:evolve -- --setting honest --quick      # the honest setting, evaluator --quick
//   npm run bench:evolve -- --setting honest --problems slow_fib_js --workers 1 --seeds 3
//   npm run bench:evolve -- --setting honest --sim-llm ../shared/sim-llm/server.mjs   # cross-check
//   npm run bench:evolve -- --setting friendly --seeds 1 --minutes 5
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { friendlySetting } from './evolve/friendly.mjs';
import { honestSetting } from './evolve/honest.mjs';
import { median, number, percent, printTable, spread, times } from './evolve/stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE =
  'usage: node bench/evolve.mjs [--setting honest|friendly|both] [--seeds N] [--calls N] [--problems a,b] [--workers 1,2] [--quick] [--sim-llm server.mjs] [--ablate a,b] [--choices N[,M]] [--baseline DIR] [--no-control] [--minutes M] [--friendly-workers W] [--no-overhead] [--keep]\n(what each prints: bench/README.md)';
let parsed;
try {
  parsed = parseArgs({
    options: {
      setting: { type: 'string', default: 'both' },
      seeds: { type: 'string', default: '5' },
      calls: { type: 'string', default: '200' },
      problems: { type: 'string', default: 'bad_sort,slow_fib_js' },
      workers: { type: 'string', default: '1,2' },
      quick: { type: 'boolean', default: false },
      'sim-llm': { type: 'string' },
      'no-control': { type: 'boolean', default: false },
      ablate: { type: 'string' },
      choices: { type: 'string' },
      baseline: { type: 'string' },
      minutes: { type: 'string', default: '15' },
      'friendly-workers': { type: 'string', default: '4' },
      'no-overhead': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (error) {
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}
const flags = parsed.values;
if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}
const list = (text) => text.split(',').map((item) => item.trim()).filter(Boolean);
/** `--seeds N`: seeds 1..N; `--seeds 4,5`: those seeds (to add seeds to an earlier bench). */
const SEEDS = flags.seeds.includes(',') ? list(flags.seeds).map(Number) : Array.from({ length: Number(flags.seeds) }, (_, i) => i + 1);
const CALLS = Number(flags.calls);
const PROBLEMS = list(flags.problems);
const WORKERS = list(flags.workers).map(Number);
const MINUTES = Number(flags.minutes);
/** Answers per call for every arm, one table per setting (default: peagen.json's default, `llm.choices`). */
const CHOICE_SETTINGS = flags.choices === undefined ? [undefined] : list(flags.choices).map(Number);
/** Another built checkout (today's engine): its `evolve run` is an arm beside Peagen's, in the same rounds. */
const BASELINE = flags.baseline ? resolve(flags.baseline) : undefined;
const settings = flags.setting === 'both' ? ['honest', 'friendly'] : [flags.setting];
if (!settings.every((s) => ['honest', 'friendly'].includes(s)) || !(SEEDS.length > 0 && SEEDS.every((seed) => Number.isInteger(seed) && seed > 0)) || !(CALLS > 0) || !WORKERS.every((w) => Number.isInteger(w) && w > 0) || !(MINUTES > 0) || !CHOICE_SETTINGS.every((c) => c === undefined || (Number.isInteger(c) && c >= 1 && c <= 8))) {
  console.error(USAGE);
  process.exit(2);
}

/** Targets of the issue, per problem, as shares of the best reachable: by the depth of its main chain. */
const reachTarget = (depth) => (depth <= 4 ? 0.9 : 0.25);
const verdicts = [];
/**
 * An arm's best as a share of the best reachable: timed beside the chain's end in the same
 * rounds; for an arm that never beat the seed, the seed's share (1 / the reachable).
 */
const shareOfReachable = (arm, reachable) => arm.ofReachable ?? arm.measuredAgain / reachable;
/** Where a run's best stands on the main chain: its depth, or off it (a move took away the next chain move's text). */
const chainPlace = (depth) => (Number.isNaN(depth) ? 'off the chain' : `depth ${depth}`);

if (settings.includes('honest')) await honest();
if (settings.includes('friendly')) await friendly();

console.log('\ntargets');
for (const line of verdicts) console.log(`  ${line}`);

if (!flags['no-overhead'] && settings.includes('friendly')) {
  console.log('');
  const overhead = spawn(process.execPath, [join(REPO, 'bench', 'evolveOverhead.mjs')], { stdio: 'inherit' });
  const code = await new Promise((done) => overhead.once('exit', (c) => done(c ?? 1)));
  if (code !== 0) process.exit(code);
}

async function honest() {
  const { peagenArm, bestOfNArm, bestReachable, chainEnd } = honestSetting(REPO);
  const model = flags['sim-llm'] ? `the independent sim-llm server (${flags['sim-llm']})` : 'the honest scripted model (test/fixtures/moveTableResponder.ts)';
  const choiceText = CHOICE_SETTINGS.map((c) => (c === undefined ? 'the default answers per call' : `${c} answer(s) per call`)).join(', then ');
  console.log(`bench:evolve honest: ${PROBLEMS.join(', ')}; ${CALLS} LLM calls; workers ${WORKERS.join(', ')}; seeds ${SEEDS.join(', ')}; ${model}, latency 0${flags.quick ? '; evaluator --quick' : ''}${flags.ablate ? `; switched off: ${flags.ablate}` : ''}; ${choiceText}${BASELINE ? `; today's engine: ${BASELINE}` : ''}`);
  for (const problem of PROBLEMS) {
    const { table } = chainEnd(problem);
    const depth = table.chain.length;
    // A table with a side branch ("side": the moves of a quick gain the main chain cannot continue from) is deceptive.
    const deceptive = Array.isArray(table.side) && table.side.length > 0;
    const reachable = await bestReachable(problem, flags.quick);
    console.log(`\n${problem}: main chain ${depth} edits deep${deceptive ? `, with a side branch (${table.side.join(', ')})` : ''}; best reachable ${times(reachable)} (the chain's end, median of 3 measurements paired with the seed's; each arm's best is measured again beside the seed and the chain's end, and its share is its ratio to the chain's end in those rounds)`);
    for (const choices of CHOICE_SETTINGS) {
      for (const workers of WORKERS) {
        const arms = { peagen: [], baseline: [], control: [] };
        for (const seed of SEEDS) {
          const options = { problem, seed, workers, calls: CALLS, quick: flags.quick, simLlm: flags['sim-llm'], keep: flags.keep, ablate: flags.ablate, choices };
          // The arms of one seed run one after the other, so that the machine's drift hits them alike.
          const arm = await peagenArm(options);
          arms.peagen.push(arm);
          let line = `  ${problem} W=${workers}${choices !== undefined ? ` choices=${choices}` : ''} seed ${seed}: Peagen ${times(arm.improvement)} (${chainPlace(arm.depth)}, ${arm.evaluations} evaluations, ${Math.round(arm.callsUsed * CALLS)} calls${arm.exhausted ? ', stopped: nothing new' : ''}, ${arm.minutes.toFixed(1)} min)`;
          if (BASELINE) {
            const base = await peagenArm({ ...options, cli: join(BASELINE, 'dist', 'cli.js') });
            arms.baseline.push(base);
            line += `; today's engine ${times(base.improvement)} (${chainPlace(base.depth)})`;
          }
          if (!flags['no-control']) {
            const sampled = await bestOfNArm(options);
            arms.control.push(sampled);
            line += `; best-of-${CALLS} calls ${times(sampled.improvement)} (${chainPlace(sampled.depth)}, ${sampled.evaluations} distinct children)`;
          }
          console.log(line);
        }
        printHonestTable(problem, workers, choices, arms, reachable);
        const peagen = arms.peagen;
        const setting = `honest ${problem} W=${workers}${choices !== undefined ? ` choices=${choices}` : ''}`;
        const reached = median(peagen.map((arm) => shareOfReachable(arm, reachable)));
        const target = deceptive ? 0.5 : reachTarget(depth);
        const beside = arms.baseline.length > 0 ? ` (today's engine: ${percent(median(arms.baseline.map((arm) => shareOfReachable(arm, reachable))))})` : '';
        verdicts.push(`${setting}: median ${percent(reached)} of the best reachable${beside} (target >= ${percent(target)}${deceptive ? ', deceptive' : ''}) — ${reached >= target ? 'MET' : 'NOT MET'}`);
        if (!deceptive && depth <= 4) {
          const at100 = median(peagen.map((arm) => arm.bestAt[100] / reachable));
          verdicts.push(`${setting}: median best at 100 calls ${percent(at100)} of the best reachable (target: the chain's end, >= 90%) — ${at100 >= 0.9 ? 'MET' : 'NOT MET'}`);
        }
        const barren = median(peagen.map((arm) => arm.barrenShare));
        const stoppedEarly = peagen.filter((arm) => arm.exhausted).length;
        const barrenMet = peagen.every((arm) => arm.exhausted || arm.barrenShare <= 0.25);
        verdicts.push(`${setting}: calls that brought nothing new median ${percent(barren)}; ${stoppedEarly} of ${peagen.length} runs stopped early as exhausted (target: <= 25% of a run's calls, or the run ends early) — ${barrenMet ? 'MET' : 'NOT MET'}`);
      }
    }
  }
}

function printHonestTable(problem, workers, choices, arms, reachable) {
  const { peagen, baseline, control } = arms;
  console.log(`\n  ${problem}, ${workers} worker${workers === 1 ? '' : 's'}${choices !== undefined ? `, ${choices} answer(s) per call` : ''}, ${peagen.length} seeds: median [min–max]`);
  const columns = [['Peagen', peagen], ...(baseline.length > 0 ? [["today's engine", baseline]] : []), ...(control.length > 0 ? [[`best-of-${CALLS} (control)`, control]] : [])];
  const rows = [['', ...columns.map(([name]) => name)]];
  const row = (label, pick, format, summary = (values) => spread(values, format)) => rows.push([label, ...columns.map(([, runs]) => summary(runs.map(pick)))]);
  for (const budget of [50, 100, CALLS]) row(`best at ${budget} calls`, (arm) => arm.bestAt[budget], times);
  row('  the best, measured again', (arm) => arm.measuredAgain, times);
  row('share of best reachable', (arm) => shareOfReachable(arm, reachable), percent);
  row('main chain depth reached', (arm) => arm.depth, number(0));
  // A best that left the chain (a move took away the next chain move's text) has no depth:
  // the row above counts only the others, so say how many there were.
  row('  runs whose best left the chain', (arm) => (Number.isNaN(arm.depth) ? 1 : 0), number(0), (values) => `${values.filter((value) => value === 1).length} of ${values.length}`);
  row('calls used of --max-llm-calls', (arm) => arm.callsUsed, percent);
  row('  runs stopped early (nothing new)', (arm) => (arm.exhausted ? 1 : 0), number(0), (values) => `${values.filter((value) => value === 1).length} of ${values.length}`);
  row('calls that brought nothing new', (arm) => arm.barrenShare, percent);
  row('calls per evaluation', (arm) => arm.callsPerEvaluation, number(2));
  row('calls on format repairs', (arm) => arm.formatShare, percent);
  row('  of which gave a child', (arm) => arm.formatRate, percent);
  row('calls on re-asks (known child)', (arm) => arm.reaskShare, percent);
  row('  of which gave a new child', (arm) => arm.reaskRate, percent);
  row('calls on evaluation repairs', (arm) => arm.repairShare, percent);
  row('  of which gave a correct child', (arm) => arm.repairRate, percent);
  row('evaluations of failing children', (arm) => arm.failingEvaluations, percent);
  row('parent was the best so far', (arm) => arm.bestParent, percent);
  row('evaluations', (arm) => arm.evaluations, number(0));
  row('minutes', (arm) => arm.minutes, number(1));
  printTable(rows, '    ');
}

async function friendly() {
  const { friendlyRun } = friendlySetting(REPO);
  const workers = Number(flags['friendly-workers']);
  console.log(`\nbench:evolve friendly: examples/bad_sort, ${workers} workers, ${MINUTES} min, seeds ${SEEDS.join(', ')}; the scripted model that improves 60% of the time and fixes on repair`);
  const runs = [];
  for (const seed of SEEDS) {
    const { report, server } = await friendlyRun({ seed, minutes: MINUTES, workers, keep: flags.keep });
    const p = report.progress;
    const at25 = report.milestones.find((m) => m.factor === 25);
    runs.push({ improvement: report.best?.improvement ?? 1, minutesTo25: at25 ? at25.elapsedMs / 60_000 : undefined, evaluations: p.evaluations, calls: p.llmCalls, callsPerEvaluation: p.evaluations > 0 ? p.llmCalls / p.evaluations : undefined, failing: report.failedEvaluationShare });
    console.log(`  seed ${seed}: ${times(report.best?.improvement ?? 1)} after ${(p.elapsedMs / 60_000).toFixed(1)} min; 25x ${at25 ? `at ${(at25.elapsedMs / 60_000).toFixed(1)} min (${at25.llmCalls} calls)` : 'not reached'}; ${p.evaluations} evaluations, ${p.llmCalls} calls (server: ${server.requests} requests, ${server.rateLimited} x 429, ${server.errors} x 500)`);
  }
  const rows = [['', 'Peagen']];
  rows.push(['best', spread(runs.map((r) => r.improvement), times)]);
  rows.push(['minutes to 25x', spread(runs.map((r) => r.minutesTo25 ?? NaN), number(1))]);
  rows.push(['runs reaching 25x', `${runs.filter((r) => r.minutesTo25 !== undefined && r.minutesTo25 <= 15).length} of ${runs.length}`]);
  rows.push(['evaluations', spread(runs.map((r) => r.evaluations), number(0))]);
  rows.push(['LLM calls', spread(runs.map((r) => r.calls), number(0))]);
  rows.push(['calls per evaluation', spread(runs.map((r) => r.callsPerEvaluation), number(2))]);
  rows.push(['evaluations of failing children', spread(runs.map((r) => r.failing), percent)]);
  console.log(`\n  friendly, ${workers} workers, ${MINUTES} min, ${runs.length} seeds: median [min–max]`);
  printTable(rows, '    ');
  const medianMinutes = median(runs.map((r) => r.minutesTo25 ?? Infinity).map((m) => (Number.isFinite(m) ? m : 1e9)));
  const met = medianMinutes <= 15;
  const caveat = !met && MINUTES < 15 ? ` (these runs lasted ${MINUTES} min; run the full 15 for the verdict)` : '';
  verdicts.push(`friendly: median time to 25x ${medianMinutes < 1e9 ? `${medianMinutes.toFixed(1)} min` : 'not reached'} (target <= 15 min, 4 workers) — ${met ? 'MET' : 'NOT MET'}${caveat}`);
}
