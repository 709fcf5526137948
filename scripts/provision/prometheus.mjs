#!/usr/bin/env node
// Prometheus and promtool for the alert-rule tests (test/unit/prometheusRules.test.ts,
// test/integration/prometheusAlerts.test.ts), idempotently: nothing to do when both run;
// otherwise Debian's package (`apt-get install -y --no-install-recommends prometheus`, which
// ships promtool and starts no service here), after `apt-get update` only when the first
// attempt fails. Needs root (or sudo -n).
//
// Usage: node scripts/provision/prometheus.mjs [--check]
//   stdout: one line, the absolute path of prometheus; stderr: progress.
//   --check only reports whether both are there (exit 0/1), installs nothing.
// Exit status: 0 when prometheus and promtool run afterwards, 1 with what to do otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const log = (msg) => process.stderr.write(`[provision prometheus] ${msg}\n`);

function fail(msg) {
  process.stderr.write(`[provision prometheus] ERROR: ${msg}\n`);
  process.exit(1);
}

/** `prometheus` and `promtool` paths and version when both answer --version, else null. */
function findPrometheus() {
  const which = (name) => {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    return found.status === 0 ? found.stdout.trim() : '';
  };
  const prometheus = which('prometheus');
  const promtool = which('promtool');
  if (!prometheus || !promtool) return null;
  const version = spawnSync(prometheus, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0 || spawnSync(promtool, ['--version'], { stdio: 'ignore' }).status !== 0) return null;
  return { path: prometheus, version: `${version.stdout}${version.stderr}`.split('\n')[0] };
}

function install() {
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get')) {
    fail('prometheus/promtool are missing and there is no apt-get here: install Prometheus 2.42+ (both binaries on PATH) from https://prometheus.io/download/');
  }
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status !== 0) {
    fail('prometheus is missing: run as root: apt-get install -y --no-install-recommends prometheus');
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => {
    const [command, argv] = root ? ['apt-get', args] : ['sudo', ['-n', 'apt-get', ...args]];
    const result = spawnSync(command, argv, { stdio: ['ignore', 2, 2], env });
    return !result.error && result.status === 0;
  };
  const packages = ['-q', 'install', '-y', '--no-install-recommends', 'prometheus'];
  log('apt-get install -y --no-install-recommends prometheus');
  if (apt(packages)) return;
  log('apt-get install failed; retrying after apt-get update');
  if (!apt(['-q', 'update'])) log('apt-get update failed');
  if (!apt(packages)) fail('apt-get install -y prometheus failed (see the output above)');
}

const check = process.argv.includes('--check');
let found = findPrometheus();
if (!found) {
  if (check) {
    log('prometheus or promtool is not installed');
    process.exit(1);
  }
  install();
  found = findPrometheus();
  if (!found) fail('the prometheus package was installed but `prometheus --version` or `promtool --version` still does not run');
  log(`installed ${found.version}`);
} else {
  log(`${found.version} already installed`);
}
process.stdout.write(`${found.path}\n`);
