/**
 * The JavaScript evaluator the scaffold writes (placeholders __FUNCTION__, __PROGRAM__,
 * __REFERENCE__, __TESTS__, __PROJECT__, __PROJECT_PROGRAM__, __OBJECTIVE__ are JSON literals,
 * see {@link EvaluatorSettings} in scaffoldExample.ts). It is built on peagen-harness exactly as
 * examples/slow_fib_js is: the candidate never runs in the evaluator's process, every answer is
 * compared with the pristine reference's, and every call is timed from outside.
 */
export const JS_EVALUATOR = String.raw`#!/usr/bin/env node
// Peagen's file, not the project's: the project's own linter (eslint ., run by its tests) need not accept it.
/* eslint-disable */
'use strict';
/*
 * Evaluator scaffolded by Peagen for __FUNCTION__ in __PROGRAM__: REVIEW IT before evolving.
 *
 * usage: node peagen_evaluate.js <candidate.js> [--seed N] [--quick]
 * Prints one JSON line last: {"correct", "objective", "direction", "metrics", "error"}; exit
 * status 0 for every verdict about the candidate, 2 when the evaluator itself cannot work.
 *
 * Built on Peagen's evaluation harness (peagen-harness, as examples/slow_fib_js/evaluate.js),
 * because evolution optimises whatever this file rewards and the candidates are written by a model:
 *  1. The project's tests: TESTS (a shell command) in a copy of the project's files (PROJECT, a
 *     copy made by peagen init) with the candidate in place of PROJECT_PROGRAM, behind a stand-in
 *     that forwards each call to it in its own process (peagen_harness.project_tests, run with
 *     python3); without TESTS, node --test in a copy of this directory when it has tests. A
 *     failing test rejects it.
 *  2. Correctness: the candidate runs in its own locked-down process (peagen-harness Candidate:
 *     no process, no require but the builtin modules the original program requires, no eval)
 *     and gets one input per call; each answer must equal the answer of the pristine reference
 *     (__REFERENCE__, next to this file), in its own process too. The inputs: the calls the
 *     project's tests made (peagen_inputs.json, captured by peagen init --tests), then inputs
 *     of the same kinds drawn from --seed.
 *  3. Timing: every round starts a FRESH reference and candidate process (alternating which goes
 *     first), warms both up on a small input, then times ONE call on a fresh input (drawn from
 *     the OS's randomness for lists and strings), checked as well. The time is the round trip
 *     measured here minus the cost of an empty one, never what the child says. Load and warm-up
 *     time beyond the reference's (plus 25% of its timed call, or its start-up noise) is charged
 *     to the timed call, and a process that used far more CPU than its measured calls explain
 *     is rejected.
 *     objective = median over rounds of reference time / candidate time ("speedup").
 *     With OBJECTIVE "score" there is no timing and no comparison: the function's answer must
 *     be a finite number, and objective = the mean of its answers over the inputs ("score"; the
 *     candidate writes the function that returns it, so keep what computes the score outside
 *     the EVOLVE-BLOCK, e.g. evolve the function a scorer calls).
 * Edit sampleArgs() to time the function on realistic inputs.
 */
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const FUNCTION = __FUNCTION__;
const ENTRY = __ENTRY__; // how FUNCTION is reached from the program's exports, the same for every candidate
const PROGRAM = __PROGRAM__;
const REFERENCE = path.join(__dirname, __REFERENCE__);
const TESTS = __TESTS__; // the project's test command, or null
const PROJECT = __PROJECT__; // the copy of the project's files the tests run in (relative to here), or null
const PROJECT_PROGRAM = __PROJECT_PROGRAM__; // where the program lives in that copy
const OBJECTIVE = __OBJECTIVE__; // 'speed' or 'score'
const INPUTS = path.join(__dirname, 'peagen_inputs.json'); // captured calls: {source, calls: [[arg, ...], ...]}

let harnessFile; // where peagen-harness was loaded from: its python/ is beside its js/
function loadHarness() {
  try {
    const loaded = require('peagen-harness'); // in every Peagen sandbox: NODE_PATH has it
    harnessFile = require.resolve('peagen-harness');
    return loaded;
  } catch (err) {
    if (!err || err.code !== 'MODULE_NOT_FOUND') throw err;
  }
  if (process.env.PEAGEN_HARNESS_LIB) {
    harnessFile = path.join(process.env.PEAGEN_HARNESS_LIB, 'js', 'peagen-harness.js');
    return require(harnessFile);
  }
  console.log(JSON.stringify({ correct: false, objective: 0, direction: 'maximize', metrics: {}, error: 'evaluator error: peagen-harness is not loadable: run this evaluator through Peagen, or set NODE_PATH=<peagen>/harness/js' }));
  process.exit(2);
}
const harness = loadHarness();
const { Candidate, CandidateFailure, EvaluatorError, chargeUntimedWork, encodeWire, median, medianInterval, mulberry32, reject, runEvaluator, timeInterleaved } = harness;

// TypeScript is read with its types stripped, as the harness runs it.
const REFERENCE_TEXT = fs.readFileSync(REFERENCE, 'utf8'); // as written: its declared types are read from it
const REFERENCE_SOURCE = harness.programSource(REFERENCE, REFERENCE_TEXT);
/** The project's node_modules, read-only, when peagen init found one (PEAGEN_PROJECT_DEPENDENCIES). */
const PACKAGES = (process.env.PEAGEN_PROJECT_DEPENDENCIES || '').split(':').find((dir) => path.basename(dir) === 'node_modules' && fs.existsSync(dir)) || '';
/** Builtin modules the original program requires, and its packages when the project's are here: the candidate may require the same ones. */
const ALLOW = [...new Set([...REFERENCE_SOURCE.matchAll(/(?:require\(\s*|from\s+|import\s+)['"]([^'"]+)['"]/g)].map((m) => m[1]))].filter((name) =>
  require('module').builtinModules.includes(name.replace(/^node:/, '')) || (PACKAGES !== '' && !name.startsWith('.') && !name.startsWith('/')),
);

/** The project's modules the original imports by relative path, from the copy of the project (when there is one). */
const MODULES = PROJECT === null ? null : harness.projectModules(REFERENCE_SOURCE, path.join(__dirname, PROJECT, PROJECT_PROGRAM));

/**
 * The parameters, from the reference's source: each one's name and its declared type, from a
 * TypeScript annotation ('text: string') or the JSDoc just above the function ('@param
 * {number[]} values'), else ''. Defaults and rest parameters dropped. A function, an arrow or
 * a member of an object ('slug(text) {', 'slug: (text) =>').
 */
function parameters() {
  const name = FUNCTION.replace(/\$/g, '\\$');
  const found =
    new RegExp('function\\s*\\*?\\s*' + name + '\\s*(?:<[^>]*>)?\\s*\\(([^)]*)\\)').exec(REFERENCE_TEXT) ||
    new RegExp(name + '\\s*[=:]\\s*(?:async\\s*)?(?:function\\b[^(]*)?(?:<[^>]*>)?\\s*\\(([^)]*)\\)').exec(REFERENCE_TEXT) ||
    new RegExp(name + '\\s*[=:]\\s*(?:async\\s+)?([A-Za-z_$][\\w$]*)\\s*=>').exec(REFERENCE_TEXT) ||
    new RegExp('^\\s*' + name + '\\s*\\(([^)]*)\\)\\s*(?::[^{]+)?\\{', 'm').exec(REFERENCE_TEXT);
  if (!found) return [];
  const comment = /\/\*\*((?:[^*]|\*(?!\/))*)\*\/\s*$/.exec(REFERENCE_TEXT.slice(0, found.index).replace(/[^\n]*$/, ''));
  const documented = {};
  for (const m of (comment ? comment[1] : '').matchAll(/@param\s*\{([^}]+)\}\s*\[?([A-Za-z_$][\w$]*)/g)) documented[m[2]] = m[1];
  return found[1]
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p && !/[=.]/.test(p))
    .map((p) => {
      const [paramName, ...annotation] = p.split(':');
      const cleanName = paramName.replace(/\?$/, '').trim();
      return { name: cleanName, type: (annotation.join(':') || documented[cleanName] || '').trim() };
    });
}
/** What kind of value a parameter takes, from its declared type, else guessed from its name: edit to taste. */
function guessKind({ name, type }) {
  const t = type.replace(/\s/g, '').toLowerCase();
  if (/^(string\[\]|array<string>|readonlyarray<string>|readonlystring\[\])$/.test(t)) return 'strings';
  if (/^(number\[\]|array<number>|readonlyarray<number>|readonlynumber\[\])$/.test(t)) return 'list';
  if (t === 'string') return 'string';
  if (t === 'number' || t === 'bigint') return 'int';
  if (t === 'boolean') return 'bool';
  if (/^(n|k|m|i|j|num|count|size|index|depth|limit|steps?)$|^n[A-Z_]|(Count|Size|Index|Num)$/.test(name)) return 'int';
  if (/^(s|str|text|word|name|key|string)$|(Str|Text|Name)$/.test(name)) return 'string';
  return 'list';
}
function sample(kind, random, size, timed) {
  if (kind === 'int') return timed ? size - Math.floor(random() * 3) : Math.min(size, Math.floor(random() * 21));
  if (kind === 'string') return Array.from({ length: size }, () => 'abcdefgh'[Math.floor(random() * 8)]).join('');
  if (kind === 'bool') return random() < 0.5;
  if (kind === 'strings') return Array.from({ length: size }, () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => 'abcd'[Math.floor(random() * 4)]).join(''));
  return Array.from({ length: size }, () => Math.floor(random() * 2e6) - 1e6);
}
/** Arguments of one call of about size elements: edit to taste. */
function sampleArgs(kinds, random, size, timed) {
  return kinds.map((kind) => {
    if (!kind.startsWith('sorted ')) return sample(kind, random, size, timed);
    // Sorted for timing; half the time for correctness, so that the answers vary.
    const drawn = sample(kind.slice('sorted '.length), random, size, timed);
    return timed || random() < 0.5 ? drawn.sort(kind === 'sorted list' ? (a, b) => a - b : undefined) : drawn;
  });
}

/**
 * The arguments of the calls the project's tests made and what the original answered then
 * (recorded by peagen init; an answer is {value} or null when not recorded).
 */
function capturedCalls() {
  if (!fs.existsSync(INPUTS)) return { calls: [], answers: [] };
  const data = JSON.parse(fs.readFileSync(INPUTS, 'utf8'));
  const calls = data.calls || [];
  return { calls, answers: data.answers || calls.map(() => null) };
}
function kindOf(value) {
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : null;
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')) return 'strings';
  if (Array.isArray(value) && value.every((item) => typeof item === 'number' && Number.isInteger(item))) return 'list';
  return null;
}
/** The commonest of values (the first seen of those as common). */
function commonest(values) {
  const counts = new Map();
  for (const value of values) counts.set(value, (counts.get(value) || 0) + 1);
  let best = values[0];
  for (const [value, count] of counts) if (count > counts.get(best)) best = value;
  return best;
}
/**
 * The kinds the tests' calls show, else null: of the calls of the commonest arity, each
 * argument's commonest kind (a test of coercion that passes true where the others pass
 * strings does not make the function's input a boolean).
 */
function capturedKinds(calls) {
  if (calls.length === 0) return null;
  const arity = commonest(calls.map((call) => call.length));
  const same = calls.filter((call) => call.length === arity);
  const kinds = Array.from({ length: arity }, (_, at) => commonest(same.map((call) => kindOf(call[at]))));
  if (kinds.includes(null)) return null;
  // A list kind is drawn sorted when every list the tests passed there is in ascending order
  // and one has 3 or more items: a function given sorted data (a merge, a search, a check of
  // order) does its real work only on sorted data, and random lists would time its quickest way out.
  return kinds.map((kind, at) => {
    const column = same.map((call) => call[at]);
    const ordered = (kind === 'list' || kind === 'strings') &&
      column.every((v) => Array.isArray(v) && (v.length === 0 || kindOf(v) === kind) && v.every((item, i) => i === 0 || v[i - 1] <= item)) &&
      Math.max(...column.map((v) => v.length)) >= 3;
    return ordered ? 'sorted ' + kind : kind;
  });
}
const { calls: CALLS, answers: ANSWERS } = capturedCalls();

/**
 * count calls like calls (of their commonest arity), each with one argument varied within
 * what those calls show: an integer or number in their range, a string edited with their
 * characters, a list of their elements, a record with one numeric field in its range; any
 * other value is one of theirs.
 */
function varyCalls(random, calls, count) {
  const arity = commonest(calls.map((call) => call.length));
  const same = calls.filter((call) => call.length === arity);
  if (same.length === 0 || arity === 0) return [];
  const pick = (items) => items[Math.floor(random() * items.length)];
  const columns = Array.from({ length: arity }, (_, at) => same.map((call) => call[at]));
  const summaries = columns.map((column) => {
    const range = () => column.reduce(([lo, hi], v) => [Math.min(lo, v), Math.max(hi, v)], [Infinity, -Infinity]);
    if (column.every((v) => Number.isInteger(v))) return { kind: 'int', range: range() };
    if (column.every((v) => typeof v === 'number' && Number.isFinite(v))) return { kind: 'number', range: range() };
    const texts = column.filter((v) => typeof v === 'string');
    if (texts.length > 0) return { kind: 'string', alphabet: [...new Set(texts.join(''))].join('') || 'a', pool: texts, longest: Math.max(...texts.map((t) => t.length)) };
    const lists = column.filter((v) => Array.isArray(v));
    const elements = lists.flat();
    if (elements.length > 0) return { kind: 'list', elements, pool: lists };
    // Records ({ h: 120, s: 98.8, v: 100 }): each numeric field within the range the calls show.
    const records = column.filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype);
    const fields = new Map();
    for (const record of records) {
      for (const [key, value] of Object.entries(record)) {
        if (typeof value !== 'number' || !Number.isFinite(value)) continue;
        const [lo, hi, integer] = fields.get(key) || [value, value, true];
        fields.set(key, [Math.min(lo, value), Math.max(hi, value), integer && Number.isInteger(value)]);
      }
    }
    if (fields.size > 0) return { kind: 'record', pool: records, fields: [...fields] };
    return { kind: 'other' };
  });
  const vary = (value, at) => {
    const { kind, range, alphabet, pool, elements, longest } = summaries[at];
    if (kind === 'int') return range[0] + Math.floor(random() * (range[1] - range[0] + 1));
    if (kind === 'number') return range[0] + random() * (range[1] - range[0]);
    if (kind === 'string' && typeof value === 'string') {
      const text = [...pick(pool)];
      for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits -= 1) {
        const where = Math.floor(random() * (text.length + 1));
        const move = random();
        // Never longer than the tests' longest: a range's end "1" grown to "19999" asked fill-range for 20,000 values per call.
        if ((move < 0.4 || text.length === 0) && text.length < longest) text.splice(where, 0, pick(alphabet));
        else if (move < 0.4 || text.length === 0) continue;
        else if (move < 0.7) text.splice(Math.min(where, text.length - 1), 1);
        else text[Math.min(where, text.length - 1)] = pick(alphabet);
      }
      return text.join('');
    }
    if (kind === 'list' && Array.isArray(value)) return Array.from({ length: pick(pool).length }, () => pick(elements));
    if (kind === 'record') {
      const record = { ...pick(pool) };
      const [key, [lo, hi, integer]] = pick(summaries[at].fields);
      record[key] = integer ? lo + Math.floor(random() * (hi - lo + 1)) : lo + random() * (hi - lo);
      return record;
    }
    return pick(columns[at]);
  };
  return Array.from({ length: count }, () => {
    const call = [...pick(same)];
    const at = Math.floor(random() * arity);
    call[at] = vary(call[at], at);
    return call;
  });
}

/** The largest call (as JSON) a batch is drawn from, beside the smallest valid one. */
const SMALL_CALL_CHARS = 1000;
/** The largest timed input, on the wire (a string of a million characters is one). */
const TIMED_INPUT_CHARS = 4e6;
/**
 * A drawn input (not one of the tests' calls) is kept only when the original answers it (or
 * throws on it) within these, on a reference of its own: one it cannot finish (earcut with
 * drawn hole indices fills the memory) says nothing of a candidate, and would end the evaluation.
 */
const VETTING_MS = 3000;
const VETTING_HEAP_MB = 256;
/** What finding valid calls for a batch may spend: calls per request at most, restarts of the prober. */
const SETTLE_CHUNK = 256;
const SETTLE_RESTARTS = 12;
/**
 * Distinct calls the reference answers without throwing, each within maxNs, up to want: the
 * valid inputs seen so far and variations of them (varyCalls), looked for for at most
 * seconds. A variation may ask for far more than the tests did (fill-range's ends varied to
 * "9000001": millions of values per call, and the sandbox's memory full), so they are tried
 * on a reference of their own, with a heap limit, a chunk at a time: a chunk that crashes it
 * or runs out of time is left out and the next chunks are smaller (larger again while they
 * pass). Finding fewer calls is never a failure: the pool is then what was found.
 */
async function validPool(options, valid, random, want, maxNs, seconds) {
  // Small calls only: a batch is for calls too quick to time one at a time, and variations of
  // a test's 70,000-character input, thousands of them, would fill the memory.
  const sized = valid.map((input) => [JSON.stringify(encodeWire(input)), input]).sort((a, b) => a[0].length - b[0].length);
  const found = new Map(sized.filter(([key], i) => i === 0 || key.length <= SMALL_CALL_CHARS));
  const deadline = Date.now() + seconds * 1000;
  let prober = null;
  let restarts = 0;
  let chunkSize = SETTLE_CHUNK;
  // Which of calls the reference answers in time, or null if the chunk failed as a whole.
  const settle = async (calls) => {
    try {
      prober = prober || (await Candidate.start(REFERENCE, { ...options, trusted: true, heapMb: 256, label: 'the reference (drawing valid inputs)' }));
      prober.callTimeoutMs = 500 + (calls.length * maxNs) / 1e6;
      const reply = await prober.callBatch(calls, { settle: true, maxNs });
      if (reply.error === null && Array.isArray(reply.output) && reply.output.length === calls.length) return reply.output.map((ok) => ok === true);
    } catch (err) {
      if (!(err instanceof EvaluatorError)) throw err;
    }
    if (prober) prober.close();
    prober = null;
    restarts += 1;
    return null;
  };
  try {
    for (let round = 0; round < 8 && found.size < want; round += 1) {
      const fresh = new Map();
      for (const input of varyCalls(random, [...found.values()], 2 * want)) {
        const key = JSON.stringify(encodeWire(input));
        if (!found.has(key)) fresh.set(key, input);
      }
      if (fresh.size === 0) break;
      const entries = [...fresh];
      for (let at = 0; at < entries.length; at += chunkSize) {
        if (restarts > SETTLE_RESTARTS || Date.now() > deadline) return [...found.values()].slice(0, want);
        const chunk = entries.slice(at, at + chunkSize);
        const answers = await settle(chunk.map(([, input]) => input));
        if (answers === null) chunkSize = Math.max(1, chunkSize >> 2);
        else {
          answers.forEach((ok, i) => ok && found.set(chunk[i][0], chunk[i][1]));
          chunkSize = Math.min(SETTLE_CHUNK, chunkSize * 2);
        }
      }
    }
  } finally {
    if (prober) prober.close();
  }
  return [...found.values()].slice(0, want);
}

/** What to do when the reference accepts none of the inputs (a parameter drawn inputs cannot supply: a function). */
function threwOnEvery(example) {
  return 'the reference threw on every input (e.g. it ' + example.split('\n')[0] + '): edit sampleArgs() in peagen_evaluate.js so that it draws inputs '
    + FUNCTION + '() accepts, or init with --objective tests, which judges by the tests alone';
}

/** The answer as comparable text: its type in the program's process and its value on the wire. */
function show(result) {
  if (result.error !== null) return 'threw ' + (result.thrown && result.thrown !== 'error' ? '(not an Error but ' + (result.thrown === 'object' ? 'an object' : 'a ' + result.thrown) + ') ' : '') + result.error.slice(0, 200);
  if (result.mutated) return '(changing its arguments) ' + showValue(result);
  return showValue(result);
}
function showValue(result) {
  const json = (value) => JSON.stringify(value, (k, v) => (typeof v === 'bigint' ? v.toString() + 'n' : v));
  const text = json(result.output);
  // An array's named properties, which JSON leaves out (and the comparison does not).
  const named = Array.isArray(result.output) ? Object.keys(result.output).filter((key) => !/^\d+$/.test(key)) : [];
  const extra = named.length > 0 ? ' with ' + named.map((key) => key + ': ' + json(result.output[key])).join(', ') : '';
  return ((text === undefined ? String(result.output) : text) + extra).slice(0, 200);
}
/** How got differs from the reference's expected, as a user reads it. */
function differently(got, expected) {
  const left = got.error === null && expected.error === null && got.mutated && got.argumentsAfter !== expected.argumentsAfter ? ' (leaving its arguments otherwise than the reference)' : '';
  return show(got) + left + ', the reference ' + show(expected);
}
function same(got, expected) {
  // An exception is an answer: its class and message (the first line; the lines after it are
  // where it was thrown, which a faster program may change).
  if (expected.error !== null) return got.error !== null && got.thrown === expected.thrown && got.error.split('\n')[0] === expected.error.split('\n')[0];
  // What the call left its arguments as is part of the answer too, not only whether it changed them.
  return got.error === null && got.type === expected.type && got.mutated === expected.mutated && got.argumentsAfter === expected.argumentsAfter &&
    JSON.stringify(encodeWire(got.output)) === JSON.stringify(encodeWire(expected.output));
}

/** A call of proc (or with batched a batch of calls: args is then [the calls]); a failure names the call. */
async function call(proc, args, label, batched = false) {
  try {
    return await (batched ? proc.callBatch(args[0]) : proc.call(...args));
  } catch (err) {
    if (err instanceof CandidateFailure) throw new CandidateFailure(label + ': ' + err.message);
    throw err;
  }
}

function hasTests(root) {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (['node_modules', '.peagen', '.git'].includes(entry.name)) continue;
    const full = path.join(root, entry.name);
    if (entry.isDirectory() && hasTests(full)) return true;
    if (entry.isFile() && /\.test\.(c|m)?js$|^test.*\.(c|m)?js$/.test(entry.name)) return true;
  }
  return false;
}

/**
 * The project's tests with the candidate: { passed, text: the failing tests by name, ids: their
 * ids, original: for the seed, what init lists }, or null when there are none. They run as every
 * objective-tests evaluation runs them (peagen_harness.project_tests, docs/trust.md): in a copy
 * of the project where the program is a stand-in forwarding each call to the candidate in its
 * own locked-down process, outcomes from the runner's own report.
 */
function projectTests(candidate) {
  if (TESTS === null && !hasTests(__dirname)) return null;
  const harnessDir = path.dirname(path.dirname(fs.realpathSync(harnessFile)));
  // The tests init listed (peagen_tests.json) decide: each expected one must pass, the left-out ones count neither way.
  // (peagen_harness.project_tests.tests_gate: the original, init's seed, also learns what to list.)
  const script = 'import json, sys\nfrom peagen_harness.project_tests import is_original_text, tests_gate\n' +
    'text, original = (open(path, encoding="utf-8").read() for path in (sys.argv[4], sys.argv[7]))\n' +
    'run = tests_gate(*sys.argv[1:5], evolved=[sys.argv[5]], example_dir=sys.argv[6], is_original=is_original_text(text, original))\n' +
    'print(json.dumps(None if run is None else {"passed": run.passed == run.total, "text": run.failure_text(), "ids": run.failed_ids, "original": run.original_passed}))';
  // The evolved function named by this evaluator, never read from the candidate's markers.
  const args = [TESTS ?? 'node --test', TESTS !== null ? path.join(__dirname, PROJECT) : __dirname, TESTS !== null ? PROJECT_PROGRAM : PROGRAM, path.resolve(candidate), FUNCTION, __dirname, REFERENCE];
  const pythonPath = [path.join(harnessDir, 'python'), process.env.PYTHONPATH].filter(Boolean).join(path.delimiter);
  const run = spawnSync('python3', ['-c', script, ...args], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: pythonPath }, maxBuffer: 64 * 1024 * 1024 });
  try {
    return JSON.parse(run.stdout.trim().split('\n').pop());
  } catch {
    throw new EvaluatorError('cannot run the project\'s tests (python3 -m peagen_harness.project_tests): ' + (run.error ? run.error.message : run.stderr.slice(-1000)));
  }
}

/** OBJECTIVE 'score': the mean of the numbers the function answers. */
async function score(candidate, options, inputs, metrics) {
  const proc = await Candidate.start(candidate, { ...options, callTimeoutMs: 60000 });
  try {
    let total = 0;
    for (const { label, input } of inputs) {
      const got = await call(proc, input, label);
      metrics.inputs_checked += 1;
      if (got.error !== null) reject(label + ' threw ' + got.error.slice(0, 200));
      if (typeof got.output !== 'number' || !Number.isFinite(got.output)) reject(label + ' answered ' + show(got) + ': a score must be a finite number');
      total += got.output;
    }
    metrics.score = total / inputs.length;
    metrics.score_inputs = inputs.length;
    return metrics.score;
  } finally {
    proc.close();
  }
}

function parseArgs(argv) {
  const args = { candidate: null, seed: 1, quick: false };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--quick') args.quick = true;
    else if (argv[i] === '--seed') args.seed = Number.parseInt(argv[++i], 10);
    else if (argv[i].startsWith('--')) throw new EvaluatorError('unknown option ' + argv[i]);
    else args.candidate = path.resolve(argv[i]);
  }
  if (!args.candidate || !Number.isInteger(args.seed)) throw new EvaluatorError('usage: node peagen_evaluate.js <candidate.js> [--seed N] [--quick]');
  return args;
}

async function evaluate(metrics) {
  const args = parseArgs(process.argv.slice(2));
  const quick = args.quick;
  Object.assign(metrics, { inputs_checked: 0, seed: args.seed, quick: quick ? 1 : 0 }, OBJECTIVE === 'speed' ? { speedup: 0 } : {});
  if (!fs.existsSync(args.candidate)) reject('cannot read the candidate: ' + args.candidate);
  const tests = projectTests(args.candidate);
  if (tests !== null && !tests.passed) throw new CandidateFailure(tests.text, tests.ids, tests.original);
  const learned = tests?.original ? { originalPassedTests: tests.original } : {};

  const options = { entry: ENTRY, allow: ALLOW, callTimeoutMs: 5000, loadTimeoutMs: 15000, ...(PACKAGES && { packages: PACKAGES }), ...(MODULES && { modules: MODULES }) };
  const refOptions = { ...options, trusted: true, callTimeoutMs: 120000 };
  const oracle = await Candidate.start(REFERENCE, refOptions);
  // The reference that tries drawn inputs first (VETTING_MS, VETTING_HEAP_MB): its answer, or
  // null when it could not finish, after which a fresh one tries the next.
  let vetter = null;
  const vet = async (input) => {
    vetter = vetter || (await Candidate.start(REFERENCE, { ...options, trusted: true, heapMb: VETTING_HEAP_MB, callTimeoutMs: VETTING_MS, label: 'the reference (vetting drawn inputs)' }));
    try {
      return await vetter.call(...input);
    } catch (err) {
      // A trusted process's failure is the evaluator's (EvaluatorError), here only the input's.
      if (!(err instanceof CandidateFailure) && !(err instanceof EvaluatorError)) throw err;
      vetter.close();
      vetter = null;
      return null;
    }
  };
  try {
    // The kinds of the arguments: the guess from the names or, when the reference throws on
    // that, the first of all-list, all-int, all-string it accepts.
    const guess = capturedKinds(CALLS) || parameters().map(guessKind);
    const probe = mulberry32(1);
    let kinds = guess;
    for (const tried of [guess, ...['list', 'int', 'string'].map((kind) => guess.map(() => kind))]) {
      if ((await vet(sampleArgs(tried, probe, 10, false)))?.error === null) {
        kinds = tried;
        break;
      }
    }
    metrics.parameters = kinds.length;

    // 1. correctness: the tests' calls, then seeded inputs smallest first
    const rng = mulberry32(args.seed * 2654435761 + 17);
    const sizes = [0, 1, 2, 3, 5, 10, 20, 50, 100].concat(quick ? [] : [200, 400, 400]);
    const drawn = sizes.map((size, i) => ({ label: 'call ' + (i + 1) + ' of ' + FUNCTION, input: sampleArgs(kinds, rng, size, false) }));
    const kept = [];
    for (const entry of drawn) if ((await vet(entry.input)) !== null) kept.push(entry);
    metrics.drawn_inputs_left_out = drawn.length - kept.length;
    if (vetter) vetter.close();
    vetter = null;
    const inputs = CALLS.map((input, i) => ({ label: "the tests' call " + (i + 1) + ' of ' + FUNCTION, input, recorded: ANSWERS[i] })).concat(kept);
    if (OBJECTIVE === 'score') {
      // The inputs the reference accepts: the score is what evolves, there is no answer to match.
      const valid = [];
      let first = '';
      for (const entry of inputs) {
        const answer = await oracle.call(...entry.input);
        if (answer.error === null) valid.push(entry);
        else first ||= show(answer);
      }
      if (valid.length === 0) throw new EvaluatorError(threwOnEvery(first));
      return { objective: await score(args.candidate, options, valid, metrics), ...learned };
    }
    let slowestNs = 0;
    let raised = 0;
    let firstRaised = '';
    // The distinct answers of the reference: one answer to every input cannot tell a wrong
    // candidate (one that returns a constant) from a right one.
    const answers = new Set();
    let firstAnswer = '';
    const valid = []; // the inputs the reference answers without throwing: a batch draws from them
    const checker = await Candidate.start(args.candidate, options);
    // A recorded answer the reference does not give again: state the tests had set or a change
    // since init. A few are the first; most, the second.
    const recordedTotal = inputs.filter((entry) => entry.recorded).length;
    const differing = [];
    try {
      for (const { label, input, recorded } of inputs) {
        const expected = await oracle.call(...input);
        // As JSON, which is how init recorded it: an array's named properties are not in the record.
        const asRecorded = (value) => JSON.stringify(encodeWire(value), (key, part) => (key === 'p' ? undefined : part));
        if (recorded && (expected.error !== null || asRecorded(expected.output) !== asRecorded(recorded.value))) {
          differing.push('the reference answered ' + show(expected) + ' to ' + label + ', not ' + JSON.stringify(recorded.value).slice(0, 200) + ' as when peagen init ran the tests');
          if (differing.length * 2 > recordedTotal) throw new EvaluatorError(differing[0] + ': it is not deterministic, or the project changed since; re-run peagen init');
        }
        metrics.state_dependent_calls = differing.length;
        slowestNs = Math.max(slowestNs, expected.wallNs);
        if (expected.error !== null) {
          raised += 1;
          firstRaised ||= show(expected).split('\n')[0];
        } else valid.push(input);
        if (answers.size === 0) firstAnswer = show(expected);
        answers.add(expected.error !== null ? 'threw ' + expected.error.split(':')[0] : expected.type + ' ' + JSON.stringify(encodeWire(expected.output)));
        checker.callTimeoutMs = 5000 + 10 * expected.wallNs / 1e6;
        const got = await call(checker, input, label);
        metrics.inputs_checked += 1;
        if (!same(got, expected)) reject(label + ' answered ' + differently(got, expected));
      }
    } finally {
      checker.close();
    }
    if (raised === inputs.length) throw new EvaluatorError(threwOnEvery(firstRaised));
    if (answers.size === 1) {
      throw new EvaluatorError('the reference gives the same answer to every sample input (' + firstAnswer.slice(0, 120) + '): sampleArgs() draws inputs that cannot tell a wrong candidate from a right one; edit it (or the parameter kinds) so that the answers vary');
    }
    metrics.correctness_inputs = inputs.length;
    metrics.captured_inputs = CALLS.length;

    // 2. timing: fresh processes, one timed call each on a fresh input
    const trng = mulberry32(crypto.randomBytes(4).readUInt32LE(0));
    // The timed input grows until the reference needs targetNs for it: a shorter call drowns
    // in the noise of the round trip, and hiding work in loading would pay.
    const targetNs = quick ? 10e6 : 30e6;
    let size = kinds.includes('int') ? 18 : 100;
    // A timed call must do the work: an input on which the reference throws would reward any
    // candidate that throws the same error at once.
    let batch = 0; // > 0: each timed call is a batch of that many distinct calls drawn from pool
    let pool = [];
    const timedCall = async (input, what) => {
      const answer = await call(oracle, input, what, batch > 0);
      if (answer.error !== null) throw new EvaluatorError('the reference threw on ' + what + ' (' + show(answer) + '): edit sampleArgs() so that timed inputs are valid');
      return answer;
    };
    let tooQuick = false;
    try {
      for (let step = 0; step < 60; step += 1) {
        const input = sampleArgs(kinds, trng, size, true);
        const probe = await timedCall(input, 'a timed input of size ' + size);
        slowestNs = Math.max(slowestNs, probe.wallNs);
        tooQuick = probe.wallNs < targetNs / 4;
        // Nor larger than TIMED_INPUT_CHARS on the wire: every timed call sends its input to a
        // fresh process, and a million numbers (a sum takes a few ms of them) cost seconds and
        // memory in each process they cross, far more than the call.
        if (probe.wallNs >= targetNs || size >= 1e6 || JSON.stringify(encodeWire(input)).length >= TIMED_INPUT_CHARS) break;
        size = !kinds.includes('int') && probe.wallNs < targetNs / 4 ? size * 2 : size + Math.max(1, size >> 3);
      }
    } catch (err) {
      // A larger input the function refuses (a duration of 200 characters) cannot make it
      // slower; a crash or a hang of the reference is the evaluator's problem, not a reason.
      if (!(err instanceof EvaluatorError) || !err.message.startsWith('the reference threw on') || valid.length === 0) throw err;
      tooQuick = true;
    }
    // One timed call from a batch of distinct calls (distinct: a candidate that remembers its
    // answers gains nothing within one).
    const drawBatch = (count, random = trng) => {
      const from = [...pool];
      for (let i = 0; i < count; i += 1) {
        const j = i + Math.floor(random() * (from.length - i));
        [from[i], from[j]] = [from[j], from[i]];
      }
      return [from.slice(0, count)];
    };
    if (tooQuick && valid.length > 0) {
      // One call is too quick for the round trip's noise (or larger inputs are refused): each
      // timed call runs a batch of distinct valid calls, grown until the reference needs
      // targetNs for it or the valid calls run out.
      // A call of a batch takes at most an eighth of the batch's time: a batch is made of quick calls.
      pool = await validPool(refOptions, valid, trng, quick ? 4000 : 20000, targetNs / 8, quick ? 4 : 8);
      if (pool.length < 8) {
        // A batch of a few calls repeated would time the round trip, and reward remembering.
        throw new EvaluatorError('the reference answers only ' + pool.length + ' distinct input(s) quickly, too few to time' + (firstRaised ? ' (on others it ' + firstRaised + ')' : '')
          + ': edit sampleArgs() in peagen_evaluate.js so that it draws inputs ' + FUNCTION + '() accepts, or init with --objective tests, which judges by the tests alone');
      }
      batch = 8;
      for (;;) {
        const probe = await timedCall(drawBatch(batch), 'a batch of ' + batch + ' calls');
        slowestNs = Math.max(slowestNs, probe.wallNs);
        if (probe.wallNs >= targetNs || batch >= pool.length) break;
        batch = Math.min(pool.length, Math.floor(batch * (probe.wallNs < targetNs / 4 ? 2 : 1.25)));
      }
      metrics.timing_batch = batch;
      metrics.timing_pool = pool.length;
    }
    // Each round's input and the warm-up's come from generators of their own, freshly seeded:
    // one stream for all would let a candidate that recovers its seed from the warm-up input
    // (32 bits) know every timed input in advance.
    const fresh = () => mulberry32(crypto.randomBytes(4).readUInt32LE(0));
    const drawTimed = () => (batch > 0 ? drawBatch(batch, fresh()) : sampleArgs(kinds, fresh(), size, true));
    const repeats = quick ? 7 : 11;
    // A small input the reference accepts (a drawn one may be invalid, e.g. a window of 0).
    const warmRandom = fresh();
    // Else one of the valid inputs: drawn small ones may all be refused where large ones are not
    // (base64-js's toByteArray wants a length that is a multiple of 4).
    let warmUp = batch > 0 ? drawBatch(Math.min(4, batch), warmRandom) : valid.length > 0 ? valid[0] : sampleArgs(kinds, warmRandom, 10, true);
    for (let tries = 0; tries < 20 && batch === 0; tries += 1) {
      const drawn = sampleArgs(kinds, warmRandom, 10, false);
      if ((await oracle.call(...drawn)).error === null) {
        warmUp = drawn;
        break;
      }
    }
    const warmExpected = await timedCall(warmUp, 'the warm-up input');
    const rounds = [];
    for (let r = 0; r < repeats; r += 1) {
      const input = drawTimed();
      rounds.push({ input, expected: await timedCall(input, batch > 0 ? 'a batch of ' + batch + ' calls' : 'a timed input of size ' + size) });
    }
    const timeoutMs = 5000 + 10 * Math.max(slowestNs, ...rounds.map((r) => r.expected.wallNs)) / 1e6;
    const runs = { reference: [], candidate: [] };
    const measure = async (which, round) => {
      const isRef = which === 'reference';
      const proc = await Candidate.start(isRef ? REFERENCE : args.candidate, isRef ? refOptions : { ...options, callTimeoutMs: timeoutMs });
      try {
        const check = (result, expected, label) => {
          if (same(result, expected)) return;
          const why = label + ' answered ' + differently(result, expected);
          if (isRef) throw new EvaluatorError('the reference is not deterministic: ' + why);
          reject(why);
        };
        const warm = await call(proc, warmUp, 'warm-up call of ' + FUNCTION, batch > 0);
        check(warm, warmExpected, 'the warm-up call of ' + FUNCTION);
        const result = await call(proc, rounds[round].input, 'timed call of ' + FUNCTION, batch > 0);
        check(result, rounds[round].expected, 'timed call ' + (round + 1) + ' of ' + FUNCTION);
        if (!isRef) metrics.inputs_checked += 2;
        // Reading and checking the arguments (untimedNs) runs no code of the program's (the
        // runner's own realm is frozen, see peagen-harness.js), so it is not charged: it is the
        // same work for both, and its noise (a full collection each time) would be charged to
        // honest candidates. It counts as visible time for the hidden-CPU check.
        const outsideNs = proc.loadNs + warm.wallNs;
        const untimedNs = (warm.untimedNs || 0) + (result.untimedNs || 0);
        runs[which].push({ timedNs: result.wallNs, outsideNs, wallNs: outsideNs + result.wallNs + untimedNs, cpuNs: proc.cpuNs(), atFloor: result.atFloor });
        return result.wallNs;
      } finally {
        proc.close();
      }
    };
    const timing = await timeInterleaved(repeats, measure);

    // Work moved out of the timed call is charged back; CPU used where nothing was timed is a rejection.
    const refTimed = median(timing.referenceNs);
    const { charged } = chargeUntimedWork(runs, timing.referenceNs);
    const ratios = timing.referenceNs.map((ref, i) => ref / charged[i]);
    const speedup = median(ratios);
    const interval = medianInterval(ratios); // how far the speedup could be from this one by the rounds' spread alone
    const round4 = (x) => Math.round(x * 1e4) / 1e4;
    const ms = (x) => Math.round(x) / 1e6;
    Object.assign(metrics, {
      speedup: round4(speedup),
      ...(interval && { speedup_low: round4(interval[0]), speedup_high: round4(interval[1]) }),
      speedup_of_medians: round4(refTimed / median(charged)),
      candidate_ms: ms(median(charged)),
      reference_ms: ms(refTimed),
      charged_outside_ms: ms(median(charged.map((c, i) => c - runs.candidate[i].timedNs))),
      at_timing_floor: runs.candidate.filter((r) => r.atFloor).length,
      repeats,
      timing_size: size,
    });
    return { objective: speedup, ...learned };
  } finally {
    oracle.close();
    if (vetter) vetter.close();
  }
}

runEvaluator(evaluate);
`;
