#!/usr/bin/env node
// `npm run bench:sandbox`: start-to-exit time of a trivial task through each executor, beside a
// plain child_process.spawn of the same command and beside the `docker run` CLI, measured in
// one run with the variants interleaved (so machine noise hits all alike). Prints medians and
// the ratios the targets are about:
//   bwrap / plain spawn        target <= 1.5
//   dockerode / docker CLI     target <= 1.0
// Provisions what it needs like the tests do (bubblewrap via apt, a private dockerd).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const COMMAND = (process.env.BENCH_COMMAND ?? 'node -e 0').split(' ');

spawnSync(process.execPath, [join(REPO, 'scripts', 'provision', 'bwrap.mjs')], { stdio: 'inherit' });
const { startDockerEngine, stopDockerEngine } = await import(join(REPO, 'scripts', 'provision', 'docker.mjs'));
const { BwrapExecutor } = require(join(REPO, 'out', 'daemon', 'sandbox', 'BwrapExecutor.js'));
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
const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
try {
  for (const run of Object.values(variants)) await run(); // warm-up: caches, image layers
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(variants)) samples[name].push(await run());
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
