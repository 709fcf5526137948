#!/usr/bin/env node
// `npm run bench:startup`: what it costs to start Peagen, each figure beside plain Node
// measured in the same run, in interleaved rounds so that machine noise hits all alike:
//   node -e 0                 the floor: Node starting and exiting
//   peagen --version          dist/cli.js --version
//   peagen --help             dist/cli.js --help
//   daemon start to ready     `peagen daemon start` until it returns (the daemon has written
//                             its record: it listens), beside `node -e 0`
//   idle daemon RSS           VmRSS of that daemon after it has been idle for --idle-seconds,
//                             beside an idle `node -e 'setInterval(...)'` read at the same time
// and the sizes of the shipped bundles in dist/ (whatever the last build made: `npm run
// package` makes the minified ones). Each daemon gets its own PEAGEN_HOME and working
// directory, and serves metrics on a free port, so it never meets another daemon.
//
//   node bench/startup.mjs [--rounds N] [--daemon-rounds N] [--idle-seconds S] [--baseline DIR] [--json]
//
// --baseline DIR: a built checkout of another version (e.g. `git archive` of main, with
// node_modules linked, after `node scripts/build.mjs`): its CLI and daemon run beside this
// one's, in the same rounds. Medians are printed; no figure fails the bench.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    'daemon-rounds': { type: 'string', default: '5' },
    'idle-seconds': { type: 'string', default: '30' },
    baseline: { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (options.help) {
  console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1).filter((line) => line.startsWith('//')).map((line) => line.slice(3)).join('\n'));
  process.exit(0);
}
const ROUNDS = Number(options.rounds);
const DAEMON_ROUNDS = Number(options['daemon-rounds']);
const IDLE_SECONDS = Number(options['idle-seconds']);
const checkouts = [{ label: '', repo: REPO }, ...(options.baseline ? [{ label: 'baseline ', repo: resolve(options.baseline) }] : [])];
for (const { repo } of checkouts) if (!existsSync(join(repo, 'dist', 'cli.js'))) throw new Error(`${repo}/dist/cli.js is missing: build it first (node scripts/build.mjs)`);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const log = (line) => options.json || process.stderr.write(line);

/** Wall time of one process from spawn to exit, in ms; a non-zero exit is a broken run. */
function timed(args, { cwd = REPO, env = process.env } = {}) {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) resolvePromise({ ms, output });
      else reject(new Error(`node ${args.join(' ')} exited ${code}:\n${output}`));
    });
  });
}

function rssKb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]);
}

/** A daemon home of its own: PEAGEN_HOME and the working directory (no peagen.json above it). */
function daemonHome() {
  const home = mkdtempSync(join(tmpdir(), 'peagen-bench-startup-'));
  return { home, cwd: home, env: { ...process.env, PEAGEN_HOME: home } };
}

async function startDaemon(repo, place) {
  const { ms, output } = await timed([join(repo, 'dist', 'cli.js'), '--json', 'daemon', 'start', '--metrics-listen', '127.0.0.1:0'], place);
  const record = JSON.parse(output.slice(output.indexOf('{')));
  if (!record.started) throw new Error(`the daemon in ${place.home} did not start: ${output}`);
  return { ms, pid: record.pid };
}

async function stopDaemon(repo, place) {
  await timed([join(repo, 'dist', 'cli.js'), 'daemon', 'stop', '--no-drain'], place);
  rmSync(place.home, { recursive: true, force: true });
}

const samples = new Map();
const add = (name, ms) => (samples.get(name) ?? samples.set(name, []).get(name)).push(ms);
const cli = (repo) => join(repo, 'dist', 'cli.js');

// Warm the file cache once per command, so that round 1 is not a cold-disk outlier.
await timed(['-e', '0']);
for (const { repo } of checkouts) await timed([cli(repo), '--version']);

for (let round = 0; round < ROUNDS; round++) {
  for (const { label, repo } of checkouts) {
    add('node -e 0', (await timed(['-e', '0'])).ms);
    add(`${label}peagen --version`, (await timed([cli(repo), '--version'])).ms);
    add('node -e 0', (await timed(['-e', '0'])).ms);
    add(`${label}peagen --help`, (await timed([cli(repo), '--help'])).ms);
  }
  log(`\rCLI round ${round + 1}/${ROUNDS}`);
}
log('\n');

const idle = new Map();
for (let round = 0; round < DAEMON_ROUNDS; round++) {
  const last = round === DAEMON_ROUNDS - 1;
  const running = [];
  for (const { label, repo } of checkouts) {
    add('node -e 0 (daemon rounds)', (await timed(['-e', '0'])).ms);
    const place = daemonHome();
    const { ms, pid } = await startDaemon(repo, place);
    add(`${label}daemon start to ready`, ms);
    running.push({ label, repo, place, pid });
    if (!last) await stopDaemon(repo, place);
  }
  log(`\rdaemon round ${round + 1}/${DAEMON_ROUNDS}`);
  if (!last) continue;
  // The last round's daemons stay up, idle, beside an idle plain Node process.
  const plain = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  log(`; ${IDLE_SECONDS} s idle`);
  await delay(IDLE_SECONDS * 1000);
  idle.set('idle node', rssKb(plain.pid));
  for (const { label, pid } of running) idle.set(`${label}idle daemon`, rssKb(pid));
  plain.kill();
  for (const { repo, place } of running) await stopDaemon(repo, place);
}
log('\n');

/** Bytes per shipped file of dist/; the chunks of dist/esm/ (where there are any) as one total. */
function bundleSizes(repo) {
  const dist = join(repo, 'dist');
  const sizes = {};
  for (const name of readdirSync(dist, { recursive: true })) {
    const file = join(dist, name);
    if (!/\.(js|mjs|vsix)$/.test(name) || !statSync(file).isFile()) continue;
    const key = name.startsWith('esm') ? 'esm/*.mjs (all chunks)' : name;
    sizes[key] = (sizes[key] ?? 0) + statSync(file).size;
  }
  return sizes;
}

const medians = Object.fromEntries([...samples].map(([name, values]) => [name, median(values)]));
const floor = medians['node -e 0'];
const daemonFloor = medians['node -e 0 (daemon rounds)'];
const idleNodeKb = idle.get('idle node');
const result = {
  rounds: ROUNDS,
  daemonRounds: DAEMON_ROUNDS,
  idleSeconds: IDLE_SECONDS,
  node: process.version,
  loadAverage: (await import('node:os')).loadavg(),
  timesMs: medians,
  ratios: Object.fromEntries(
    Object.entries(medians)
      .filter(([name]) => !name.startsWith('node -e 0'))
      .map(([name, ms]) => [name, ms / (name.includes('daemon') ? daemonFloor : floor)]),
  ),
  rssKb: Object.fromEntries(idle),
  sizes: Object.fromEntries(checkouts.map(({ label, repo }) => [label.trim() || 'this', bundleSizes(repo)])),
};

if (options.json) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const row = (cells) => console.log(`  ${cells[0].padEnd(34)}${cells.slice(1).map((cell) => cell.padStart(14)).join('')}`);
  console.log(`start-up, median of ${ROUNDS} interleaved rounds (daemon: ${DAEMON_ROUNDS}), node ${process.version}, load ${result.loadAverage.map((l) => l.toFixed(2)).join(' ')}:`);
  row(['', 'median ms', 'x node -e 0']);
  row(['node -e 0', floor.toFixed(1), '1.00x']);
  for (const [name, ms] of Object.entries(medians)) if (!name.startsWith('node -e 0')) row([name, ms.toFixed(1), `${result.ratios[name].toFixed(2)}x`]);
  row(['node -e 0 (beside the daemon starts)', daemonFloor.toFixed(1), '1.00x']);
  console.log(`resident memory after ${IDLE_SECONDS} s idle (VmRSS):`);
  row(['', 'MB', 'x idle node']);
  for (const [name, kb] of idle) row([name, (kb / 1024).toFixed(1), `${(kb / idleNodeKb).toFixed(2)}x`]);
  console.log('bundle sizes (dist/, as last built):');
  for (const { label } of checkouts) {
    for (const [name, bytes] of Object.entries(result.sizes[label.trim() || 'this'])) row([`${label}${name}`, `${(bytes / 1024).toFixed(0)} KB`]);
  }
  console.log('targets (issue): peagen --version <= 2x node -e 0; idle daemon <= 80 MB');
}
