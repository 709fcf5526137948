#!/usr/bin/env node
// `npm run bench:evolve [-- --minutes M] [-- --seed S]`: the issue's benchmark. examples/bad_sort
// evolved by `peagen evolve run --sync --workers 4` (the CLI as a child process: the production
// code path) against a scripted OpenAI-compatible server in this process: the badSortResponder
// move table with its default format noise, 2 s ± 0.5 s latency per call, 3% of calls answered
// 429 with retry-after 1 s and 2% answered 500 (after the latency, like a server that gave up).
// Prints what report.json measured: best over time, time to 10x/25x/50x, patch yield, selection
// and failure shares, throughput, the controller's overhead, tokens and cost; then runs
// bench/evolveOverhead.mjs (the controller's cost at a 10,000-program archive).
// Figures only: the exit code is non-zero only when the run itself fails.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { startOpenAiServer } = require(join(REPO, 'out', 'test', 'fixtures', 'llmWireServers.js'));
const { badSortResponder } = require(join(REPO, 'out', 'test', 'fixtures', 'badSortMoves.js'));
const { Rng } = require(join(REPO, 'out', 'daemon', 'evolution', 'rng.js'));

const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string', default: '15' },
    seed: { type: 'string', default: '1' },
    workers: { type: 'string', default: '4' },
    'no-overhead': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const MINUTES = Number(flags.minutes);
const SEED = Number(flags.seed);
const WORKERS = Number(flags.workers);
if (!(MINUTES > 0) || !Number.isInteger(SEED) || SEED <= 0 || !Number.isInteger(WORKERS) || WORKERS <= 0) {
  console.error('usage: node bench/evolve.mjs [--minutes M (>0, default 15)] [--seed S (positive integer)] [--workers W] [--no-overhead] [--keep]');
  process.exit(2);
}
const TARGET_FACTOR = 25;
const TARGET_MINUTES = 15;
const SERVER_ERROR_PROBABILITY = 0.02;
/** The model name the run asks for: only its price table matters (the server is scripted). */
const MODEL = 'gpt-4o-mini';

// The server's own randomness (latency jitter, 429s, 500s) is seeded too; the order in which
// requests arrive still depends on timing, so two runs with one seed are alike, not identical.
const serverRng = new Rng(SEED * 7919 + 1);
const scripted = badSortResponder({ seed: SEED });
let serverErrors = 0;
const server = await startOpenAiServer({
  responder: (request) => {
    if (serverRng.next() < SERVER_ERROR_PROBABILITY) {
      serverErrors++;
      // The wire server answers a responder that throws with HTTP 500.
      throw new Error('scripted overload');
    }
    return scripted(request);
  },
  latencyMs: { meanMs: 2000, jitterMs: 500 },
  rateLimitProbability: 0.03,
  rateLimitRetryAfterSeconds: 1,
  random: () => serverRng.next(),
});

const project = mkdtempSync(join(tmpdir(), 'peagen-bench-evolve-'));
const env = { ...process.env };
for (const name of Object.keys(env)) if (/^(OPENAI|ANTHROPIC)_/.test(name)) delete env[name];
Object.assign(env, { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'test', OPENAI_MODEL: MODEL, PEAGEN_HOME: join(project, 'home') });
const argv = [join(REPO, 'dist', 'cli.js'), '--json', 'evolve', 'run', join(REPO, 'examples', 'bad_sort'), '--sync', '--workers', String(WORKERS), '--minutes', String(MINUTES), '--seed', String(SEED), '--project', project];

console.log(`bench:evolve: examples/bad_sort, ${WORKERS} workers, ${MINUTES} min, seed ${SEED}; scripted LLM at ${server.baseUrl} (2 s ± 0.5 s, 3% 429 retry-after 1 s, ${SERVER_ERROR_PROBABILITY * 100}% 500)`);
console.log(`project: ${project}`);

const started = Date.now();
const child = spawn(process.execPath, argv, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
let stdout = '';
child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
child.stderr.setEncoding('utf8').on('data', (chunk) => {
  for (const line of chunk.split('\n')) if (line.trim() !== '') process.stderr.write(`  [peagen] ${line}\n`);
});

// Once a minute: what the server saw and what the run's last checkpoint says.
const ticker = setInterval(() => {
  const minute = ((Date.now() - started) / 60_000).toFixed(1);
  const answered = server.requests.map((request) => request.answered);
  const count = (status) => answered.filter((value) => value === status).length;
  process.stderr.write(`  [bench] ${minute} min: ${server.requests.length} LLM requests (${count(200)} answered, ${count(429)} x 429, ${serverErrors} x 500)${checkpointSummary()}\n`);
}, 60_000);

function checkpointSummary() {
  try {
    const runs = join(project, '.peagen', 'runs');
    const [run] = readdirSync(runs);
    const file = join(runs, run, 'checkpoint.json');
    if (!existsSync(file)) return '';
    const { data } = JSON.parse(readFileSync(file, 'utf8'));
    const history = data.state.bestHistory;
    const seed = history[0]?.objective;
    const best = history.at(-1)?.objective;
    return `; checkpoint: ${data.state.counters.evaluations} evaluations, best ${best?.toFixed(3)} (${seed ? (best / seed).toFixed(1) : '?'}x)`;
  } catch {
    return '';
  }
}

const exitCode = await new Promise((done) => child.once('exit', (code, signal) => done(code ?? (signal ? 128 : 1))));
clearInterval(ticker);
await server.close();

let report;
try {
  report = JSON.parse(stdout);
} catch {
  report = undefined;
}
if (exitCode !== 0 || !report) {
  console.error(`bench:evolve: the run failed (exit ${exitCode}); stdout: ${stdout.slice(0, 2000) || '(empty)'}`);
  console.error(`its files are kept in ${project}`);
  process.exit(exitCode || 1);
}

printReport(report);
if (!flags.keep) rmSync(project, { recursive: true, force: true });
else console.log(`\nrun kept in ${report.runDir}`);

if (!flags['no-overhead']) {
  console.log('');
  const overhead = spawn(process.execPath, [join(REPO, 'bench', 'evolveOverhead.mjs')], { stdio: 'inherit' });
  const code = await new Promise((done) => overhead.once('exit', (c) => done(c ?? 1)));
  if (code !== 0) process.exit(code);
}

function printReport(r) {
  const p = r.progress;
  const seed = r.seed.objective;
  const x = (value) => (seed && value ? `${(value / seed).toFixed(1)}x` : '—');
  const pct = (share) => `${(share * 100).toFixed(1)}%`;
  const min = (ms) => `${(ms / 60_000).toFixed(2)} min`;
  const wallMin = p.elapsedMs / 60_000;
  const served = server.requests;
  const count = (status) => served.filter((request) => request.answered === status).length;

  console.log(`\nrun ${r.runId}: stopped by ${r.stopReason} after ${min(p.elapsedMs)}; mutator ${r.mutator}; executor ${r.executor ?? '?'}`);
  console.log(`seed ${r.objectiveName} ${seed?.toFixed(3)}; best ${r.best ? `${r.best.objective.toFixed(3)} (${r.best.improvement?.toFixed(1)}x, generation ${r.best.generation}, measured ${r.best.measurements.map((m) => m.objective?.toFixed(3)).join(' / ')})` : '—'}`);

  console.log('\nbest over time');
  console.log('  minute      best   x seed');
  // Row 0 is the seed's measurement; then the best as it stood at the end of each minute.
  const minutes = [0];
  for (let minute = 1; minute <= Math.floor(wallMin + 0.01); minute++) minutes.push(minute);
  if (wallMin - minutes.at(-1) > 0.05) minutes.push(wallMin);
  for (const minute of minutes) {
    const point = minute === 0 ? r.timeline[0] : r.timeline.filter((entry) => entry.elapsedMs <= minute * 60_000).at(-1);
    const label = Number.isInteger(minute) ? String(minute) : minute.toFixed(1);
    console.log(`  ${label.padStart(6)}  ${(point ? point.objective.toFixed(3) : '—').padStart(8)}  ${(point ? x(point.objective) : '—').padStart(7)}`);
  }
  if (r.best && r.timeline.at(-1)?.objective !== r.best.objective) {
    console.log(`  (the final best ${r.best.objective.toFixed(3)} was measured once and not confirmed: its job was cut off by the stop)`);
  }

  console.log('\ntime to reach');
  for (const factor of [10, 25, 50]) {
    const m = r.milestones.find((entry) => entry.factor === factor);
    console.log(`  ${`${factor}x`.padStart(4)}: ${m ? `${min(m.elapsedMs)}, ${m.llmCalls} LLM calls, ${m.evaluations} evaluations` : 'not reached'}`);
  }

  console.log('\nsearch');
  console.log(`  evaluations             ${p.evaluations} (${p.evaluationsPerMinute.toFixed(1)} per minute), ${p.failedEvaluations} failed`);
  console.log(`  patch yield             ${pct(p.patchYield.firstTry)} first try, ${pct(p.patchYield.afterRepair)} after repair (${p.patchYield.answers} answers)`);
  console.log(`  parent was best so far  ${pct(r.parentWasBestShare)} of improve steps`);
  console.log(`  evaluations on failures ${pct(r.failedEvaluationShare)}`);
  console.log(`  duplicates skipped      ${r.duplicatesSkipped}; proposals without a child ${r.failedProposals}`);
  console.log(`  engine overhead         ${r.engineOverheadMsPerCandidate.toFixed(2)} ms per candidate (live, archive of ${p.evaluations + 1})`);
  console.log(`  LLM                     ${p.llmCalls} calls; ${p.tokens.inputTokens} input + ${p.tokens.outputTokens} output tokens; $${p.costUsd.toFixed(4)} (${MODEL} prices)`);
  console.log(`  server saw              ${served.length} requests: ${count(200)} answered, ${count(429)} x 429, ${serverErrors} x 500`);

  const reached = r.milestones.find((entry) => entry.factor === TARGET_FACTOR);
  const met = reached !== undefined && reached.elapsedMs <= TARGET_MINUTES * 60_000;
  const caveat = !met && MINUTES < TARGET_MINUTES ? ` (this run lasted ${MINUTES} min; run the full ${TARGET_MINUTES} for the verdict)` : '';
  console.log(`\ntarget: >= ${TARGET_FACTOR}x within ${TARGET_MINUTES} minutes — ${met ? 'MET' : 'NOT MET'}${met ? ` (${min(reached.elapsedMs)})` : caveat}`);
}
