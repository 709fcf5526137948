#!/usr/bin/env node
// `node bench/evolveOverhead.mjs` after `node scripts/build.mjs` (bench/evolve.mjs runs it at its
// end): the evolution controller's own cost per candidate as its archive grows to 10,000
// programs. A RunState with bad_sort's run settings (as `evolve run` builds them with an LLM),
// seeded with bad_sort.py, takes synthetic children through the live run's event path:
//   plan() -> journal -> programId(code) -> applyProposal -> journal -> applyEvaluation -> journal
//   (-> a confirmation round when the child would be the new best, as live)
// with fabricated evaluations (log-normal objectives, ~20% failures, some duplicate answers)
// and codes that are bad_sort.py variants of realistic size, so hashing, niche placement and
// the journal's lines are real. Every event goes to a real Journal in a temp directory.
//
// Checkpoints are measured beside it: at each reported archive size, a few checkpoints of
// state.snapshot() are written exactly as the live run writes them (the same envelope, temp
// file, fsync, rename). The live run writes one per CHECKPOINT_EVERY_MS (EvolutionRun.js), i.e. one per (evaluations per minute
// ÷ 4) candidates; at 25 evaluations/min (BENCH_EVALS_PER_MIN) that is one per ~6 candidates.
// Printed: ms per candidate without checkpoints, one checkpoint's cost, and the two together
// at that cadence.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const out = (...parts) => require(join(REPO, 'out', ...parts));
const { RunState } = out('daemon', 'evolution', 'controller', 'RunState.js');
const { Journal } = out('daemon', 'evolution', 'evodb', 'journal.js');
const { writeCheckpoint } = out('daemon', 'evolution', 'evodb', 'checkpoint.js');
const { programId } = out('shared', 'programId.js');
const { Rng } = out('daemon', 'evolution', 'rng.js');
const { prepareRun } = out('daemon', 'evolution', 'controller', 'prepareRun.js');
const { loadConfig } = out('daemon', 'config.js');
const { CHECKPOINT_EVERY_MS } = out('daemon', 'evolution', 'controller', 'EvolutionRun.js');

const PROGRAMS = Number(process.env.BENCH_PROGRAMS ?? 10_000);
const SIZES = [1_000, 5_000, 10_000].filter((size) => size <= PROGRAMS);
if (!SIZES.includes(PROGRAMS)) SIZES.push(PROGRAMS);
/** Candidates whose time makes the figure at each size: the ones just before it. */
const WINDOW = 500;
const CHECKPOINT_SAMPLES = 3;
const EVALS_PER_MIN = Number(process.env.BENCH_EVALS_PER_MIN ?? 25);
const WORKERS = 4;
/** Candidates per checkpoint interval at that rate (nearly every candidate is evaluated once). */
const CHECKPOINT_SECONDS = CHECKPOINT_EVERY_MS / 1000;
const CANDIDATES_PER_CHECKPOINT = Math.max(1, Math.round((EVALS_PER_MIN * CHECKPOINT_SECONDS) / 60));
const TARGET_MS = 2;

const dir = mkdtempSync(join(tmpdir(), 'peagen-bench-overhead-'));
const seedCode = readFileSync(join(REPO, 'examples', 'bad_sort', 'bad_sort.py'), 'utf8');

// The run settings `peagen evolve run examples/bad_sort --workers 4` records with an LLM.
const { manifest, runDir } = prepareRun(
  { exampleDir: join(REPO, 'examples', 'bad_sort'), projectDir: dir, stop: {}, workers: WORKERS },
  loadConfig(undefined, {}),
  { OPENAI_API_KEY: 'bench' },
);
const settings = manifest.settings;
const state = new RunState(settings);
const journal = new Journal(runDir.journalFile);
const rng = new Rng(7);
const at = () => new Date().toISOString();

function evaluation(objective, failure) {
  return {
    correct: failure === undefined,
    objective: failure === undefined ? objective : null,
    direction: 'maximize',
    metrics: { n: 500, candidate_ms: 40 / objective, reference_ms: 40 },
    ...(failure && { failure: { reason: failure, message: `candidate ${failure}` }, errorText: `Traceback (most recent call last):\n  File "bad_sort.py", line 42\nAssertionError: ${failure}`.padEnd(600, '.') }),
    executor: 'bwrap',
    exitCode: failure ? 1 : 0,
    wallMs: 5_000 + rng.int(10_000),
  };
}

const seedEvaluation = evaluation(1.05);
state.applySeed({
  id: programId(seedCode),
  code: seedCode,
  lineage: { parents: [], generation: 0, mutator: 'seed', exchanges: [], seed: 1, repairs: 0, island: 0, createdAt: at() },
  evaluation: seedEvaluation,
  objective: 1.05,
  correct: true,
  measurements: [{ seed: 1, objective: 1.05, wallMs: seedEvaluation.wallMs }],
  features: {},
});
journal.append({ type: 'seed', program: state.archive.get(state.seedId), at: at() });

const seedLines = seedCode.split('\n');
const codes = [];
/** A child of `parent`: a few lines dropped or repeated and one comment changed, as patches do. */
function childCode(parentCode, index) {
  if (codes.length > 10 && rng.next() < 0.08) return rng.pick(codes); // the model proposes a known program
  const lines = parentCode.length > 2 * seedCode.length ? seedLines.slice() : parentCode.split('\n');
  for (let edits = 1 + rng.int(3); edits > 0; edits--) {
    const at = rng.int(lines.length);
    if (rng.next() < 0.5 && lines.length > 40) lines.splice(at, 1 + rng.int(3));
    else lines.splice(at, 0, ...seedLines.slice(rng.int(seedLines.length - 5)).slice(0, 1 + rng.int(5)));
  }
  lines.splice(rng.int(lines.length), 0, `    # variant ${index}: ${rng.seed().toString(36)}`);
  const code = lines.join('\n');
  codes.push(code);
  return code;
}

const FAILURES = ['incorrect', 'crash', 'timeout', 'invalid_output'];
const now = () => performance.now();
let candidates = 0;
const windows = new Map(SIZES.map((size) => [size, { ms: 0, count: 0 }]));

/** One candidate through the live path; returns the ms the controller spent on it. */
function candidate() {
  let spent = 0;
  let t = now();
  const plan = state.plan();
  journal.append({ ...plan, at: at() });
  const parent = state.archive.get(plan.parent);
  spent += now() - t;

  const code = childCode(parent.code, candidates); // the "LLM": not the controller's time
  t = now();
  const childId = programId(code);
  const proposal = {
    type: 'proposal', job: plan.job, ok: true, childId, code,
    patch: '<<<<<<< SEARCH\n    n = _length(work)\n=======\n    n = len(work)\n>>>>>>> REPLACE\n',
    mutator: 'llm-patch', model: 'gpt-4o-mini', template: { name: 'improve', hash: 'f'.repeat(64) },
    exchanges: [childId], repairs: rng.next() < 0.15 ? 1 : 0,
    usage: { inputTokens: 2_300, outputTokens: 90 }, costUsd: 0.0004,
  };
  const verdict = state.applyProposal(proposal);
  journal.append({ ...proposal, at: at() });
  spent += now() - t;
  if (verdict === 'done') return spent;

  const parentObjective = parent.objective ?? 1;
  const failure = rng.next() < 0.2 ? rng.pick(FAILURES) : undefined;
  let round = 'first';
  for (;;) {
    const measured = evaluation(parentObjective * Math.exp(rng.normal() * 0.3 - 0.2), failure);
    t = now();
    const event = { type: 'evaluation', job: plan.job, childId, round, seed: plan.seed + (round === 'first' ? 0 : 1), evaluation: measured };
    const stamp = at();
    const next = state.applyEvaluation(event, stamp);
    journal.append({ ...event, at: stamp });
    // As the live run does after every event: each admitted program is stored once, by id.
    for (const program of state.drainAdmitted()) runDir.putProgram(program);
    const best = state.best;
    if (best && best.objective !== null && best.id === childId) runDir.writeBest(manifest.program, best.code);
    spent += now() - t;
    if (next === 'done') return spent;
    round = 'confirm';
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One checkpoint as the live run writes it, and where its time goes. */
function checkpointAt(size) {
  const total = [];
  const snapshot = [];
  const stringify = [];
  for (let i = 0; i < CHECKPOINT_SAMPLES; i++) {
    let t = now();
    const data = { journalSeq: journal.seq, elapsedMs: 0, timeline: [], state: state.snapshot() };
    const snapshotMs = now() - t;
    writeCheckpoint(runDir.checkpointFile, data);
    total.push(now() - t);
    snapshot.push(snapshotMs);
    // Measured apart (not part of the total): the serialisation writeCheckpoint does inside.
    t = now();
    JSON.stringify({ version: 1, writtenAt: at(), data });
    stringify.push(now() - t);
  }
  return { size, ms: median(total), snapshotMs: median(snapshot), stringifyMs: median(stringify), bytes: statSync(runDir.checkpointFile).size };
}

const started = now();
const checkpoints = [];
try {
  while (state.archive.size < PROGRAMS) {
    const ms = candidate();
    candidates++;
    for (const [size, window] of windows) {
      if (state.archive.size <= size && state.archive.size > size - WINDOW) {
        window.ms += ms;
        window.count++;
      }
    }
    if (SIZES.includes(state.archive.size) && !checkpoints.some((c) => c.size === state.archive.size)) {
      checkpoints.push(checkpointAt(state.archive.size));
      if (process.stderr.isTTY) process.stderr.write(`\r${state.archive.size} programs`);
    }
  }
} finally {
  if (process.stderr.isTTY) process.stderr.write('\n');
}
const totalSeconds = (now() - started) / 1000;
const c = state.counters;
const journalMb = statSync(journal.path).size / 1e6;
rmSync(dir, { recursive: true, force: true });

console.log(`bench:evolve overhead: ${candidates} candidates into an archive of ${state.archive.size} programs (${c.failedEvaluations} failed, ${c.duplicates} duplicate answers, ${c.confirmations} confirmations, ${c.repairPlans} repair jobs) in ${totalSeconds.toFixed(1)} s; journal ${journalMb.toFixed(1)} MB`);
console.log(`checkpoint cadence as live: one per ${CHECKPOINT_SECONDS} s = one per ${CANDIDATES_PER_CHECKPOINT} candidates at ${EVALS_PER_MIN} evaluations/min (BENCH_EVALS_PER_MIN)`);
console.log('');
console.log('  programs   ms/candidate    one checkpoint        ms/candidate with');
console.log(`             (no checkpoint)  (ms, MB)              a checkpoint per ${CANDIDATES_PER_CHECKPOINT}`);
const rows = [];
for (const size of SIZES) {
  const window = windows.get(size);
  const perCandidate = window.count > 0 ? window.ms / window.count : NaN;
  const checkpoint = checkpoints.find((entry) => entry.size === size);
  const amortised = perCandidate + checkpoint.ms / CANDIDATES_PER_CHECKPOINT;
  rows.push({ size, perCandidate, checkpoint, amortised });
  console.log(
    `  ${String(size).padStart(8)}   ${perCandidate.toFixed(3).padStart(12)}     ${checkpoint.ms.toFixed(1).padStart(8)} ms, ${(checkpoint.bytes / 1e6).toFixed(1).padStart(5)} MB   ${amortised.toFixed(3).padStart(12)}`,
  );
}
console.log(`  (ms/candidate: mean over the ${WINDOW} candidates before the archive reached that size; checkpoint: median of ${CHECKPOINT_SAMPLES} writes)`);
console.log('');
console.log('  where one checkpoint goes: state.snapshot() | JSON.stringify | the rest (write, fsync, rename)');
for (const { size, checkpoint } of rows) {
  const rest = checkpoint.ms - checkpoint.snapshotMs - checkpoint.stringifyMs;
  console.log(`  ${String(size).padStart(8)}   ${checkpoint.snapshotMs.toFixed(1).padStart(7)} ms | ${checkpoint.stringifyMs.toFixed(1).padStart(7)} ms | ${rest.toFixed(1).padStart(7)} ms`);
}
const last = rows.at(-1);
const verdict = (ms) => (ms <= TARGET_MS ? 'MET' : 'NOT MET');
console.log('');
console.log(`target: <= ${TARGET_MS} ms per candidate at ${last.size.toLocaleString('en-US')} programs — ${verdict(last.amortised)} (${last.amortised.toFixed(3)} ms with checkpoints at the live cadence; ${last.perCandidate.toFixed(3)} ms without: ${verdict(last.perCandidate)})`);
if (last.amortised > TARGET_MS && last.perCandidate <= TARGET_MS) {
  console.log(`  checkpoints dominate: one costs ${last.checkpoint.ms.toFixed(0)} ms at ${last.size} programs (${(last.checkpoint.bytes / 1e6).toFixed(1)} MB); the target needs at most one per ${Math.ceil(last.checkpoint.ms / Math.max(1e-9, TARGET_MS - last.perCandidate))} candidates, or a checkpoint that does not rewrite the whole archive`);
}
