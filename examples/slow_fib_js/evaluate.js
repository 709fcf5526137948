#!/usr/bin/env node
'use strict';
/*
 * Trusted evaluator for the Peagen `slow_fib_js` benchmark, built on peagen-harness.
 *
 * usage: node evaluate.js <candidate.js> [--seed N] [--quick] [--call-timeout S] [--repeats R]
 *
 * Prints exactly one JSON object on the LAST line of stdout:
 *   {"correct": bool, "objective": speedup, "direction": "maximize", "metrics": {...}, "error": "..."}
 * Exit status 0 whenever a verdict about the candidate was reached (also when it is wrong);
 * 2 only when the evaluator itself could not work (bad usage, the reference failed).
 *
 * How it works (peagen-harness runs every program in its own locked-down process and times
 * each call from here; see harness/js/peagen-harness.js):
 *  1. Correctness: one candidate process answers fixed n plus held-out n drawn from --seed,
 *     smallest first, stopping at the first failure. Each value must be a BigInt equal to the
 *     true Fibonacci number, computed here by a trusted loop.
 *  2. Timing: every round starts a FRESH process for the pristine reference (reference_fib.js)
 *     and one for the candidate (alternating which goes first). Each loads its program, makes
 *     untimed warm-up calls (n = 5, 8, 10, 12) and exactly one timed call fib(n), n drawn per
 *     round from --seed (20..22 with --quick, 25..27 otherwise); every answer is checked. A
 *     cache kept across calls therefore cannot help. Work a candidate moves out of the timed
 *     call (into loading or the warm-ups) is charged back: whatever its cheapest load +
 *     warm-up time exceeds the reference's cheapest by more than 25% of the reference's timed
 *     call (or 3 median deviations of the reference's own, when starting a process varies more
 *     than that) is added to its timed call.
 *     objective = median over rounds of reference_ns / candidate_ns (paired ratio).
 *  3. The CPU time of every timing process is read from /proc: a candidate process that used
 *     far more CPU than its measured calls explain did work where it is not timed: rejected.
 */
const fs = require('fs');
const path = require('path');

function loadHarness() {
  try {
    return require('peagen-harness'); // in a sandbox: /peagen-harness/js on NODE_PATH
  } catch (err) {
    if (!err || err.code !== 'MODULE_NOT_FOUND') throw err;
    return require(path.join(__dirname, '..', '..', 'harness', 'js', 'peagen-harness.js'));
  }
}
const harness = loadHarness();
const { Candidate, CandidateFailure, EvaluatorError, chargeUntimedWork, median, mulberry32, reject, runEvaluator, timeInterleaved } = harness;

const REFERENCE = path.join(__dirname, 'reference_fib.js');
const DEFAULT_SEED = 20250601;
const WARM_UP = [5, 8, 10, 12];

function trueFib(n) {
  let a = 0n;
  let b = 1n;
  for (let i = 0; i < n; i += 1) [a, b] = [b, a + b];
  return a;
}

function parseArgs(argv) {
  const args = { candidate: null, seed: DEFAULT_SEED, quick: false, callTimeout: 0, repeats: 0 };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--quick') args.quick = true;
    else if (a === '--seed') args.seed = Number.parseInt(argv[++i], 10);
    else if (a === '--call-timeout') args.callTimeout = Number.parseFloat(argv[++i]);
    else if (a === '--repeats') args.repeats = Number.parseInt(argv[++i], 10);
    else if (a.startsWith('--')) throw new EvaluatorError(`unknown option ${a}`);
    else if (args.candidate === null) args.candidate = a;
    else throw new EvaluatorError(`unexpected argument ${a}`);
  }
  if (!args.candidate) throw new EvaluatorError('usage: node evaluate.js <candidate.js> [--seed N] [--quick]');
  if (!Number.isInteger(args.seed)) throw new EvaluatorError('--seed needs an integer');
  if (!(args.callTimeout >= 0)) throw new EvaluatorError('--call-timeout needs a number of seconds');
  if (!(args.repeats >= 0)) throw new EvaluatorError('--repeats needs a positive integer');
  return args;
}

/** Why `result` of fib(n) is wrong, or null. */
function fault(result, n, label) {
  if (result.error !== null) return `${label}: threw ${result.error}`;
  if (result.type !== 'bigint') return `${label}: returned a value of type ${result.type}, expected a BigInt`;
  const expected = trueFib(n);
  if (result.output !== expected) {
    const got = String(result.output);
    return `${label}: returned ${got.length > 40 ? `${got.slice(0, 40)}...` : got}n, expected ${expected}n`;
  }
  return null;
}

/** proc.call(n), with failures (timeouts, crashes) naming the call. */
async function callFib(proc, n, label) {
  try {
    return await proc.call(n);
  } catch (err) {
    if (err instanceof CandidateFailure) throw new CandidateFailure(`${label}: ${err.message}`);
    if (err instanceof EvaluatorError) throw new EvaluatorError(`${label}: ${err.message}`);
    throw err;
  }
}

async function evaluate(metrics) {
  const args = parseArgs(process.argv.slice(2));
  const quick = args.quick;
  const callTimeoutMs = 1000 * (args.callTimeout || (quick ? 2 : 5));
  const repeats = args.repeats || (quick ? 7 : 11);
  const timedMax = quick ? 22 : 27;
  Object.assign(metrics, { speedup: 0, inputs_checked: 0, seed: args.seed, quick: quick ? 1 : 0 });

  const candidate = path.resolve(args.candidate);
  if (!fs.existsSync(candidate)) reject(`cannot read the candidate: ${candidate}`);
  const options = { entry: 'fib', allow: [], callTimeoutMs, loadTimeoutMs: callTimeoutMs + 10000 };
  const refOptions = { ...options, trusted: true, callTimeoutMs: 3 * callTimeoutMs };

  // 1. correctness: fixed + held-out n (from the seed), smallest first
  const rng = mulberry32(args.seed * 2654435761 + 17);
  const maxN = quick ? 20 : 24;
  const ns = new Set([0, 1, 2, 3, 5, 8, 13, quick ? 18 : 20]);
  while (ns.size < (quick ? 12 : 16)) ns.add(Math.floor(rng() * (maxN + 1)));
  const checks = [...ns].sort((a, b) => a - b);
  const checker = await Candidate.start(candidate, options);
  try {
    for (const n of checks) {
      const why = fault(await callFib(checker, n, `fib(${n})`), n, `fib(${n})`);
      metrics.inputs_checked += 1;
      if (why) reject(why);
    }
  } finally {
    checker.close();
  }
  metrics.correctness_inputs = checks.length;
  metrics.max_n = Math.max(...checks);

  // 2. timing: fresh processes, one timed call each
  const timedNs = Array.from({ length: repeats }, () => timedMax - Math.floor(rng() * 3));
  const runs = { reference: [], candidate: [] };
  const measure = async (which, round) => {
    const isRef = which === 'reference';
    const proc = await Candidate.start(isRef ? REFERENCE : candidate, isRef ? refOptions : options);
    try {
      let warmNs = 0;
      for (const n of WARM_UP) {
        const result = await callFib(proc, n, `fib(${n}) (warm-up)`);
        const why = fault(result, n, `fib(${n}) (warm-up)`);
        if (why && isRef) throw new EvaluatorError(`the reference gave a wrong answer: ${why}`);
        if (why) reject(why);
        warmNs += result.wallNs;
      }
      const n = timedNs[round];
      const result = await callFib(proc, n, `fib(${n}) (timed)`);
      const why = fault(result, n, `fib(${n}) (timed)`);
      if (why && isRef) throw new EvaluatorError(`the reference gave a wrong answer: ${why}`);
      if (why) reject(why);
      if (!isRef) metrics.inputs_checked += WARM_UP.length + 1;
      const wallNs = proc.loadNs + warmNs + result.wallNs;
      runs[which].push({ timedNs: result.wallNs, outsideNs: proc.loadNs + warmNs, wallNs, cpuNs: proc.cpuNs(), atFloor: result.atFloor });
      return result.wallNs;
    } finally {
      proc.close();
    }
  };
  const timing = await timeInterleaved(repeats, measure);

  // Work moved out of the timed call is charged back (see the file comment); 3. CPU used
  // where nothing was timed is a rejection.
  const refTimed = median(timing.referenceNs);
  const { charged, referenceOutsideNs: refOutside } = chargeUntimedWork(runs, timing.referenceNs);

  const speedup = median(timing.referenceNs.map((ref, i) => ref / charged[i]));
  const candMed = median(charged);
  const round4 = (x) => Math.round(x * 1e4) / 1e4;
  const ms = (x) => Math.round(x) / 1e6;
  Object.assign(metrics, {
    speedup: round4(speedup),
    speedup_of_medians: round4(refTimed / candMed),
    candidate_ms: ms(candMed),
    reference_ms: ms(refTimed),
    candidate_ms_min: ms(Math.min(...charged)),
    reference_ms_min: ms(Math.min(...timing.referenceNs)),
    candidate_load_ms: ms(median(runs.candidate.map((r) => r.outsideNs))),
    reference_load_ms: ms(refOutside),
    charged_outside_ms: ms(median(charged.map((c, i) => c - runs.candidate[i].timedNs))),
    candidate_cpu_ms: ms(median(runs.candidate.map((r) => r.cpuNs ?? 0))),
    reference_cpu_ms: ms(median(runs.reference.map((r) => r.cpuNs ?? 0))),
    at_timing_floor: runs.candidate.filter((r) => r.atFloor).length,
    repeats,
    timed_n: timedMax,
  });
  return { objective: speedup };
}

runEvaluator(evaluate);
