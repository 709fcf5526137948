#!/usr/bin/env node
// bubblewrap for the `bwrap` executor, idempotently: nothing to do when a working `bwrap` is
// on PATH; otherwise Debian's package (`apt-get install -y bubblewrap`, after `apt-get update`
// when the package lists are missing or the first attempt fails). Needs root (or sudo -n).
//
// Usage: node scripts/provision/bwrap.mjs [--check]
//   stdout: one line, the absolute path of bwrap; stderr: progress.
//   --check only reports whether bwrap is there (exit 0/1), installs nothing.
// Exit status: 0 when bwrap runs afterwards, 1 with a message saying what to do otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const log = (msg) => process.stderr.write(`[provision bwrap] ${msg}\n`);

function fail(msg) {
  process.stderr.write(`[provision bwrap] ERROR: ${msg}\n`);
  process.exit(1);
}

/** The path of a bwrap that answers --version, or null. */
function findBwrap() {
  const found = spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' });
  const candidates = [found.status === 0 ? found.stdout.trim() : '', '/usr/bin/bwrap', '/usr/local/bin/bwrap'].filter(Boolean);
  for (const candidate of candidates) {
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (version.status === 0) return { path: candidate, version: version.stdout.trim() };
  }
  return null;
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function aptListsPresent() {
  try {
    return readdirSync('/var/lib/apt/lists').some((file) => file.endsWith('_Packages') || file.includes('_Packages.'));
  } catch {
    return false;
  }
}

function install() {
  if (process.platform !== 'linux') fail(`bubblewrap needs Linux (this is ${process.platform}): use the docker or process executor`);
  if (!existsSync('/usr/bin/apt-get')) fail('bwrap is missing and there is no apt-get here: install bubblewrap with your package manager (dnf/pacman/zypper install bubblewrap)');
  const sudo = !isRoot();
  if (sudo && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status !== 0) {
    fail('bwrap is missing: run as root: apt-get update && apt-get install -y bubblewrap');
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => {
    const [command, argv] = sudo ? ['sudo', ['-n', 'apt-get', ...args]] : ['apt-get', args];
    const result = spawnSync(command, argv, { stdio: ['ignore', 2, 2], env });
    return !result.error && result.status === 0;
  };
  if (!aptListsPresent()) {
    log('apt package lists are empty: apt-get update');
    if (!apt(['-q', 'update'])) log('apt-get update failed');
  }
  log('apt-get install -y bubblewrap');
  if (apt(['-q', 'install', '-y', '--no-install-recommends', 'bubblewrap'])) return;
  log('apt-get install failed; retrying after apt-get update');
  if (!apt(['-q', 'update'])) log('apt-get update failed');
  if (!apt(['-q', 'install', '-y', '--no-install-recommends', 'bubblewrap'])) fail('apt-get install -y bubblewrap failed (see the output above)');
}

const check = process.argv.includes('--check');
let bwrap = findBwrap();
if (!bwrap) {
  if (check) {
    log('bwrap is not installed');
    process.exit(1);
  }
  install();
  bwrap = findBwrap();
  if (!bwrap) fail('bubblewrap was installed but `bwrap --version` still does not run');
  log(`installed ${bwrap.version}`);
} else {
  log(`${bwrap.version} already installed`);
}
process.stdout.write(`${bwrap.path}\n`);
