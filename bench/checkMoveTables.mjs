#!/usr/bin/env node
// `node bench/checkMoveTables.mjs [--quick] [--only NAME] [--keep]`: measures the move tables in
// bench/moves/ (the sim-llm format, see /work/shared/sim-llm/README.md, plus "chain" and
// "effect") with the REAL evaluators, through the CLI: `peagen --json eval examples/<name>
// --program FILE`. It applies the table's main chain to the seed; at every chain state it applies
// each applicable move once and evaluates that child, then compares the child with the state:
//   - the chain move must be correct and at least MIN_STEP (1.2x) faster than the state;
//   - a neutral move must stay correct; a harmful "breaks" move must give a wrong program;
//   - a harmful "slower" move must stay correct and must not be faster than the state.
// A deceptive table (trap_windows_js, trap_pairs, holdout_lis) declares more, on improving moves:
//   - "effect": "valley" (a chain move): correct, and neither faster than the state beyond noise
//     (VALLEY_NOISE) nor much slower (VALLEY_LOW): a stepping stone that pays only later;
//   - "effect": "fix" (the independent fixes closing the chain; they may apply from the seed on,
//     beside the chain move): at their place in the chain at least MIN_FIX faster (small by
//     design, 1.1-1.5x, where MIN_STEP would call them noise); anywhere else correct and not
//     slower than the state beyond noise (FIX_NOISE), on the median of REPEATS evaluations;
//   - "effect": "side-branch" (listed in the table's "side"): correct and at least SIDE_MIN_GAIN
//     faster than the seed, MIN_STEP at the later chain states where it still applies (there
//     it also carries the chain's unused stepping stones). Then the branch is walked from the
//     seed: the side moves that apply, in the order "side" lists them, then every fix that
//     applies (chain fixes or the table's fixes re-anchored on the branch), each measured
//     against its parent; no chain move but a fix may apply on it, and its end (median of
//     REPEATS) must be at most SIDE_MAX_SHARE of the chain's end, or the side branch is no trap.
// It prints one line per move (declared kind vs. measured outcome), then the best reachable
// program (the chain's end, median of 3 full evaluations), and exits 1 when a declaration
// contradicts a measurement (2 when an evaluation could not run at all). Every chain state is
// evaluated REPEATS (3) times and stands for the median: the evaluators' noise (a few percent
// for bad_sort, up to ~15% for slow_fib_js) must not decide a 1.2x threshold.
// --quick: for bad_sort and dedupe_counts, the children off the chain are evaluated with the
// evaluator's --quick mode (smaller inputs), against REPEATS --quick evaluations of their parent
// (where those agree within QUICK_SPREAD; else that state's children are evaluated in full after
// all, as can happen at dedupe_counts's chain end, a few hundred microseconds a round). slow_fib_js
// keeps full evaluations: its --quick mode times one fib(20..22) call, about a millisecond once
// the chain has sped it up, and single quick ratios there swing by 2-3x. The chain itself is
// always measured in full.
// Needs the built CLI (node scripts/build.mjs). Runs one evaluation at a time: the evaluators
// time the candidates, so nothing else should run on the machine meanwhile.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(REPO, 'dist', 'cli.js');
/** quickChildren: whether --quick evaluates the children off the chain with the evaluator's --quick. */
const TABLES = [
  { name: 'bad_sort', table: 'bench/moves/bad_sort.moves.json', example: 'examples/bad_sort', quickChildren: true },
  { name: 'slow_fib_js', table: 'bench/moves/slow_fib_js.moves.json', example: 'examples/slow_fib_js', quickChildren: false },
  { name: 'dedupe_counts', table: 'bench/moves/dedupe_counts.moves.json', example: 'examples/dedupe_counts', quickChildren: true },
  { name: 'trap_windows_js', table: 'bench/moves/trap_windows_js.moves.json', example: 'examples/trap_windows_js', quickChildren: true },
  { name: 'trap_pairs', table: 'bench/moves/trap_pairs.moves.json', example: 'examples/trap_pairs', quickChildren: true },
  { name: 'holdout_lis', table: 'bench/moves/holdout_lis.moves.json', example: 'examples/holdout_lis', quickChildren: true },
];
/** The least speedup over its parent that a chain step must show. */
const MIN_STEP = 1.2;
/** Full evaluations of every chain state (its objective is their median). */
const REPEATS = 3;
/** The largest (max - min) / median of a state's --quick runs for its children to be judged by --quick runs. */
const QUICK_SPREAD = 0.15;
/** The most a "valley" chain step may gain over its parent (noise): it must not pay by itself. */
const VALLEY_NOISE = 1.15;
/** The least ratio of a "valley" chain step: it may cost a little ("no gain, then slower": trap_pairs's C4 about 0.8x), not much. */
const VALLEY_LOW = 0.7;
/** The least a "fix" gains at its place in the chain (it is small by design: 1.1-1.5x). */
const MIN_FIX = 1.1;
/** The least ratio a "fix" shows off its place (where its waste is lost in the state's cost). */
const FIX_NOISE = 0.85;
/** The least gain of a side-branch move over the seed ("a quick, big gain"). */
const SIDE_MIN_GAIN = 4;
/** The largest share of the chain's end that the side branch's end may reach. */
const SIDE_MAX_SHARE = 0.15;

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const selected = TABLES.filter((t) => !flags.only || t.name === flags.only);
if (selected.length === 0) {
  console.error(`usage: node bench/checkMoveTables.mjs [--quick] [--only ${TABLES.map((t) => t.name).join('|')}] [--keep]`);
  process.exit(2);
}

// ---------------------------------------------------------------- tables and line-aligned matching

const stripNl = (text) => text.replace(/\r\n/g, '\n').replace(/\n+$/, '');

function loadTable(file) {
  const table = JSON.parse(readFileSync(join(REPO, file), 'utf8'));
  const moves = table.moves.map((move) => ({
    ...move,
    blocks: (move.blocks ?? [{ search: move.search, replace: move.replace }]).map((b) => ({ search: stripNl(b.search), replace: stripNl(b.replace) })),
  }));
  return { ...table, moves, byId: new Map(moves.map((move) => [move.id, move])) };
}

/** First line index at which `search` equals whole consecutive lines of `lines`, or -1. */
function findLines(lines, search) {
  outer: for (let i = 0; i + search.length <= lines.length; i++) {
    for (let k = 0; k < search.length; k++) if (lines[i + k] !== search[k]) continue outer;
    return i;
  }
  return -1;
}

/** `program` with every block of `move` applied in order, or null when a block does not match. */
function applyMove(program, move) {
  let lines = program.split('\n');
  for (const block of move.blocks) {
    const search = block.search.split('\n');
    const at = findLines(lines, search);
    if (at < 0) return null;
    lines = [...lines.slice(0, at), ...block.replace.split('\n'), ...lines.slice(at + search.length)];
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- evaluation through the CLI

const work = mkdtempSync(join(tmpdir(), 'peagen-move-tables-'));
let evaluations = 0;

function run(args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** Evaluates `code` as the example's program: { correct, objective, error }. */
async function evaluate(spec, code, quick) {
  const file = join(work, `${String(++evaluations).padStart(4, '0')}-${spec.programFile}`);
  writeFileSync(file, code);
  const args = ['--json', 'eval', spec.example, '--program', file, ...(quick ? ['--quick'] : [])];
  const { code: exit, stdout, stderr } = await run(args);
  let verdict;
  try {
    verdict = JSON.parse(stdout);
  } catch {
    throw new Error(`peagen ${args.join(' ')} exited ${exit} without a JSON verdict:\n${stderr.slice(-2000)}`);
  }
  if (typeof verdict.correct !== 'boolean') throw new Error(`peagen ${args.join(' ')}: no verdict in ${stdout.slice(0, 500)}`);
  const objective = verdict.correct ? Number(verdict.objective) : 0;
  return { correct: verdict.correct, objective, error: verdict.errorText ?? verdict.failure?.message ?? null };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

/** REPEATS evaluations of a chain state: correct only if every run is; the median objective. */
async function measureState(spec, code, quick = false) {
  const runs = [];
  for (let r = 0; r < REPEATS; r++) runs.push(await evaluate(spec, code, quick));
  const wrong = runs.find((run) => !run.correct);
  const objectives = runs.map((run) => run.objective);
  return { correct: !wrong, objective: wrong ? 0 : median(objectives), error: wrong?.error ?? null, runs: objectives };
}
const spread = (state) => `[${state.runs.map(fmt).join(', ')}]`;

// ---------------------------------------------------------------- judging

function declared(move, isChain) {
  if (isChain) return move.effect ? `chain/${move.effect}` : 'improve (chain)';
  return move.effect ? `${move.kind}/${move.effect}` : move.kind;
}

/**
 * The contradiction between what `move` declares and what was measured (`ratio`: child /
 * parent; `atSeed`: the parent is the seed), or null.
 */
function contradiction(move, isChain, child, ratio, atSeed = false) {
  if (move.effect === 'valley' && isChain) {
    if (!child.correct) return 'a valley step breaks the program';
    if (ratio > VALLEY_NOISE) return `a valley step gains ${fmt(ratio)}x by itself (> ${VALLEY_NOISE}x: not a valley)`;
    return ratio < VALLEY_LOW ? `a valley step costs too much (${fmt(ratio)}x < ${VALLEY_LOW}x)` : null;
  }
  if (move.effect === 'fix') {
    if (!child.correct) return 'a fix breaks the program';
    if (isChain) return ratio < MIN_FIX ? `a fix gains only ${fmt(ratio)}x at its place in the chain (< ${MIN_FIX}x)` : null;
    return ratio < FIX_NOISE ? `a fix is slower off its place (${fmt(ratio)}x < ${FIX_NOISE}x)` : null;
  }
  if (move.effect === 'side-branch') {
    if (!child.correct) return 'a side-branch move breaks the program';
    const least = atSeed ? SIDE_MIN_GAIN : MIN_STEP;
    return ratio < least ? `a side-branch move gains only ${fmt(ratio)}x (< ${least}x)` : null;
  }
  if (isChain || move.kind === 'improve') {
    if (!child.correct) return 'an improving move breaks the program';
    if (ratio < MIN_STEP) return `an improving move gains only ${fmt(ratio)}x (< ${MIN_STEP}x)`;
    return null;
  }
  if (move.kind === 'neutral') return child.correct ? null : 'a neutral move breaks the program';
  if (move.kind === 'harmful' && move.effect === 'breaks') return child.correct ? 'a breaking move keeps the program correct' : null;
  if (move.kind === 'harmful' && move.effect === 'slower') {
    if (!child.correct) return 'a slower move breaks the program';
    return ratio > 1 ? `a slower move is faster (${fmt(ratio)}x)` : null;
  }
  return null;
}

async function checkTable(spec) {
  const table = loadTable(spec.table);
  const example = JSON.parse(readFileSync(join(REPO, spec.example, 'peagen.example.json'), 'utf8'));
  spec.programFile = example.program;
  const seed = readFileSync(join(REPO, spec.example, example.program), 'utf8');
  const chain = table.chain.map((id) => {
    const move = table.byId.get(id);
    if (!move) throw new Error(`${spec.name}: the chain names an unknown move ${id}`);
    return move;
  });
  const states = [seed];
  for (const move of chain) {
    const next = applyMove(states.at(-1), move);
    if (next === null) throw new Error(`${spec.name}: chain move ${move.id} does not apply after ${states.length - 1} steps`);
    states.push(next);
  }

  const useQuick = flags.quick && spec.quickChildren;
  const note = !flags.quick ? '' : useQuick ? ' (children off the chain: --quick)' : ' (--quick: too noisy for this evaluator, children measured in full)';
  console.log(`\n== ${spec.name}: ${chain.length} chain steps, ${table.moves.length} moves${note}`);
  const problems = [];
  const full = [await measureState(spec, seed)];
  const steps = [];
  for (let k = 0; k < states.length; k++) {
    const state = states[k];
    const base = full[k];
    if (!base.correct) problems.push(`S${k} is not correct: ${base.error}`);
    const applicable = table.moves.filter((move) => applyMove(state, move) !== null);
    // Beside chain move k only the fixes still to come may apply (from the seed on, or only
    // at their place: both designs are honest).
    const expected = k < chain.length ? [chain[k].id] : [];
    const fixesToCome = new Set(chain.slice(k + 1).filter((move) => move.effect === 'fix').map((move) => move.id));
    const chainHere = applicable.filter((move) => table.chain.includes(move.id) && !fixesToCome.has(move.id));
    if (chainHere.map((m) => m.id).join() !== expected.join()) {
      problems.push(`S${k}: chain moves applicable ${JSON.stringify(chainHere.map((m) => m.id))}, expected ${JSON.stringify(expected)}`);
    }
    const label = k === 0 ? 'the seed' : `after ${chain[k - 1].id}`;
    console.log(`\nS${k} (${label}): ${fmt(base.objective)}x vs the seed's reference ${spread(base)}; ${applicable.length} applicable moves; chain move: ${expected[0] ?? '(none, end of the chain)'}`);
    let quick = false;
    let quickBase = base;
    if (useQuick) {
      const measured = await measureState(spec, state, true);
      const width = (Math.max(...measured.runs) - Math.min(...measured.runs)) / measured.objective;
      quick = measured.correct && width <= QUICK_SPREAD;
      if (quick) quickBase = measured;
      console.log(`  (--quick runs of this state: ${spread(measured)}, ${quick ? 'children measured with --quick' : `spread ${(100 * width).toFixed(0)}% > ${100 * QUICK_SPREAD}%: children measured in full`})`);
    }
    for (const move of applicable) {
      const isChain = move.id === expected[0];
      let child;
      let ratio;
      if (isChain) {
        child = await measureState(spec, states[k + 1]);
        full.push(child);
        ratio = child.objective / base.objective;
        steps.push({ id: move.id, ratio, objective: child.objective });
      } else if (move.effect === 'fix' || move.effect === 'side-branch') {
        // Off its place a fix's gain is lost in the state's cost: a ratio near 1 whose single
        // measurements swing by 25% on a loaded machine, so it is judged on their median too;
        // so is a side move, whose gain decides whether the table is a trap at all.
        child = await measureState(spec, applyMove(state, move), quick);
        ratio = child.objective / quickBase.objective;
      } else {
        child = await evaluate(spec, applyMove(state, move), quick);
        ratio = child.objective / quickBase.objective;
      }
      const problem = contradiction(move, isChain, child, ratio, k === 0);
      if (problem) problems.push(`S${k} + ${move.id}: ${problem}`);
      const outcome = child.correct ? `correct  ${fmt(ratio).padStart(6)}x` : `WRONG    ${''.padStart(6)} `;
      const why = child.correct ? '' : `  (${String(child.error).replace(/\s+/g, ' ').slice(0, 80)})`;
      console.log(`  ${move.id.padEnd(26)} ${declared(move, isChain).padEnd(16)} ${outcome}  ${problem ? `CONTRADICTION: ${problem}` : 'ok'}${why}`);
    }
  }

  const end = full.at(-1);
  console.log(`\n${spec.name} chain: ${steps.map((s) => `${s.id} ${fmt(s.ratio)}x (-> ${fmt(s.objective)}x)`).join(', ')}`);
  console.log(`${spec.name} best reachable (end of the chain, median of ${REPEATS}): ${fmt(end.objective)}x ${spread(end)}`);
  if (table.side?.length) problems.push(...(await checkSideBranch(spec, table, seed, full[0], end)));
  return problems.map((p) => `${spec.name} ${p}`);
}

/**
 * Walks the side branch of a deceptive table from the seed: the side moves that apply (in the
 * order "side" lists them; the first is judged against SIDE_MIN_GAIN), then, as long as one
 * applies, the first fix of the table that applies. Each step is measured against its parent
 * (REPEATS full evaluations each); no chain move other than a fix may apply on the branch, and
 * the branch's end must stay at most SIDE_MAX_SHARE of the chain's end.
 */
async function checkSideBranch(spec, table, seed, seedState, end) {
  const problems = [];
  const chainIds = new Set(table.chain);
  const blocked = (code) =>
    table.moves.filter((move) => move.kind === 'improve' && move.effect !== 'fix' && move.effect !== 'side-branch' && applyMove(code, move) !== null).map((move) => move.id);
  console.log(`\n${spec.name} side branch from the seed: the side moves, then the fixes that apply`);
  let code = seed;
  let state = seedState;
  const walked = [];
  const step = async (move) => {
    const next = applyMove(code, move);
    const child = await measureState(spec, next);
    const ratio = child.objective / state.objective;
    const problem = contradiction(move, false, child, ratio, walked.length === 0);
    if (problem) problems.push(`side branch + ${move.id}: ${problem}`);
    console.log(`  side branch + ${move.id.padEnd(22)} ${declared(move, chainIds.has(move.id)).padEnd(18)} ${child.correct ? `correct  ${fmt(ratio).padStart(6)}x -> ${fmt(child.objective)}x ${spread(child)}` : 'WRONG'}  ${problem ? `CONTRADICTION: ${problem}` : 'ok'}`);
    const stray = blocked(next);
    if (stray.length) problems.push(`side branch + ${move.id}: chain moves ${JSON.stringify(stray)} still apply (the branch must block the chain)`);
    walked.push(move.id);
    code = next;
    state = child;
  };
  for (const move of table.side.map((id) => table.byId.get(id))) if (applyMove(code, move) !== null) await step(move);
  const fixHere = () => table.moves.find((move) => move.effect === 'fix' && !walked.includes(move.id) && applyMove(code, move) !== null);
  for (let fix; (fix = fixHere()); ) await step(fix);
  if (!table.side.includes(walked[0])) {
    problems.push('no side move applies to the seed');
    return problems;
  }
  const share = state.objective / end.objective;
  console.log(`${spec.name} side branch's end (${walked.join(' + ')}, median of ${REPEATS}): ${fmt(state.objective)}x = ${(100 * share).toFixed(1)}% of the chain's end (at most ${100 * SIDE_MAX_SHARE}%)`);
  if (!(share <= SIDE_MAX_SHARE)) problems.push(`the side branch's end is ${(100 * share).toFixed(1)}% of the chain's end (> ${100 * SIDE_MAX_SHARE}%): no trap`);
  return problems;
}

const started = Date.now();
let problems = [];
let status = 0;
try {
  for (const spec of selected) problems = problems.concat(await checkTable(spec));
  status = problems.length ? 1 : 0;
} catch (err) {
  console.error(`\nerror: ${err instanceof Error ? err.message : String(err)}`);
  status = 2;
} finally {
  if (!flags.keep) rmSync(work, { recursive: true, force: true });
  else console.log(`\nprograms kept in ${work}`);
}
console.log(`\n${evaluations} evaluations in ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (problems.length) console.log(`\n${problems.length} contradiction(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
else if (status === 0) console.log('every declared kind matches its measurement');
process.exit(status);
