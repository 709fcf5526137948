// bench:scale — does an evolve run scale with its workers (the brief's P-1: laptop to 50
// parallel workers without CLI changes)? The machine has 2 cores, so the work here is not CPU:
// an evaluator whose cost is a sleep (bench/scale/knobs, default 2 s per candidate) and
// sim-llm (../shared/sim-llm/server.mjs) at 2 s ± 0.5 s, answering from a move table written
// here: each of the example's 300 knobs from 0 to 1 and back, so that almost every answer is
// a new program (with a small table, as W grows most answers repeat a known child and the
// figures would measure the problem, not the fabric).
//
// For each W (BENCH_W, default 1,4,16,64,256): a private redis-server, `peagen worker start`
// processes holding W evaluation slots between them (no model configured there, so they serve
// evaluations only), `peagen worker start --kinds mutate` with the model for the LLM calls
// (W + max(2, W) slots: every proposal the run may have out), and `peagen evolve run --workers W`
// on the same queue, whose process is then the controller alone (BENCH_MODEL_WORKER=0: it makes
// the LLM calls itself, as when no worker serves mutate tasks). After the seed and a warm-up
// (BENCH_WARMUP_S, default 10 s) it measures for BENCH_SECONDS (default 60 s):
//   - evaluations/min (journal events in the window) beside the ideal W x 60 / eval seconds,
//   - the controller's CPU per candidate (/proc/PID/stat of the evolve process),
//   - queue depth (pending and in flight, evaluate and mutate, sampled every second),
//   - worker utilisation: evaluations in flight / W, averaged over the samples,
//   - LLM calls in the window,
//   - the whole machine's CPU: busy and stolen shares of its cores (/proc/stat), so that a slow
//     figure on a saturated or shared machine says so.
// Then the targets, met or MISSED: >= 90% of ideal at W = 16, >= 80% at W = 64, controller CPU
// <= 2 ms per candidate at W = 64. Only a broken run exits non-zero.
//
// Knobs: BENCH_W=1,4,16  BENCH_SECONDS=60  BENCH_WARMUP_S=10  BENCH_EVAL_MS=2000
//        BENCH_LLM_MS=2000 BENCH_LLM_JITTER_MS=500  BENCH_SLOTS_PER_WORKER=16 (slots per
//        worker process, at least 1 and at most 8 processes)  BENCH_KEEP=1 (keep the temp dir)
//        BENCH_SIM_LLM=path/to/sim-llm/server.mjs (default ../shared/sim-llm/server.mjs)
//        BENCH_CPU_PROF=DIR (a CPU profile of each evolve process, DIR/wW, and of each evaluation
//        worker, DIR/wW/workers: node bench/cpuProfileTop.mjs DIR/w64/*.cpuprofile)
//        BENCH_PERF=DIR (perf record of the controller over the window, DIR/wW.perf.data:
//        perf script -i DIR/w64.perf.data | node bench/perfCategories.mjs)
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { processCpuMs } from './queueDrivers.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const CLI = join(REPO, 'dist', 'cli.js');
const SIM_LLM = process.env.BENCH_SIM_LLM ?? resolve(REPO, '..', 'shared', 'sim-llm', 'server.mjs');
const EXAMPLE = join(REPO, 'bench', 'scale', 'knobs');

const numberOf = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);
const SIZES = (process.env.BENCH_W ?? '1,4,16,64,256').split(',').map(Number).filter((w) => w > 0);
const SECONDS = numberOf('BENCH_SECONDS', 60);
const WARMUP_S = numberOf('BENCH_WARMUP_S', 10);
const EVAL_MS = numberOf('BENCH_EVAL_MS', 2000);
const LLM_MS = numberOf('BENCH_LLM_MS', 2000);
const LLM_JITTER_MS = numberOf('BENCH_LLM_JITTER_MS', 500);
const SLOTS_PER_WORKER = numberOf('BENCH_SLOTS_PER_WORKER', 16);
const MODEL_WORKER = process.env.BENCH_MODEL_WORKER !== '0';
const TARGETS = { 16: 0.9, 64: 0.8 };
const CPU_TARGET = { w: 64, ms: 2 };

const { startRedis, stopRedis } = await import(join(REPO, 'scripts', 'provision', 'redis.mjs'));
const { createQueue } = require(join(REPO, 'out', 'daemon', 'fabric', 'queue', 'createQueue.js'));

function cleanEnv(extra) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(OPENAI|ANTHROPIC|PEAGEN|QUEUE|WORKER)_/.test(name)) delete env[name];
  return { ...env, ...extra };
}

/** redis-server's counters: commands processed and bytes received, from INFO stats. */
function redisCounters(port) {
  const info = spawnSync('redis-cli', ['-p', String(port), 'info', 'stats'], { encoding: 'utf8' }).stdout ?? '';
  const field = (name) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
  return { commands: field('total_commands_processed'), inputBytes: field('total_net_input_bytes') };
}

/** Worker processes for W slots: W/16 processes of 16, at least 1 and at most 8. */
function workerShape(w) {
  const processes = Math.min(8, Math.max(1, Math.min(w, Math.ceil(w / SLOTS_PER_WORKER))));
  const slots = Array.from({ length: processes }, (_, i) => Math.floor(w / processes) + (i < w % processes ? 1 : 0));
  return slots;
}

/** Node's flags for a CPU profile of a process at W under BENCH_CPU_PROF (DIR/wW, or DIR/wW/SUB), or none. */
function cpuProfile(w, sub = '') {
  return process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(resolve(process.env.BENCH_CPU_PROF, `w${w}`), sub)}`] : [];
}

/** BENCH_PERF's directory, made on first use. */
function perfDir() {
  const dir = resolve(process.env.BENCH_PERF);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Under BENCH_PERF=DIR, `perf record -g` of the controller over the measured window, to
 * DIR/wW.perf.data (bench/perfCategories.mjs reads it): perf samples the CPU the process
 * uses, where V8's sampler counts the time it waits too. The controller then runs with
 * --perf-prof, and its JIT dump is injected into the recording at the end, so JavaScript
 * frames have the names of the code that ran (the jitted-*.so files beside it hold them).
 * perf and the dump cost the machine some CPU: a recorded run's figures are for the profile.
 * Returns a function that stops the recording.
 */
function perfRecord(w, pid) {
  if (!process.env.BENCH_PERF) return async () => {};
  const dir = perfDir();
  const data = join(dir, `w${w}.perf.data`);
  const perf = spawn('perf', ['record', '-k', 'mono', '-F', '499', '-g', '-p', String(pid), '-o', `${data}.raw`], { stdio: 'ignore' });
  const exited = new Promise((done) => {
    perf.once('close', done);
    perf.once('error', (error) => done(process.stderr.write(`BENCH_PERF: perf did not start (${error.message}); install linux-perf\n`)));
  });
  return async () => {
    perf.kill('SIGINT');
    await exited;
    const inject = spawnSync('perf', ['inject', '--jit', '-i', `${data}.raw`, '-o', data], { cwd: dir, encoding: 'utf8' });
    if (inject.status !== 0) process.stderr.write(`BENCH_PERF: perf inject failed: ${inject.stderr}\n`);
    else rmSync(`${data}.raw`, { force: true });
  };
}

function startProcess(argv, options, name) {
  const child = spawn(process.execPath, argv, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  const keep = (chunk) => {
    child.output += chunk;
    if (child.output.length > 200_000) child.output = child.output.slice(-100_000);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  child.exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  child.label = name;
  return child;
}

/**
 * sim-llm's move table for the knobs: each knob from 0 to 1 and back. Two moves per knob keep
 * the table small (sim-llm matches every move against each prompt's program: with a move per
 * knob and value, 3,600 of them, it spent ~60 ms of CPU per request) and still leave 2^300
 * programs, so answers rarely repeat.
 */
function writeMoveTable(dir) {
  const knobs = readFileSync(join(EXAMPLE, 'knobs.js'), 'utf8').match(/^const k\d+ = 0;$/gm);
  const moves = [];
  for (const line of knobs) {
    const name = /k\d+/.exec(line)[0];
    for (const [from, to] of [[0, 1], [1, 0]]) {
      moves.push({ id: `${name}-${to}`, kind: 'neutral', rationale: `Turn ${name} to ${to}.`, search: `const ${name} = ${from};`, replace: `const ${name} = ${to};` });
    }
  }
  const file = join(dir, 'knobs.moves.json');
  writeFileSync(file, JSON.stringify({ problem: 'knobs', detect: ['function knobs('], description: 'bench:scale: every knob from 0 to 1 and back', moves }));
  return file;
}

async function startModel(dir) {
  const child = startProcess(
    [SIM_LLM, '--moves', writeMoveTable(dir), '--port', '0', '--seed', '1', '--latency-ms', String(LLM_MS), '--jitter-ms', String(LLM_JITTER_MS), '--fail-nomatch', '0.05'],
    { cwd: dir },
    'sim-llm',
  );
  for (let i = 0; i < 200; i++) {
    const match = /listening on (http:\/\/\S+\/v1)/.exec(child.output);
    if (match) return { baseUrl: match[1], child };
    if (child.exitCode !== null) break;
    await delay(50);
  }
  throw new Error(`sim-llm did not start: ${child.output}`);
}

/** Reads the journal's events (a torn last line, being written, is skipped). */
function journalEvents(file) {
  if (!existsSync(file)) return [];
  const events = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      // the line being appended
    }
  }
  return events;
}

function runDirOf(project) {
  const runs = join(project, '.peagen', 'runs');
  if (!existsSync(runs)) return undefined;
  const [first] = readdirSync(runs);
  return first && join(runs, first);
}

async function benchOne(w, redis, model) {
  const redisUrl = redis.url;
  const redisPid = redis.pid;
  const project = mkdtempSync(join(tmpdir(), `peagen-scale-${w}-`));
  const example = join(project, 'knobs');
  cpSync(EXAMPLE, example, { recursive: true });
  const exampleFile = join(example, 'peagen.example.json');
  const config = JSON.parse(readFileSync(exampleFile, 'utf8'));
  config.evaluator = ['sh', 'evaluate.sh', '{program}', '--sleep-ms', String(EVAL_MS)];
  writeFileSync(exampleFile, JSON.stringify(config, null, 2));
  const queueUrl = `${redisUrl}?prefix=scale-${w}-${process.pid}`;
  const common = { QUEUE_URL: queueUrl, PEAGEN_EXECUTOR: 'process', PEAGEN_HOME: join(project, 'home'), PEAGEN_WORKER_ROOTS: project };
  // The process executor keeps evaluations cheap enough for hundreds of slots on this
  // machine; it does not isolate, so the workers are told that the queue's writers are trusted
  // (the bench's own redis-server, on localhost, written to by this bench alone).
  const workers = workerShape(w).map((slots, i) =>
    startProcess(
      [...cpuProfile(w, 'workers'), CLI, 'worker', 'start', '--concurrency', String(slots), '--metrics-listen', 'off', '--allow-unisolated'],
      { cwd: project, env: cleanEnv(common) },
      `worker ${i}`,
    ),
  );
  // The LLM calls (mutate tasks) on a worker of their own, as on a cluster: one slot per
  // proposal the run may have out at once (W + max(2, W)), so the evolve process is the
  // controller alone. BENCH_MODEL_WORKER=0 leaves them to the evolve process instead.
  // (A worker holds at most 256 slots: more proposals take a second one.)
  const proposalSlots = w + Math.max(2, w);
  const modelProcesses = MODEL_WORKER ? Math.ceil(proposalSlots / 256) : 0;
  const modelWorkers = Array.from({ length: modelProcesses }, (_, i) =>
        startProcess(
          [CLI, 'worker', 'start', '--kinds', 'mutate', '--concurrency', String(Math.ceil(proposalSlots / modelProcesses)), '--metrics-listen', 'off'],
          { cwd: project, env: cleanEnv({ ...common, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'bench', OPENAI_MODEL: 'gpt-4o-mini' }) },
          `model worker ${i}`,
        ),
  );
  const queue = await createQueue(queueUrl);
  // The run looks for workers serving its tasks as it starts: they must be listed by then.
  const slotsFor = (workers, kind) => workers.filter((worker) => worker.kinds.includes(kind)).reduce((sum, worker) => sum + worker.slots, 0);
  for (let i = 0; ; i++) {
    const listed = await queue.listWorkers();
    if (slotsFor(listed, 'evaluate') >= w && slotsFor(listed, 'mutate') >= (MODEL_WORKER ? proposalSlots : 0)) break;
    const dead = [...workers, ...modelWorkers].find((worker) => worker.exitCode !== null);
    if (dead || i > 600) throw new Error(`the workers did not start:\n${(dead ?? workers[0]).output.slice(-3000)}`);
    await delay(100);
  }
  const minutes = (WARMUP_S + SECONDS + 30) / 60;
  const evolve = startProcess(
    [
      ...cpuProfile(w),
      ...(process.env.BENCH_PERF ? ['--perf-prof', `--perf-prof-path=${perfDir()}`, '--interpreted-frames-native-stack'] : []),
      CLI,
      '--json',
      'evolve',
      'run', 'knobs', '--workers', String(w), '--minutes', minutes.toFixed(3), '--reduce-budget', '0'],
    {
      cwd: project,
      env: cleanEnv({
        ...common,
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'bench',
        OPENAI_MODEL: 'gpt-4o-mini',
      }),
    },
    'evolve run',
  );
  const samples = [];
  try {
    // The seed's evaluation, then the warm-up.
    let runDir;
    for (;;) {
      if (evolve.exitCode !== null) throw new Error(`evolve run ended early (${evolve.exitCode}):\n${evolve.output.slice(-3000)}`);
      runDir = runDirOf(project);
      if (runDir && journalEvents(join(runDir, 'journal.jsonl')).some((event) => event.type === 'seed')) break;
      await delay(200);
    }
    await delay(WARMUP_S * 1000);
    const journal = join(runDir, 'journal.jsonl');
    const startedAt = Date.now();
    const machineBefore = machineCpu();
    const cpuBefore = processCpuMs(evolve.pid);
    const stopPerf = perfRecord(w, evolve.pid);
    const countersBefore = redisCounters(redis.port);
    const otherCpuBefore = {
      model: processCpuMs(model.child.pid),
      redis: processCpuMs(redisPid),
      workers: workers.map((worker) => processCpuMs(worker.pid)),
      modelWorkers: modelWorkers.map((worker) => processCpuMs(worker.pid)),
    };
    while (Date.now() - startedAt < SECONDS * 1000) {
      const depth = await queue.depth();
      const of = (kind) => depth.filter((entry) => entry.kind === kind).reduce((sum, entry) => ({ pending: sum.pending + entry.pending, inFlight: sum.inFlight + entry.inFlight }), { pending: 0, inFlight: 0 });
      samples.push({ evaluate: of('evaluate'), mutate: of('mutate') });
      await delay(1000);
    }
    const endedAt = Date.now();
    const machine = machineCpu(machineBefore);
    const cpuMs = processCpuMs(evolve.pid) - cpuBefore;
    const redisCpuMs = processCpuMs(redisPid) - otherCpuBefore.redis;
    const countersAfter = redisCounters(redis.port);
    const modelCpuMs = processCpuMs(model.child.pid) - otherCpuBefore.model;
    const workersCpuMs = workers.reduce((sum, worker, i) => sum + processCpuMs(worker.pid) - otherCpuBefore.workers[i], 0);
    const modelWorkersCpuMs = modelWorkers.reduce((sum, worker, i) => sum + processCpuMs(worker.pid) - otherCpuBefore.modelWorkers[i], 0);
    // After every reading: the JIT dump's injection takes seconds of a core.
    await stopPerf();
    const inWindow = journalEvents(journal).filter((event) => {
      const at = Date.parse(event.at);
      return at >= startedAt && at < endedAt;
    });
    const evaluations = inWindow.filter((event) => event.type === 'evaluation').length;
    const proposals = inWindow.filter((event) => event.type === 'proposal');
    const llmCalls = proposals.reduce((sum, event) => sum + (event.exchanges?.length ?? 0), 0);
    const minutesMeasured = (endedAt - startedAt) / 60_000;
    const mean = (pick) => samples.reduce((sum, sample) => sum + pick(sample), 0) / Math.max(1, samples.length);
    const max = (pick) => samples.reduce((best, sample) => Math.max(best, pick(sample)), 0);
    return {
      w,
      processes: workers.length,
      perMin: evaluations / minutesMeasured,
      ideal: (w * 60_000) / EVAL_MS,
      cpuPerCandidate: cpuMs / Math.max(1, evaluations),
      cpuShare: cpuMs / (endedAt - startedAt),
      redisShare: redisCpuMs / (endedAt - startedAt),
      modelShare: modelCpuMs / (endedAt - startedAt),
      workersPerCandidate: workersCpuMs / Math.max(1, evaluations),
      modelWorkerPerCandidate: MODEL_WORKER ? modelWorkersCpuMs / Math.max(1, evaluations) : undefined,
      redisCommandsPerCandidate: (countersAfter.commands - countersBefore.commands) / Math.max(1, evaluations),
      redisKbPerCandidate: (countersAfter.inputBytes - countersBefore.inputBytes) / 1024 / Math.max(1, evaluations),
      evalPending: mean((s) => s.evaluate.pending),
      evalPendingMax: max((s) => s.evaluate.pending),
      evalInFlight: mean((s) => s.evaluate.inFlight),
      mutatePending: mean((s) => s.mutate.pending),
      mutateInFlight: mean((s) => s.mutate.inFlight),
      mutateQueuedMax: max((s) => s.mutate.pending + s.mutate.inFlight),
      utilisation: mean((s) => Math.min(w, s.evaluate.inFlight)) / w,
      llmCalls,
      proposals: proposals.length,
      children: proposals.filter((event) => event.ok).length,
      machineBusy: machine.busy,
      machineSteal: machine.steal,
    };
  } finally {
    evolve.kill('SIGINT');
    const ended = await Promise.race([evolve.exited, delay(30_000).then(() => undefined)]);
    if (!ended) evolve.kill('SIGKILL');
    const all = [...workers, ...modelWorkers];
    for (const worker of all) worker.kill('SIGTERM');
    await Promise.all(all.map((worker) => Promise.race([worker.exited, delay(20_000).then(() => worker.kill('SIGKILL'))])));
    await queue.close();
    if (process.env.BENCH_KEEP) process.stderr.write(`kept ${project}\n`);
    else rmSync(project, { recursive: true, force: true });
  }
}

/**
 * The whole machine's CPU over the window, from /proc/stat: the share of its cores' time that
 * was busy (any process, this bench's or not) and the share a hypervisor gave to other guests
 * (steal). Without `since`, the counters to pass back at the window's end. A slow figure with
 * the machine near full, or with steal, measures the machine rather than the fabric; the
 * report says so beside the figure.
 */
function machineCpu(since) {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already within user).
  const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = fields;
  const now = { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
  if (!since) return now;
  const total = Math.max(1, now.busy - since.busy + (now.idle - since.idle) + (now.steal - since.steal));
  return { busy: (now.busy - since.busy + (now.steal - since.steal)) / total, steal: (now.steal - since.steal) / total };
}

/** Above this share of busy (or stolen) cores, the machine rather than the fabric may set the pace. */
const SATURATED = 0.85;

const pct = (x) => `${(x * 100).toFixed(0)}%`;
const fixed = (x, digits = 1) => x.toFixed(digits);

const redis = await startRedis();
const base = mkdtempSync(join(tmpdir(), 'peagen-scale-model-'));
const model = await startModel(base);
const rows = [];
try {
  process.stderr.write(
    `bench:scale: eval ${EVAL_MS} ms (sleep, process sandbox), model ${LLM_MS} ± ${LLM_JITTER_MS} ms (sim-llm, knob moves), ${WARMUP_S} s warm-up + ${SECONDS} s per W\n`,
  );
  for (const w of SIZES) {
    process.stderr.write(`W = ${w}: ${workerShape(w).length} worker process(es) [${workerShape(w).join(', ')}] ...\n`);
    const row = await benchOne(w, redis, model);
    rows.push(row);
    process.stderr.write(`  ${fixed(row.perMin)} evaluations/min (${pct(row.perMin / row.ideal)} of ${fixed(row.ideal, 0)}), ${fixed(row.cpuPerCandidate, 2)} ms controller CPU per candidate\n`);
  }
} finally {
  model.child.kill('SIGTERM');
  await stopRedis(redis);
  rmSync(base, { recursive: true, force: true });
}

const header = ['W', 'procs', 'evals/min', 'ideal', '% ideal', 'ctl CPU ms/cand', 'ctl CPU %', 'workers ms/cand', 'LLM worker ms/cand', 'redis CPU %', 'redis cmds/cand', 'redis in KB/cand', 'sim-llm CPU %', 'eval pending avg/max', 'eval in flight', 'mutate pend/in flight', 'mutate max', 'util', 'LLM calls', 'children/proposals', 'machine busy', 'steal'];
const lines = rows.map((r) => [
  r.w,
  r.processes,
  fixed(r.perMin),
  fixed(r.ideal, 0),
  pct(r.perMin / r.ideal),
  fixed(r.cpuPerCandidate, 2),
  pct(r.cpuShare),
  fixed(r.workersPerCandidate, 1),
  r.modelWorkerPerCandidate === undefined ? '-' : fixed(r.modelWorkerPerCandidate, 1),
  pct(r.redisShare),
  fixed(r.redisCommandsPerCandidate, 0),
  fixed(r.redisKbPerCandidate, 0),
  pct(r.modelShare),
  `${fixed(r.evalPending)}/${r.evalPendingMax}`,
  fixed(r.evalInFlight),
  `${fixed(r.mutatePending)}/${fixed(r.mutateInFlight)}`,
  r.mutateQueuedMax,
  pct(r.utilisation),
  r.llmCalls,
  `${r.children}/${r.proposals}`,
  pct(r.machineBusy),
  pct(r.machineSteal),
]);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => String(line[i]).length)));
const format = (cells) => cells.map((cell, i) => String(cell).padStart(widths[i])).join('  ');
console.log(format(header));
for (const line of lines) console.log(format(line));
console.log('');
for (const [w, share] of Object.entries(TARGETS)) {
  const row = rows.find((r) => r.w === Number(w));
  if (row) console.log(`target: >= ${pct(share)} of ideal evaluations/min at W = ${w}: ${pct(row.perMin / row.ideal)} — ${row.perMin / row.ideal >= share ? 'met' : 'MISSED'}`);
}
for (const row of rows.filter((r) => r.machineBusy >= SATURATED || r.machineSteal >= 0.05)) {
  console.log(
    `note: at W = ${row.w} the machine's cores were ${pct(row.machineBusy)} busy (${pct(row.machineSteal)} stolen by other guests): its figures may measure this machine rather than the fabric; run again on an idle machine`,
  );
}
const cpuRow = rows.find((r) => r.w === CPU_TARGET.w);
if (cpuRow) console.log(`target: controller CPU <= ${CPU_TARGET.ms} ms per candidate at W = ${CPU_TARGET.w}: ${fixed(cpuRow.cpuPerCandidate, 2)} ms — ${cpuRow.cpuPerCandidate <= CPU_TARGET.ms ? 'met' : 'MISSED'}`);
