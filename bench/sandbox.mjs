#!/usr/bin/env node
// `npm run bench:sandbox`, two parts, each with its variants interleaved round by round (so
// machine noise hits all alike):
//
// 1. Start-to-exit time of a trivial task through each executor, beside a plain
//    child_process.spawn of the same command and beside the `docker run` CLI. Prints medians
//    and the ratios the targets are about:
//      bwrap / plain spawn        target <= 1.5
//      dockerode / docker CLI     target <= 1.0
// 2. Start latency, cold vs prepared (warm): from the moment a worker would have its claim
//    (the call to executor.run(), or to prepared.run() on a sandbox prepared before) to the
//    moment the command reads the clock inside the sandbox. The command is `busybox adjtimex`
//    (read-only: it prints the wall clock in microseconds; the host's busybox in bwrap, the
//    image's in docker, both static): the latency is the time it prints minus the host's wall
//    clock at the call (one kernel clock for host, bwrap and containers), so it includes the
//    exec and start-up of busybox itself, shown on its own in the `stamp itself` row (the gap
//    between two stamps a shell on the host runs back to back). `plain spawn()` is node's
//    spawn of the same on the host, for reference. The request has the shape of an evaluate task: a program file written
//    into the empty workspace, examples/bad_sort mounted at /harness and the harness library
//    at /peagen-harness. Prints medians and p90 and the ratio to the target:
//      warm start <= 10 ms
//
// Provisions what it needs like the tests do (bubblewrap via apt, a private dockerd).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const COMMAND = (process.env.BENCH_COMMAND ?? 'node -e 0').split(' ');

spawnSync(process.execPath, [join(REPO, 'scripts', 'provision', 'bwrap.mjs')], { stdio: 'inherit' });
const { startDockerEngine, stopDockerEngine } = await import(join(REPO, 'scripts', 'provision', 'docker.mjs'));
const { BwrapExecutor } = require(join(REPO, 'out', 'daemon', 'sandbox', 'bwrap', 'BwrapExecutor.js'));
const { DockerExecutor } = require(join(REPO, 'out', 'daemon', 'sandbox', 'docker', 'DockerExecutor.js'));
const { ProcessExecutor } = require(join(REPO, 'out', 'daemon', 'sandbox', 'ProcessExecutor.js'));
const { buildSandboxImage, DEFAULT_SANDBOX_IMAGE } = require(join(REPO, 'out', 'daemon', 'sandbox', 'image', 'buildImage.js'));

const engine = await startDockerEngine();
const dockerHost = `unix://${engine.socket}`;
await buildSandboxImage({ dockerHost });

const workspace = mkdtempSync(join(tmpdir(), 'peagen-bench-'));
const cleanEnv = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: workspace, LANG: 'C.UTF-8' };
const bwrap = new BwrapExecutor();
const docker = new DockerExecutor({ dockerHost, image: DEFAULT_SANDBOX_IMAGE });
const processExecutor = new ProcessExecutor(() => {});
for (const executor of [bwrap, docker]) {
  const availability = await executor.available();
  if (!availability.ok) throw new Error(`${executor.name} is not available: ${availability.reason}`);
}

function timeSpawn(argv, env) {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn(argv[0], argv.slice(1), { env, stdio: 'ignore' });
    child.once('error', fail);
    child.once('exit', (code) => (code === 0 ? done(Number(process.hrtime.bigint() - started) / 1e6) : fail(new Error(`${argv.join(' ')} exited ${code}`))));
  });
}
async function timeExecutor(executor) {
  const started = process.hrtime.bigint();
  const result = await executor.run({ command: COMMAND, workspace });
  if (result.exitCode !== 0) throw new Error(`${executor.name}: exit ${result.exitCode} ${result.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}
const dockerCli = ['docker', '-H', dockerHost, 'run', '--rm', '--network', 'none', '--read-only', '--user', '65534', '--cap-drop', 'ALL', DEFAULT_SANDBOX_IMAGE, ...COMMAND];

const variants = {
  'plain spawn': () => timeSpawn(COMMAND, cleanEnv),
  'process executor': () => timeExecutor(processExecutor),
  'bwrap executor': () => timeExecutor(bwrap),
  'docker CLI (docker run --rm)': () => timeSpawn(dockerCli, { ...process.env, DOCKER_HOST: dockerHost }),
  'docker executor (dockerode)': () => timeExecutor(docker),
};
// Part 2: start latency. The host's wall clock in ns, as precise as performance.now() allows.
const wallClockNs = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
// busybox's date (the docker image's) has no %N; its adjtimex applet prints the wall clock in
// microseconds, read-only (no privilege needed), from a static binary that starts in ~0.3 ms.
const STAMP = ['busybox', 'adjtimex'];
const evaluateShape = {
  files: { 'program.py': readFileSync(join(REPO, 'examples', 'bad_sort', 'bad_sort.py'), 'utf8') },
  mounts: [
    { hostPath: join(REPO, 'examples', 'bad_sort'), sandboxPath: '/harness' },
    { hostPath: join(REPO, 'harness'), sandboxPath: '/peagen-harness' },
  ],
};
const prepareOptions = { mountPoints: evaluateShape.mounts.map((mount) => mount.sandboxPath) };
/** The wall-clock times (ns) the stamp command printed, in order. */
const stampsOf = (stdout) => {
  const stamps = [...stdout.matchAll(/time\.tv_sec:\s*(\d+)\s+time\.tv_usec:\s*(\d+)/g)].map(([, sec, usec]) => BigInt(sec) * 1_000_000_000n + BigInt(usec) * 1000n);
  if (stamps.length === 0) throw new Error(`the stamp command printed ${JSON.stringify(stdout)}`);
  return stamps;
};
const latencyOf = (stdout, handedOver) => Number(stampsOf(stdout)[0] - handedOver) / 1e6;
/** The stamp's own cost: the gap between two stamps a shell on the host runs back to back (fork, exec, start-up, clock read). */
function stampItself() {
  const { stdout } = spawnSync('/bin/sh', ['-c', `${STAMP.join(' ')}; ${STAMP.join(' ')}`], { encoding: 'utf8', env: cleanEnv });
  const [first, second] = stampsOf(stdout);
  return Number(second - first) / 1e6;
}
function startSpawn() {
  return new Promise((done, fail) => {
    let out = '';
    const handedOver = wallClockNs();
    const child = spawn(STAMP[0], STAMP.slice(1), { env: cleanEnv, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('error', fail);
    child.once('close', () => done(latencyOf(out, handedOver)));
  });
}
async function startCold(executor) {
  const handedOver = wallClockNs();
  const result = await executor.run({ command: STAMP, ...evaluateShape });
  if (result.exitCode !== 0) throw new Error(`${executor.name}: exit ${result.exitCode} ${result.stderr}`);
  return latencyOf(result.stdout, handedOver);
}
async function startWarm(executor) {
  // Made before the claim, as the warm spawner does; its making is not timed.
  const prepared = await executor.prepare(prepareOptions);
  const handedOver = wallClockNs();
  const result = await prepared.run({ command: STAMP, ...evaluateShape });
  if (result.exitCode !== 0 || !result.warm) throw new Error(`${executor.name}: exit ${result.exitCode}, warm ${result.warm}: ${result.stderr}`);
  return latencyOf(result.stdout, handedOver);
}
const startVariants = {
  'stamp itself (sh on the host)': async () => stampItself(),
  'plain spawn() on the host': startSpawn,
  'bwrap cold': () => startCold(bwrap),
  'bwrap warm': () => startWarm(bwrap),
  'docker cold': () => startCold(docker),
  'docker warm': () => startWarm(docker),
};

const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
const startSamples = Object.fromEntries(Object.keys(startVariants).map((name) => [name, []]));
try {
  for (const run of Object.values(variants)) await run(); // warm-up: caches, image layers
  for (const run of Object.values(startVariants)) await run();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(variants)) samples[name].push(await run());
    for (const [name, run] of Object.entries(startVariants)) startSamples[name].push(await run());
    process.stderr.write(`\rround ${round + 1}/${ROUNDS}`);
  }
} finally {
  process.stderr.write('\n');
  await Promise.all([bwrap.close(), docker.close(), processExecutor.close()]);
  rmSync(workspace, { recursive: true, force: true });
  if (engine.started) await stopDockerEngine(engine.pid);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
/** Nearest-rank percentile. */
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const medians = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
console.log(`start-to-exit of \`${COMMAND.join(' ')}\`, median of ${ROUNDS} interleaved rounds:`);
for (const [name, ms] of Object.entries(medians)) console.log(`  ${name.padEnd(30)} ${ms.toFixed(1).padStart(8)} ms`);
const ratio = (a, b) => medians[a] / medians[b];
const lines = [
  ['bwrap executor / plain spawn', ratio('bwrap executor', 'plain spawn'), 1.5],
  ['process executor / plain spawn', ratio('process executor', 'plain spawn'), undefined],
  ['docker executor / docker CLI', ratio('docker executor (dockerode)', 'docker CLI (docker run --rm)'), 1.0],
];
console.log('ratios:');
for (const [name, value, target] of lines) {
  const verdict = target === undefined ? '' : value <= target ? `  (target <= ${target}: met)` : `  (target <= ${target}: MISSED)`;
  console.log(`  ${name.padEnd(32)} ${value.toFixed(2)}x${verdict}`);
}

const WARM_TARGET_MS = 10;
console.log(`\nstart latency (claim to \`${STAMP.join(' ')}\` reading the clock in the sandbox), ${ROUNDS} interleaved rounds, evaluate-shaped request:`);
console.log(`  ${'variant'.padEnd(30)} ${'median'.padStart(9)} ${'p90'.padStart(9)}`);
for (const [name, values] of Object.entries(startSamples)) {
  console.log(`  ${name.padEnd(30)} ${median(values).toFixed(2).padStart(6)} ms ${percentile(values, 90).toFixed(2).padStart(6)} ms`);
}
console.log('  (every figure includes the stamp command\'s own fork/exec and start-up: the first row)');
console.log('warm vs cold, and vs the target:');
for (const executor of ['bwrap', 'docker']) {
  const cold = median(startSamples[`${executor} cold`]);
  const warm = median(startSamples[`${executor} warm`]);
  const p90 = percentile(startSamples[`${executor} warm`], 90);
  const verdict = warm <= WARM_TARGET_MS ? 'met' : 'MISSED';
  console.log(
    `  ${`${executor} warm / cold`.padEnd(20)} ${(warm / cold).toFixed(3)}x (${(cold / warm).toFixed(1)}x faster);  warm median / ${WARM_TARGET_MS} ms: ${(warm / WARM_TARGET_MS).toFixed(2)} (target <= ${WARM_TARGET_MS} ms: ${verdict}; warm p90 ${p90.toFixed(2)} ms)`,
  );
}
