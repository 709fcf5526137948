#!/usr/bin/env node
'use strict';
/*
 * Trusted evaluator for the Peagen `trap_windows_js` benchmark, built on peagen-harness.
 *
 * usage: node evaluate.js <candidate.js> [--seed N] [--quick] [--call-timeout S] [--repeats R]
 *
 * Prints exactly one JSON object on the LAST line of stdout:
 *   {"correct": bool, "objective": speedup, "direction": "maximize", "metrics": {...}, "error": "..."}
 * Exit status 0 whenever a verdict about the candidate was reached (also when it is wrong);
 * 2 only when the evaluator itself could not work (bad usage, the reference failed).
 *
 * How it works (peagen-harness runs every program in its own locked-down process, without
 * require, process, timers or code generation from strings, and times each call from here;
 * see harness/js/peagen-harness.js):
 *  1. Correctness: one candidate process answers fixed edge cases (k = 1, k = n, ids beyond
 *     32 bits that agree in their low bits, all equal, all distinct) and held-out logs drawn
 *     from --seed, smallest first, stopping at the first failure. Each answer must be an array
 *     of Numbers equal to the count computed here by a trusted Map-based sliding window.
 *  2. Timing: one process for the pristine reference (reference_windows.js) and one for the
 *     candidate, each warmed up with two untimed calls, then `repeats` rounds, alternating
 *     which goes first, of one timed call each on the SAME fresh input, drawn from the OS's
 *     randomness (a log of 7,000 ids in windows of 128, 3,500 with --quick, each id drawn from
 *     8 random ones): no cache kept across calls and no table computed at load
 *     time can know it. Every timed answer is checked. Calls are timed from this process
 *     (round trip minus the echo of the same input); objective = median over rounds of
 *     reference_ns / candidate_ns (paired ratio).
 * The log travels as one string and the answer as one array: passing an array of n ids would
 * cost the harness more per call (it encodes the arguments before and after every call, to see
 * whether the program changed them) than the best program's whole O(n) count, and no speedup
 * beyond ~10x could be measured.
 */
const crypto = require('crypto');
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
const { Candidate, CandidateFailure, EvaluatorError, median, mulberry32, reject, runEvaluator, timeInterleaved } = harness;

const REFERENCE = path.join(__dirname, 'reference_windows.js');
const DEFAULT_SEED = 20261126;

/** The trusted answer: a running count per id, slid along the log. */
function trueCounts(log, k) {
  const values = log.split(' ').map(Number);
  const counts = new Map();
  const out = [];
  for (let i = 0; i < values.length; i += 1) {
    counts.set(values[i], (counts.get(values[i]) || 0) + 1);
    if (i >= k) {
      const left = counts.get(values[i - k]) - 1;
      if (left === 0) counts.delete(values[i - k]);
      else counts.set(values[i - k], left);
    }
    if (i >= k - 1) out.push(counts.size);
  }
  return out;
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

/** Why `result` of distinctInWindows(log, k) is wrong, or null. */
function fault(result, log, k, label) {
  if (result.error !== null) return `${label}: threw ${result.error}`;
  const out = result.output;
  if (!Array.isArray(out)) return `${label}: returned a value of type ${result.type}, expected an array of Numbers`;
  const want = trueCounts(log, k);
  if (out.length !== want.length) return `${label}: returned ${out.length} counts, expected ${want.length} (one per window)`;
  for (let i = 0; i < want.length; i += 1) {
    if (typeof out[i] !== 'number') return `${label}: element ${i} is a ${typeof out[i]}, expected a Number`;
    if (out[i] !== want[i]) return `${label}: window ${i} has ${want[i]} distinct ids, the program answered ${out[i]}`;
  }
  return null;
}

/** proc.call(log, k), with failures (timeouts, crashes) naming the call. */
async function callWindows(proc, log, k, label) {
  try {
    return await proc.call(log, k);
  } catch (err) {
    if (err instanceof CandidateFailure) throw new CandidateFailure(`${label}: ${err.message}`);
    if (err instanceof EvaluatorError) throw new EvaluatorError(`${label}: ${err.message}`);
    throw err;
  }
}

/** Correctness inputs: fixed edge cases, then held-out logs from `rng`, smallest first. */
function correctnessInputs(rng, quick) {
  const int = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1));
  const big = 2 ** 40;
  const cases = [
    [[7], 1],
    [[1, 1, 1, 1], 2],
    [[3, 30, 3, 300, 0], 2],
    [[big, 0, big + 1, 1, 2 ** 32, 0], 3], // equal in their low 32 bits
    [[5, 6, 7, 8, 9], 5],
    [[2, 2, 3, 3, 2, 2], 1],
    [[1, 2, 2, 3, 1], 3],
    [[9, 8, 7, 8, 9, 7], 4],
  ];
  const maxN = quick ? 400 : 1500;
  const shapes = [
    (n) => Array.from({ length: n }, () => int(0, 6)), // small ids
    (n) => { const pool = Array.from({ length: int(2, 12) }, () => int(0, 2 ** 53 - 1)); return Array.from({ length: n }, () => pool[int(0, pool.length - 1)]); },
    (n) => Array.from({ length: n }, (_, i) => i * 3), // all distinct
    (n) => Array.from({ length: n }, () => 42), // all equal
    (n) => Array.from({ length: n }, (_, i) => (i % 2) * big + (i % 5)), // equal low bits
    (n) => { const out = []; while (out.length < n) { const v = int(0, 1e6); for (let r = int(1, 9); r > 0 && out.length < n; r -= 1) out.push(v); } return out; }, // runs
  ];
  for (let i = 0; i < (quick ? 8 : 14); i += 1) {
    const n = int(1, maxN);
    cases.push([shapes[i % shapes.length](n), int(1, Math.min(n, i % 3 === 0 ? n : 120))]);
  }
  return cases.map(([ids, k]) => ({ log: ids.join(' '), n: ids.length, k })).sort((a, b) => a.n - b.n);
}

/** A timing input from the OS's randomness: a log of `n` ids, each one of 8 random ids, and k. */
function timingInput(n, k) {
  const pool = Array.from({ length: 8 }, () => crypto.randomInt(0, 2 ** 40));
  return { log: Array.from({ length: n }, () => pool[crypto.randomInt(0, pool.length)]).join(' '), k };
}

async function evaluate(metrics) {
  const args = parseArgs(process.argv.slice(2));
  const quick = args.quick;
  const callTimeoutMs = 1000 * (args.callTimeout || (quick ? 3 : 8));
  const repeats = args.repeats || (quick ? 7 : 11);
  const n = quick ? 3500 : 7000;
  const k = 128;
  Object.assign(metrics, { speedup: 0, inputs_checked: 0, seed: args.seed, quick: quick ? 1 : 0 });

  const candidate = path.resolve(args.candidate);
  if (!fs.existsSync(candidate)) reject(`cannot read the candidate: ${candidate}`);
  const options = { entry: 'distinctInWindows', allow: [], callTimeoutMs, loadTimeoutMs: callTimeoutMs + 10000 };
  const refOptions = { ...options, trusted: true, callTimeoutMs: 3 * callTimeoutMs };

  // 1. correctness: fixed + held-out inputs (from the seed), smallest first
  const checks = correctnessInputs(mulberry32(args.seed * 2654435761 + 29), quick);
  const checker = await Candidate.start(candidate, options);
  try {
    for (const { log, n: count, k: width } of checks) {
      const label = `distinctInWindows('${log.length > 60 ? `${log.slice(0, 60)}...' (${count} ids)` : `${log}'`}, ${width})`;
      const why = fault(await callWindows(checker, log, width, label), log, width, label);
      metrics.inputs_checked += 1;
      if (why) reject(why);
    }
  } finally {
    checker.close();
  }

  // 2. timing: one process per side, the same fresh input for both in each round
  const procs = { reference: await Candidate.start(REFERENCE, refOptions), candidate: null };
  try {
    procs.candidate = await Candidate.start(candidate, options);
    const inputs = Array.from({ length: repeats + 2 }, () => timingInput(n, k));
    const run = async (which, input, label) => {
      const result = await callWindows(procs[which], input.log, input.k, label);
      const why = fault(result, input.log, input.k, label);
      if (why && which === 'reference') throw new EvaluatorError(`the reference gave a wrong answer: ${why}`);
      if (why) reject(why);
      if (which === 'candidate') metrics.inputs_checked += 1;
      return result;
    };
    for (const which of ['reference', 'candidate']) {
      for (const input of inputs.slice(0, 2)) await run(which, input, `warm-up call on ${n} ids, k = ${k}`);
    }
    const atFloor = [];
    const timing = await timeInterleaved(repeats, async (which, round) => {
      const result = await run(which, inputs[round + 2], `timed call on ${n} ids, k = ${k}`);
      if (which === 'candidate') atFloor.push(result.atFloor);
      return result.wallNs;
    });
    const round4 = (x) => Math.round(x * 1e4) / 1e4;
    const ms = (x) => Math.round(x) / 1e6;
    Object.assign(metrics, {
      speedup: round4(timing.speedup),
      speedup_of_medians: round4(timing.speedupOfMedians),
      candidate_ms: ms(median(timing.candidateNs)),
      reference_ms: ms(median(timing.referenceNs)),
      candidate_ms_min: ms(Math.min(...timing.candidateNs)),
      reference_ms_min: ms(Math.min(...timing.referenceNs)),
      candidate_load_ms: ms(procs.candidate.loadNs),
      at_timing_floor: atFloor.filter(Boolean).length,
      repeats,
      timed_n: n,
      timed_k: k,
    });
    return { objective: timing.speedup };
  } finally {
    procs.reference.close();
    if (procs.candidate) procs.candidate.close();
  }
}

runEvaluator(evaluate);
