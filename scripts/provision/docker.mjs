#!/usr/bin/env node
// A private Docker engine for the `docker` executor's tests, started without systemd and
// without touching the host's iptables or any system dockerd:
//   - installs Debian's docker.io and busybox-static when missing (apt-get update only if
//     the install fails for lack of package lists),
//   - starts `dockerd --iptables=false --bridge=none` with its own data root (a cache OUTSIDE
//     the repo, so built images survive between runs) and its own exec root, pid file and
//     socket under /tmp (short paths: unix sockets are limited to 108 bytes),
//   - waits until the engine answers GET /_ping.
// Reuses an engine that already answers on the socket (then `started` is false).
//
// Usage: node scripts/provision/docker.mjs [start|stop|status]
//   start (default)  stdout: {"socket": "...", "pid": N, "started": true|false}; stderr: progress
//   stop             stops the engine whose pid file this script wrote (SIGTERM, then SIGKILL)
//   status           {"socket": "...", "running": bool, "pid": N|null}
// Environment:
//   PEAGEN_DOCKER_DATA  data root (default ${XDG_CACHE_HOME:-~/.cache}/peagen-test/docker)
//   PEAGEN_DOCKER_RUN   directory of the socket, exec root, pid file and log (default /tmp/peagen-dockerd)
//
// Clients: DOCKER_HOST=unix://<socket> (dockerode: { socketPath: <socket> }).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const log = (msg) => process.stderr.write(`[provision docker] ${msg}\n`);

export function dockerDataRoot() {
  if (process.env.PEAGEN_DOCKER_DATA) return resolve(process.env.PEAGEN_DOCKER_DATA);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'peagen-test', 'docker');
}

export function dockerRunDir() {
  return resolve(process.env.PEAGEN_DOCKER_RUN || '/tmp/peagen-dockerd');
}

export function dockerPaths(runDir = dockerRunDir()) {
  return {
    runDir,
    socket: join(runDir, 'docker.sock'),
    execRoot: join(runDir, 'exec'),
    pidFile: join(runDir, 'dockerd.pid'),
    logFile: join(runDir, 'dockerd.log'),
    dataRoot: dockerDataRoot(),
  };
}

function dpkgInstalled(pkg) {
  const res = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return res.status === 0 && /install ok installed/.test(res.stdout);
}

function commandExists(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function aptListsPresent() {
  try {
    return readdirSync('/var/lib/apt/lists').some((f) => f.includes('_Packages'));
  } catch {
    return false;
  }
}

/** docker.io (dockerd, containerd, runc) and busybox-static (the sandbox image's shell). */
export function ensureDockerPackages() {
  const missing = [];
  if (!commandExists('dockerd') && !dpkgInstalled('docker.io')) missing.push('docker.io');
  if (!existsSync('/bin/busybox') && !existsSync('/usr/bin/busybox')) missing.push('busybox-static');
  if (missing.length === 0) return;
  if (!existsSync('/usr/bin/apt-get')) throw new Error(`missing ${missing.join(' ')} and there is no apt-get here: install them by hand`);
  if (process.getuid?.() !== 0) throw new Error(`missing Debian packages: run as root: apt-get install -y --no-install-recommends ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 2, 2], env }).status === 0;
  const install = () => apt(['-q', 'install', '-y', '--no-install-recommends', ...missing]);
  log(`apt-get install ${missing.join(' ')}`);
  if (!aptListsPresent()) {
    log('apt lists are empty: apt-get update');
    apt(['-q', 'update']);
  }
  if (install()) return;
  log('apt-get install failed; retrying after apt-get update');
  apt(['-q', 'update']);
  if (!install()) throw new Error(`apt-get install -y --no-install-recommends ${missing.join(' ')} failed`);
}

/** Resolves true when an engine answers GET /_ping on `socket` within `timeoutMs`. */
export function pingEngine(socket, timeoutMs = 2_000) {
  return new Promise((resolvePing) => {
    if (!existsSync(socket)) return resolvePing(false);
    const req = request({ socketPath: socket, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolvePing(res.statusCode === 200));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolvePing(false));
    req.end();
  });
}

function readPid(pidFile) {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Running (a zombie waiting for its reaper counts as gone). */
function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the private engine, or reuses one that already answers on its socket.
 * Resolves { socket, pid, started } — stop it with stopDockerEngine(pid) only if `started`.
 */
export async function startDockerEngine({ runDir = dockerRunDir(), timeoutMs = 30_000 } = {}) {
  const paths = dockerPaths(runDir);
  if (await pingEngine(paths.socket)) return { socket: paths.socket, pid: readPid(paths.pidFile), started: false };
  ensureDockerPackages();
  // A previous engine that died uncleanly leaves its pid file behind; dockerd refuses to start then.
  const stale = readPid(paths.pidFile);
  if (stale !== null && alive(stale)) {
    const cmdline = readFileSync(`/proc/${stale}/cmdline`, 'utf8');
    if (cmdline.includes(paths.socket)) {
      log(`dockerd ${stale} owns ${paths.socket} but does not answer; stopping it`);
      await stopDockerEngine(stale);
    }
  }
  rmSync(paths.pidFile, { force: true });
  rmSync(paths.socket, { force: true });
  mkdirSync(paths.runDir, { recursive: true, mode: 0o700 });
  mkdirSync(paths.execRoot, { recursive: true });
  mkdirSync(paths.dataRoot, { recursive: true });
  const out = openSync(paths.logFile, 'w');
  const args = [
    // Every container start and stop logs a few lines at info and warning level.
    '--log-level=error',
    '--iptables=false',
    '--ip-masq=false',
    '--bridge=none',
    '--data-root',
    paths.dataRoot,
    '--exec-root',
    paths.execRoot,
    '--pidfile',
    paths.pidFile,
    '-H',
    `unix://${paths.socket}`,
  ];
  log(`dockerd ${args.join(' ')}`);
  const child = spawn('dockerd', args, { detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  child.unref();
  let exited = null;
  child.once('exit', (code, signal) => (exited = signal ?? code));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited !== null) break;
    if (await pingEngine(paths.socket, 1_000)) return { socket: paths.socket, pid: child.pid, started: true };
    await sleep(100);
  }
  // Another process may have started an engine on this socket at the same time.
  if (await pingEngine(paths.socket)) return { socket: paths.socket, pid: readPid(paths.pidFile), started: false };
  const tail = existsSync(paths.logFile) ? readFileSync(paths.logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
  if (exited === null && child.pid) await stopDockerEngine(child.pid);
  throw new Error(`dockerd did not answer on ${paths.socket} (${exited === null ? 'timed out' : `exited: ${exited}`}); log ${paths.logFile}:\n${tail}`);
}

/** Stops the dockerd with this pid (and the containerd it manages): SIGTERM, then SIGKILL. */
export async function stopDockerEngine(pid, { timeoutMs = 15_000 } = {}) {
  if (!pid || !alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && alive(pid)) await sleep(100);
  if (alive(pid)) {
    log(`dockerd ${pid} ignored SIGTERM; killing it`);
    process.kill(pid, 'SIGKILL');
  }
}

async function main() {
  const action = process.argv[2] ?? 'start';
  const paths = dockerPaths();
  if (action === 'start') {
    const engine = await startDockerEngine();
    process.stdout.write(`${JSON.stringify(engine)}\n`);
  } else if (action === 'stop') {
    const pid = readPid(paths.pidFile);
    await stopDockerEngine(pid);
    process.stdout.write(`${JSON.stringify({ socket: paths.socket, stopped: pid })}\n`);
  } else if (action === 'status') {
    const running = await pingEngine(paths.socket);
    process.stdout.write(`${JSON.stringify({ socket: paths.socket, running, pid: running ? readPid(paths.pidFile) : null })}\n`);
  } else {
    throw new Error(`unknown action "${action}" (start, stop or status)`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    log(`ERROR: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
