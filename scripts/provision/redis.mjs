#!/usr/bin/env node
// A private Redis server for the Redis Streams queue's tests and benchmarks, started without
// systemd on a loopback port of its own with its own data directory:
//   - installs Debian's redis-server when missing (apt-get update only if the install fails
//     for lack of package lists),
//   - starts `redis-server --daemonize yes` on 127.0.0.1:PORT (a free port unless given),
//   - waits until it answers PING.
//
// Usage: node scripts/provision/redis.mjs [install|start|stop] [--port N] [--dir D] [--appendonly]
//        [--requirepass-file F]   (the password is read from file F, never from the command line)
//   install  only makes sure redis-server is installed
//   start    stdout: {"port": N, "pid": N, "dir": "...", "url": "redis://127.0.0.1:N"}
//   stop     --dir D: stops the server whose pid file is in D (SHUTDOWN NOSAVE, then SIGKILL)
//   cluster-start [--dir D] [--nodes 3] [--requirepass-file F]: a Redis Cluster of that many masters on loopback, each
//            a server as above (own port, cluster bus port and directory D/node-I) with
//            cluster-enabled, joined by `redis-cli --cluster create`, waited for until every
//            node reports cluster_state:ok. stdout: {"dir": D, "nodes": [{"port", "pid", "dir"}...],
//            "url": "redis+cluster://127.0.0.1:P1,127.0.0.1:P2,..."}
//   cluster-stop --dir D: stops every node of the cluster started in D
// The module exports the same as functions (see test/fixtures/redisServer.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';

const log = (msg) => process.stderr.write(`[provision redis] ${msg}\n`);

function hasRedis() {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

function aptInstall(packages) {
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const install = () =>
    spawnSync(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'install', '-y', '--no-install-recommends', ...packages], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  if (install()) return true;
  log('install failed; refreshing the package lists and trying again');
  spawnSync(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'update'], { stdio: ['ignore', 'ignore', 'inherit'] });
  return install();
}

export function ensureRedisInstalled() {
  if (hasRedis()) return;
  log('redis-server is missing: installing Debian package redis-server');
  if (!aptInstall(['redis-server']) || !hasRedis()) {
    throw new Error('could not install redis-server (apt-get install redis-server failed); install it and run again');
  }
}

export function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** Sends one inline command and resolves with the first reply line (or rejects). */
function command(port, line, timeoutMs = 2_000) {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      fail(new Error('no answer'));
    }, timeoutMs);
    let reply = '';
    socket.once('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        clearTimeout(timer);
        socket.destroy();
        done(reply.split('\r\n')[0]);
      }
    });
    socket.once('close', () => {
      clearTimeout(timer);
      done(reply.split('\r\n')[0] ?? '');
    });
    socket.write(`${line}\r\n`);
  });
}

export async function waitForPing(port, timeoutMs = 15_000) {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    try {
      const reply = await command(port, 'PING');
      // A server with requirepass answers NOAUTH: it is up.
      if (reply === '+PONG' || reply.startsWith('-NOAUTH')) return;
    } catch {
      // not up yet
    }
    if (Date.now() > giveUpAt) throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
    await delay(25);
  }
}

/**
 * Starts a server (or restarts one on the same port and directory, keeping its append-only
 * file): resolves once it answers PING.
 */
export async function startRedis({ port, dir, appendonly = false, requirepassFile, extraArgs = [] } = {}) {
  ensureRedisInstalled();
  const dataDir = resolve(dir ?? mkdtempSync(join(tmpdir(), 'peagen-redis-')));
  mkdirSync(dataDir, { recursive: true });
  const chosenPort = port ?? (await freePort());
  const pidFile = join(dataDir, 'redis.pid');
  // A password goes into a config file of the private data directory, never into argv (ps).
  const configFile = join(dataDir, 'redis.conf');
  writeFileSync(configFile, requirepassFile ? `requirepass "${readFileSync(requirepassFile, 'utf8').trim().replace(/["\\]/g, '\\$&')}"\n` : '', { mode: 0o600 });
  const started = spawnSync(
    'redis-server',
    [
      configFile,
      '--port', String(chosenPort),
      '--bind', '127.0.0.1',
      '--daemonize', 'yes',
      '--save', '',
      '--appendonly', appendonly ? 'yes' : 'no',
      // always: a crash (the tests' SIGKILL) loses nothing a client was told had happened.
      '--appendfsync', appendonly ? 'always' : 'everysec',
      '--pidfile', pidFile,
      '--logfile', join(dataDir, 'redis.log'),
      '--dir', dataDir,
      // Keyspace events are not needed (results are published by the queue's scripts).
      '--protected-mode', 'yes',
      // Its own title would overwrite its environment in /proc, where `npm test` finds what a
      // run started (test/runner/processes.mjs) to end it after Ctrl-C.
      '--set-proc-title', 'no',
      ...extraArgs,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (started.status !== 0) throw new Error(`redis-server did not start (exit ${started.status}); see ${join(dataDir, 'redis.log')}`);
  await waitForPing(chosenPort);
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  return { port: chosenPort, pid, dir: dataDir, url: `redis://127.0.0.1:${chosenPort}` };
}

/** Stops the server whose pid file is in `dir`: SHUTDOWN NOSAVE, then SIGKILL after 5 s. */
export async function stopRedis({ port, dir }) {
  const pidFile = join(resolve(dir), 'redis.pid');
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : undefined;
  if (port) await command(port, 'SHUTDOWN NOSAVE').catch(() => undefined);
  if (!pid) return;
  if (alive(pid)) process.kill(pid, 'SIGTERM');
  const giveUpAt = Date.now() + 5_000;
  while (alive(pid)) {
    if (Date.now() > giveUpAt) {
      process.kill(pid, 'SIGKILL');
      break;
    }
    await delay(20);
  }
  while (alive(pid)) await delay(20);
}

/** Runs redis-cli with `args` (the password, if any, in REDISCLI_AUTH: never on argv); its stdout. */
function redisCli(args, password) {
  const run = spawnSync('redis-cli', args, { encoding: 'utf8', env: { ...process.env, ...(password && { REDISCLI_AUTH: password }) } });
  if (run.status !== 0) throw new Error(`redis-cli ${args.join(' ')} failed (exit ${run.status}): ${run.stderr || run.stdout}`);
  return run.stdout;
}

/**
 * A Redis Cluster of `nodes` masters (no replicas) on loopback, in private directories under
 * `dir`: started, joined and waited for until every node says cluster_state:ok.
 */
export async function startRedisCluster({ dir, nodes = 3, requirepassFile } = {}) {
  ensureRedisInstalled();
  const clusterDir = resolve(dir ?? mkdtempSync(join(tmpdir(), 'peagen-redis-cluster-')));
  mkdirSync(clusterDir, { recursive: true });
  const started = [];
  const password = requirepassFile ? readFileSync(requirepassFile, 'utf8').trim() : undefined;
  try {
    for (let index = 0; index < nodes; index++) {
      // The bus port is set explicitly: the default (port + 10000) may be taken or past 65535.
      const busPort = await freePort();
      const node = await startRedis({
        dir: join(clusterDir, `node-${index}`),
        requirepassFile,
        extraArgs: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort), '--cluster-node-timeout', '5000'],
      });
      started.push({ port: node.port, pid: node.pid, dir: node.dir });
      writeFileSync(join(clusterDir, 'cluster.json'), `${JSON.stringify({ nodes: started })}\n`);
    }
    const addresses = started.map((node) => `127.0.0.1:${node.port}`);
    redisCli(['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], password);
    const giveUpAt = Date.now() + 30_000;
    for (const node of started) {
      while (!/^cluster_state:ok\r?$/m.test(redisCli(['-h', '127.0.0.1', '-p', String(node.port), 'cluster', 'info'], password))) {
        if (Date.now() > giveUpAt) throw new Error(`the Redis Cluster in ${clusterDir} did not reach cluster_state:ok within 30 s`);
        await delay(50);
      }
    }
    return { dir: clusterDir, nodes: started, url: `redis+cluster://${addresses.join(',')}` };
  } catch (error) {
    await stopRedisCluster({ dir: clusterDir });
    throw error;
  }
}

/** Stops every node of the cluster started in `dir` (see {@link startRedisCluster}). */
export async function stopRedisCluster({ dir }) {
  const file = join(resolve(dir), 'cluster.json');
  if (!existsSync(file)) return;
  const { nodes } = JSON.parse(readFileSync(file, 'utf8'));
  await Promise.all(nodes.map((node) => stopRedis({ port: node.port, dir: node.dir })));
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [action = 'start', ...rest] = process.argv.slice(2);
  const option = (name) => {
    const index = rest.indexOf(name);
    return index >= 0 ? rest[index + 1] : undefined;
  };
  if (action === 'install') ensureRedisInstalled();
  else if (action === 'start') {
    const server = await startRedis({
      ...(option('--port') && { port: Number(option('--port')) }),
      ...(option('--dir') && { dir: option('--dir') }),
      appendonly: rest.includes('--appendonly'),
      ...(option('--requirepass-file') && { requirepassFile: option('--requirepass-file') }),
    });
    process.stdout.write(`${JSON.stringify(server)}\n`);
  } else if (action === 'stop') {
    if (!option('--dir')) throw new Error('stop needs --dir');
    await stopRedis({ dir: option('--dir'), ...(option('--port') && { port: Number(option('--port')) }) });
  } else if (action === 'cluster-start') {
    const cluster = await startRedisCluster({
      ...(option('--dir') && { dir: option('--dir') }),
      ...(option('--nodes') && { nodes: Number(option('--nodes')) }),
      ...(option('--requirepass-file') && { requirepassFile: option('--requirepass-file') }),
    });
    process.stdout.write(`${JSON.stringify(cluster)}\n`);
  } else if (action === 'cluster-stop') {
    if (!option('--dir')) throw new Error('cluster-stop needs --dir');
    await stopRedisCluster({ dir: option('--dir') });
  } else throw new Error(`unknown action ${action}: use install, start, stop, cluster-start or cluster-stop`);
}
