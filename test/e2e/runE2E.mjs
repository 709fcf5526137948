#!/usr/bin/env node
// End-to-end tests of the Peagen extension inside a REAL VS Code: code-server 4.100.3 (VS Code
// 1.100's server + web workbench, a real Node extension host) driven by playwright-core and
// Debian's Chromium. No downloads beyond the npm registry and apt (see scripts/provision/).
//
//   node test/e2e/runE2E.mjs [--dev] [--skip-build] [--keep] [--headed]
//
// What it does:
//   1. provisions code-server + chromium (cached outside the repo; second run < 1 s);
//   2. `node scripts/build.mjs --production`, then `vsce package --no-dependencies` into a temp
//      .vsix and `code-server --install-extension` into a temp extensions dir; the suite then
//      runs against that INSTALLED extension (it asserts where peagen.peagen was loaded from).
//      If packaging fails the run fails (no fallback; --dev tests the development folder);
//   3. starts code-server on a free loopback port with a temp HOME, user-data and extensions dir,
//      a temp workspace holding `peagen.json` (`{}`), and waits for /healthz;
//   4. opens the workbench in headless Chromium with the test `payload` (VS Code's own browser
//      integration-test mechanism) so the extension host runs out/test/e2e/suite/index.js;
//   5. streams the suite's log lines, waits for its exit code (4 min budget), screenshots the
//      workbench into test-artifacts/e2e-workbench.png, kills everything it started and removes
//      its temp dirs. Last line on stdout: `N passed, M failed`. Exit code: the suite's (0/1).
//
// Options / environment:
//   --dev                 test the development folder instead of the packaged .vsix
//   --skip-build          do not rebuild (uses the existing dist/ and out/)
//   --keep                keep the temp dir (printed) for inspection
//   --headed              show the browser (needs a display)
//   PEAGEN_E2E_VSIX=f     test this prebuilt .vsix instead of packaging one
//   PEAGEN_E2E_TIMEOUT_MS suite time budget (default 600000)
//   PEAGEN_E2E_ALLOW_ORPHANS=1  only warn when the daemon outlives the extension host
//
// Besides the mocha suite, the driver checks one thing from outside: once the extension host has
// exited (VS Code ends it after the suite), no dist/daemon.js it spawned may still run 10 s later.
// That counts as one more failure ("after exit: the daemon stops with its extension host").
//
// Channel with the suite (test/e2e/suite/*.ts), through code-server's environment:
//   PEAGEN_E2E_RESULTS               file the suite writes {passed, failed, pending, failures} to
//   PEAGEN_E2E_EXPECT_EXTENSION_ROOT where peagen.peagen must be loaded from (vsix vs dev folder)
//   PEAGEN_E2E_SCREENSHOT_ACK        the suite logs `E2E-SCREENSHOT`, the driver shoots, then
//                                    creates this file (the extension host dies right after the suite)
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ARTIFACTS = join(REPO, 'test-artifacts');
const SUITE_INDEX = join(REPO, 'out', 'test', 'e2e', 'suite', 'index.js');
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/lib/chromium/chromium'];
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const SUITE_TIMEOUT_MS = Number(process.env.PEAGEN_E2E_TIMEOUT_MS || 600_000);
const HEALTHZ_TIMEOUT_MS = 60_000;

const args = new Set(process.argv.slice(2));
const options = {
  dev: args.has('--dev'),
  skipBuild: args.has('--skip-build'),
  keep: args.has('--keep'),
  headed: args.has('--headed'),
};
for (const arg of args) {
  if (!['--dev', '--skip-build', '--keep', '--headed'].includes(arg)) {
    console.error(`unknown option ${arg}; see the header of ${fileURLToPath(import.meta.url)}`);
    process.exit(2);
  }
}

// Every process started from here on (code-server, its extension host, the daemon, Chromium)
// inherits this marker, so cleanup can find stragglers that left our process group.
const RUN_ID = randomUUID();
process.env.PEAGEN_E2E_RUN_ID = RUN_ID;

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const log = (msg) => console.log(`[e2e ${elapsed()}] ${msg}`);
const loud = (msg) => {
  const bar = '!'.repeat(78);
  console.log(`${bar}\n[e2e] WARNING: ${msg}\n${bar}`);
};

class HarnessError extends Error {}

const cleanups = [];
let tmpRoot;

function run(cmd, argv, opts = {}) {
  const res = spawnSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });
  return { ok: res.status === 0 && !res.error, status: res.status, stdout: res.stdout ?? '', stderr: res.stderr ?? '', error: res.error };
}

function tail(text, lines = 30) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

// ---------------------------------------------------------------------------------------------
// 1. Prerequisites

function provision() {
  log('provisioning code-server and chromium (scripts/provision/code-server.mjs)');
  const res = spawnSync(process.execPath, [join(REPO, 'scripts', 'provision', 'code-server.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const bin = (res.stdout ?? '').trim().split('\n').pop();
  if (res.status !== 0 || !bin || !existsSync(bin)) throw new HarnessError(`provisioning failed (exit ${res.status}); see the output above`);
  const chromium = CHROMIUM_CANDIDATES.find((p) => existsSync(p));
  if (!chromium) throw new HarnessError('chromium not found: apt-get install -y chromium');
  return { codeServer: bin, chromium };
}

async function loadPlaywright() {
  try {
    return await import('playwright-core');
  } catch {
    throw new HarnessError('playwright-core is not installed: npm install (it is a devDependency; never `npx playwright install`)');
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Build, package, install

function build() {
  if (options.skipBuild) {
    log('--skip-build: using the existing dist/ and out/');
  } else {
    log('building: node scripts/build.mjs --production');
    const res = run(process.execPath, ['scripts/build.mjs', '--production'], { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'] });
    if (!res.ok) throw new HarnessError(`node scripts/build.mjs --production failed (exit ${res.status})`);
  }
  for (const file of [join(REPO, 'dist', 'extension.js'), SUITE_INDEX]) {
    if (!existsSync(file)) throw new HarnessError(`${file} is missing after the build`);
  }
  if (!readdirSync(dirname(SUITE_INDEX)).some((f) => f.endsWith('.e2e.js'))) {
    throw new HarnessError(`no compiled *.e2e.js next to ${SUITE_INDEX}`);
  }
}

function packageVsix(dir) {
  if (process.env.PEAGEN_E2E_VSIX) {
    const vsix = resolve(process.env.PEAGEN_E2E_VSIX);
    if (!existsSync(vsix)) throw new HarnessError(`PEAGEN_E2E_VSIX=${vsix} does not exist`);
    log(`using the prebuilt ${vsix} (PEAGEN_E2E_VSIX)`);
    return vsix;
  }
  const out = join(dir, 'peagen.vsix');
  const local = join(REPO, 'node_modules', '.bin', 'vsce');
  const [cmd, pre] = existsSync(local) ? [local, []] : ['npx', ['--yes', '@vscode/vsce']];
  // The same flags as `npm run package` (package.json): vsce refuses README's relative links
  // unless it knows where they point.
  const argv = [
    ...pre,
    'package',
    '--no-dependencies',
    '--baseContentUrl',
    'https://example.invalid/peagen/blob/HEAD',
    '--baseImagesUrl',
    'https://example.invalid/peagen/raw/HEAD',
    '--out',
    out,
  ];
  log(`packaging: vsce ${argv.slice(pre.length).join(' ')}`);
  const res = run(cmd, argv, { cwd: REPO, timeout: 180_000, env: { ...process.env, npm_config_yes: 'true' } });
  if (!res.ok || !existsSync(out)) {
    // No silent fallback to the development folder: a suite that passes there says nothing
    // about the .vsix users install.
    throw new HarnessError(
      `vsce package failed (exit ${res.status}${res.error ? `, ${res.error.message}` : ''}), so the packaged extension cannot be tested.\n` +
        `Reproduce with \`npm run package\`; to test the development folder instead, pass --dev explicitly.\n${tail(res.stdout + res.stderr)}`,
    );
  }
  const listed = res.stdout.match(/Packaged: .*\((\d+) files?, ([^)]+)\)/);
  log(`packaged ${out}${listed ? ` (${listed[1]} files, ${listed[2]})` : ''}`);
  return out;
}

function codeServerEnv(dirs, extra = {}) {
  const env = { ...process.env, ...extra };
  for (const key of Object.keys(env)) if (/^(VSCODE_|ELECTRON_RUN_AS_NODE)/.test(key)) delete env[key];
  return {
    ...env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: join(dirs.home, '.config'),
    XDG_DATA_HOME: join(dirs.home, '.local', 'share'),
    XDG_CACHE_HOME: join(dirs.home, '.cache'),
    PEAGEN_HOME: join(dirs.home, '.peagen'),
    // VS Code's IPC and git sockets (and the daemon's temp files) go here, deleted with the run.
    TMPDIR: dirs.tmp,
    EXTENSIONS_GALLERY: '{}',
  };
}

function installVsix(codeServer, vsix, dirs) {
  const common = ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  log(`installing ${vsix} with code-server --install-extension`);
  const res = run(codeServer, ['--install-extension', vsix, ...common], { env: codeServerEnv(dirs), timeout: 120_000 });
  if (!res.ok) throw new HarnessError(`code-server --install-extension ${vsix} failed (exit ${res.status}):\n${tail(res.stdout + res.stderr)}`);
  const list = run(codeServer, ['--list-extensions', '--show-versions', ...common], { env: codeServerEnv(dirs), timeout: 60_000 });
  const line = list.stdout.split('\n').find((l) => l.toLowerCase().startsWith('peagen.peagen@'));
  if (!line) throw new HarnessError(`peagen.peagen is not listed after installing the .vsix:\n${tail(list.stdout + list.stderr)}`);
  log(`installed: ${line.trim()}`);
}

// ---------------------------------------------------------------------------------------------
// 3. code-server

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

async function startCodeServer(codeServer, dirs, port, extraEnv) {
  const logFile = join(dirs.root, 'code-server.log');
  const out = createWriteStream(logFile);
  const argv = [
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--user-data-dir', dirs.userData,
    '--extensions-dir', dirs.extensions,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--log', 'info',
    dirs.workspace,
  ];
  log(`starting code-server on 127.0.0.1:${port}`);
  // detached: its own process group, so the extension host and the daemon die with it.
  const child = spawn(codeServer, argv, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: codeServerEnv(dirs, extraEnv) });
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  const exited = new Promise((resolveExit) => child.once('exit', (code, signal) => resolveExit({ code, signal })));
  cleanups.push(async () => {
    await killGroup(child, exited, 'code-server');
    out.end();
    // Keep its log with the other artifacts; it explains most failures.
    try {
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(join(ARTIFACTS, 'e2e-code-server.log'), readFileSync(logFile));
    } catch {}
  });

  const deadline = Date.now() + HEALTHZ_TIMEOUT_MS;
  let exit;
  void exited.then((e) => (exit = e));
  for (;;) {
    if (exit) throw new HarnessError(`code-server exited early (${JSON.stringify(exit)}):\n${tail(readFileSync(logFile, 'utf8'))}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) break;
    } catch {}
    if (Date.now() > deadline) throw new HarnessError(`code-server did not answer /healthz within ${HEALTHZ_TIMEOUT_MS / 1000} s:\n${tail(readFileSync(logFile, 'utf8'))}`);
    await sleep(250);
  }
  log('code-server is up (/healthz)');
  return { child, exited, logFile };
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function killGroup(child, exited, name) {
  const pgid = child.pid;
  if (!pgid) return;
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {}
  const deadline = Date.now() + 5_000;
  while (groupAlive(pgid) && Date.now() < deadline) await sleep(100);
  if (groupAlive(pgid)) {
    log(`${name} did not stop within 5 s of SIGTERM; SIGKILL: ${describe(groupMembers(pgid))}`);
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
  }
  await Promise.race([exited, sleep(2_000)]);
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim().slice(0, 120);
  } catch {
    return '?';
  }
}

function describe(pids) {
  return pids.map((pid) => `${pid} (${cmdline(pid)})`).join(', ');
}

function groupMembers(pgid) {
  const members = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (procStat(entry).pgrp === pgid) members.push(Number(entry));
    } catch {}
  }
  return members;
}

function procStat(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], ppid: Number(fields[1]), pgrp: Number(fields[2]), ticks: Number(fields[11]) + Number(fields[12]) };
}

function markedProcesses() {
  const needle = Buffer.from(`PEAGEN_E2E_RUN_ID=${RUN_ID}\0`);
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`).includes(needle)) found.push(Number(entry));
    } catch {}
  }
  return found;
}

// Daemon processes (dist/daemon.js) whose extension host is gone, still there after `waitMs`.
async function orphanedDaemons(waitMs) {
  const deadline = Date.now() + waitMs;
  const orphans = () =>
    markedProcesses().filter((pid) => {
      if (!/dist\/daemon\.js/.test(cmdline(pid))) return false;
      try {
        const { ppid } = procStat(pid);
        return ppid === 1 || !/extensionHost/.test(cmdline(ppid));
      } catch {
        return false;
      }
    });
  let left = orphans();
  while (left.length && Date.now() < deadline) {
    await sleep(250);
    left = orphans();
  }
  const result = [];
  for (const pid of left) {
    try {
      const before = procStat(pid).ticks;
      await sleep(500);
      const cpu = `${Math.round(((procStat(pid).ticks - before) / 100 / 0.5) * 100)}%`;
      const { state, ppid } = procStat(pid);
      result.push({ pid, state, cpu, cmd: `${cmdline(pid)} [parent ${ppid}: ${ppid === 1 ? 'init' : cmdline(ppid)}]` });
    } catch {}
  }
  return result;
}

// Processes that carry our marker but escaped the process groups (e.g. a setsid'd daemon).
function sweepStragglers() {
  const found = markedProcesses();
  if (found.length) log(`killing ${found.length} leftover process(es): ${describe(found)}`);
  for (const pid of found) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}

// ---------------------------------------------------------------------------------------------
// 4. The browser and the test run

// VS Code honours the `payload` query (extensionTestsPath...) only when the smoke-test driver is
// enabled in the page's configuration; code-server has no flag for it, so patch what the
// workbench reads from #vscode-workbench-web-configuration.
const ENABLE_SMOKE_TEST_DRIVER = `(() => {
  const original = Element.prototype.getAttribute;
  Element.prototype.getAttribute = function (name) {
    const value = original.call(this, name);
    if (name === 'data-settings' && this.id === 'vscode-workbench-web-configuration' && value) {
      try {
        const config = JSON.parse(value);
        config.developmentOptions = { ...(config.developmentOptions || {}), enableSmokeTestDriver: true };
        return JSON.stringify(config);
      } catch {}
    }
    return value;
  };
})();`;

// Forwarded console calls keep their printf-style arguments (mocha's `%s`, VS Code's `%c` CSS).
function formatLogArgs(args) {
  return Array.isArray(args) ? format(...args) : String(args);
}

async function runInBrowser(chromium, chromiumPath, dirs, port, devPath, codeServer, screenshotAck) {
  const profile = join(dirs.root, 'chromium-profile');
  log(`launching ${chromiumPath} (headless: ${!options.headed})`);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: !options.headed,
    args: CHROMIUM_FLAGS.filter((f) => options.headed ? f !== '--headless' : true),
    viewport: { width: 1400, height: 900 },
    timeout: 60_000,
  });
  cleanups.push(async () => {
    await Promise.race([context.close().catch(() => {}), sleep(10_000)]);
  });
  const page = context.pages()[0] ?? (await context.newPage());

  const logLines = [];
  let screenshotTaken = false;
  const takeRequestedScreenshot = async () => {
    // The suite asked while the extension is up: wait for its status bar item, then shoot.
    try {
      await page.locator('.statusbar').filter({ hasText: 'Peagen' }).first().waitFor({ timeout: 5_000 });
      await page.locator('.notifications-toasts .notification-toast').first().waitFor({ timeout: 3_000 });
    } catch {}
    const bar = await page.locator('.statusbar').first().innerText({ timeout: 2_000 }).catch(() => '?');
    log(`status bar: ${JSON.stringify(bar.replace(/\s+/g, ' ').trim())}`);
    screenshotTaken = await screenshot(page);
    try {
      writeFileSync(screenshotAck, 'done\n');
    } catch {}
  };
  let settle;
  const exitCode = new Promise((r) => (settle = r));
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    const line = formatLogArgs(args);
    logLines.push(line);
    if (line.trim() === 'E2E-SCREENSHOT') {
      void takeRequestedScreenshot();
      return;
    }
    if (line.startsWith('E2E-DRIVER ')) {
      void answerDriverRequest(page, line.slice('E2E-DRIVER '.length), screenshotAck);
      return;
    }
    for (const l of line.split('\n')) console.log(`[vscode${type && type !== 'log' && type !== 'info' ? ` ${type}` : ''}] ${l}`);
  });
  await page.exposeFunction('codeAutomationExit', async (code, logs) => {
    if (Array.isArray(logs) && logs.length) {
      const logDir = join(ARTIFACTS, 'e2e-vscode-logs');
      rmSync(logDir, { recursive: true, force: true });
      for (const { relativePath, contents } of logs) {
        try {
          const file = join(logDir, relativePath.replace(/^[/\\]+/, '').replaceAll('..', '_'));
          mkdirSync(dirname(file), { recursive: true });
          writeFileSync(file, contents);
        } catch {}
      }
    }
    settle({ code: Number(code) });
  });
  await page.addInitScript(ENABLE_SMOKE_TEST_DRIVER);
  page.on('pageerror', (error) => console.log(`[browser pageerror] ${error.message}`));
  page.on('crash', () => settle({ error: 'the browser page crashed' }));
  codeServer.exited.then((e) => settle({ error: `code-server exited during the run (${JSON.stringify(e)})` }));

  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(devPath)],
    ['extensionTestsPath', remote(SUITE_INDEX)],
    ['skipWelcome', 'true'],
  ];
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  log(`opening the workbench; the suite runs inside VS Code's extension host (budget ${SUITE_TIMEOUT_MS / 1000} s)`);
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });

  const timer = setTimeout(() => settle({ error: `the suite did not finish within ${SUITE_TIMEOUT_MS / 1000} s` }), SUITE_TIMEOUT_MS);
  const outcome = await exitCode;
  clearTimeout(timer);

  if (!screenshotTaken) await screenshot(page);
  return { outcome, logLines };
}

/**
 * A request from the suite for what only the browser can do (test/e2e/suite/driver.ts):
 * `{id, op: 'screenshot', name}` saves test-artifacts/e2e-NAME.png; `{id, op: 'webview',
 * selector}` answers the text of the elements matching `selector` in every webview frame
 * (webviews are iframes the extension host cannot see into); `{id, op: 'click', selector,
 * text?}` clicks the first matching element of the workbench. The answer goes to
 * `<ack>.<id>.json` as `{ok, value | error}`.
 */
async function answerDriverRequest(page, json, ack) {
  let request;
  try {
    request = JSON.parse(json);
  } catch {
    return;
  }
  const answer = (value) => {
    try {
      writeFileSync(`${ack}.${request.id}.json`, JSON.stringify(value));
    } catch {}
  };
  try {
    if (request.op === 'screenshot') {
      const name = String(request.name).replace(/[^a-z0-9-]/gi, '_');
      await sleep(300); // let the workbench paint what the suite just opened
      const ok = await screenshot(page, `e2e-${name}.png`);
      answer(ok ? { ok, value: join(ARTIFACTS, `e2e-${name}.png`) } : { ok, error: 'the screenshot failed' });
    } else if (request.op === 'webview') {
      const texts = [];
      for (const frame of page.frames()) {
        if (frame === page.mainFrame()) continue;
        try {
          texts.push(...(await frame.$$eval(String(request.selector), (elements) => elements.map((element) => element.textContent ?? ''))));
        } catch {}
      }
      answer({ ok: true, value: texts });
    } else if (request.op === 'click') {
      // What a person would click: the first visible element matching `selector` (and `text`).
      let target = page.locator(String(request.selector));
      if (request.text) target = target.filter({ hasText: String(request.text) });
      await target.first().click({ timeout: 10_000 });
      answer({ ok: true, value: true });
    } else {
      answer({ ok: false, error: `unknown driver op ${request.op}` });
    }
  } catch (error) {
    answer({ ok: false, error: error.message });
  }
}

async function screenshot(page, name = 'e2e-workbench.png') {
  try {
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = join(ARTIFACTS, name);
    await page.screenshot({ path: file, timeout: 15_000 });
    log(`screenshot: ${file}`);
    return true;
  } catch (error) {
    log(`could not take the screenshot: ${error.message}`);
    return false;
  }
}

function readSummary(resultsFile, logLines) {
  try {
    const json = JSON.parse(readFileSync(resultsFile, 'utf8'));
    if (Number.isInteger(json.passed) && Number.isInteger(json.failed)) return json;
  } catch {}
  for (const line of [...logLines].reverse()) {
    const m = line.match(/E2E-SUMMARY passed=(\d+) failed=(\d+)/);
    if (m) return { passed: Number(m[1]), failed: Number(m[2]), failures: [] };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const { codeServer, chromium: chromiumPath } = provision();
  const { chromium } = await loadPlaywright();
  build();

  tmpRoot = mkdtempSync(join(tmpdir(), 'peagen-e2e-'));
  const dirs = {
    root: tmpRoot,
    home: join(tmpRoot, 'home'),
    userData: join(tmpRoot, 'user-data'),
    extensions: join(tmpRoot, 'extensions'),
    workspace: join(tmpRoot, 'workspace'),
    runner: join(tmpRoot, 'test-runner'),
    tmp: join(tmpRoot, 'tmp'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  writeFileSync(join(dirs.workspace, 'peagen.json'), '{}\n');
  // VS Code 1.13x opens a Chat view and its agent set-up in the secondary side bar at start:
  // not Peagen's, and it takes the width a person would see the editor and diffs in.
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(
    join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify({ 'chat.disableAIFeatures': true, 'workbench.secondarySideBar.defaultVisibility': 'hidden' }, null, 2) + '\n',
  );
  // A sample project to evolve: the bundled bad_sort example (its evaluator and program).
  cpSync(join(REPO, 'examples', 'bad_sort'), join(dirs.workspace, 'bad_sort'), {
    recursive: true,
    filter: (source) => !/__pycache__/.test(source),
  });
  // The same program judged by counted instructions (test/fixtures/badSortOps.ts lays it out the
  // same way), for the suites about views of a run rather than its timing: 0.3 s an evaluation.
  const ops = join(dirs.workspace, 'bad_sort_ops');
  mkdirSync(ops);
  for (const file of ['bad_sort.py', 'reference_bad_sort.py']) cpSync(join(REPO, 'examples', 'bad_sort', file), join(ops, file));
  cpSync(join(REPO, 'examples', 'bad_sort', 'evaluate.py'), join(ops, 'timed_evaluate.py'));
  for (const file of ['evaluate.py', 'peagen.example.json']) cpSync(join(REPO, 'test', 'fixtures', 'examples', 'bad_sort_ops', file), join(ops, file));
  const resultsFile = join(tmpRoot, 'results.json');
  const screenshotAck = join(tmpRoot, 'screenshot.ack');

  let mode = 'dev';
  if (!options.dev) {
    installVsix(codeServer, packageVsix(tmpRoot), dirs);
    mode = 'vsix';
  } else {
    log('--dev: testing the development folder (the .vsix is not packaged)');
  }

  // The test runner needs a development extension. In vsix mode it is an empty placeholder, so
  // VS Code loads peagen.peagen from the installed .vsix; in dev mode it is the repo itself.
  let devPath = REPO;
  let expectRoot = REPO;
  if (mode === 'vsix') {
    writeFileSync(
      join(dirs.runner, 'package.json'),
      JSON.stringify({ name: 'peagen-e2e-runner', publisher: 'peagen-test', version: '0.0.0', engines: { vscode: '^1.104.0' } }, null, 2),
    );
    devPath = dirs.runner;
    expectRoot = dirs.extensions;
  }
  log(`mode: ${mode === 'vsix' ? 'installed .vsix' : 'DEVELOPMENT FOLDER'}`);

  const port = await freePort();
  const server = await startCodeServer(codeServer, dirs, port, {
    PEAGEN_E2E_RESULTS: resultsFile,
    PEAGEN_E2E_EXPECT_EXTENSION_ROOT: expectRoot,
    PEAGEN_E2E_SCREENSHOT_ACK: screenshotAck,
  });
  const { outcome, logLines } = await runInBrowser(chromium, chromiumPath, dirs, port, devPath, server, screenshotAck);

  let summary = readSummary(resultsFile, logLines);
  if (summary && !outcome.error) {
    // Users rely on this too: when the editor's extension host goes away, so does the daemon.
    const orphans = await orphanedDaemons(10_000);
    if (orphans.length && process.env.PEAGEN_E2E_ALLOW_ORPHANS === '1') {
      loud(`the daemon outlived the extension host (ignored: PEAGEN_E2E_ALLOW_ORPHANS=1): ${orphans.map((o) => `pid ${o.pid}`).join(', ')}`);
    } else if (orphans.length) {
      const what = orphans.map((o) => `pid ${o.pid}, state ${o.state}, ${o.cpu} CPU: ${o.cmd}`).join('\n  ');
      console.log(`[e2e] FAILED after-exit check: the daemon outlived the extension host by 10 s:\n  ${what}`);
      summary = { ...summary, failed: summary.failed + 1, failures: [...(summary.failures ?? []), { title: 'after exit: the daemon stops with its extension host', error: what }] };
      if (outcome.code === 0) outcome.code = 1;
    } else {
      log('after-exit check: no daemon outlived the extension host');
    }
  }
  if (outcome.error) {
    console.log(`[e2e] FAILED: ${outcome.error}`);
    return { code: 1, passed: summary?.passed ?? 0, failed: Math.max(1, summary?.failed ?? 0) };
  }
  if (!summary) {
    console.log(`[e2e] FAILED: the suite exited with ${outcome.code} but reported no summary (did the tests module load? see test-artifacts/e2e-code-server.log)`);
    return { code: outcome.code || 1, passed: 0, failed: 1 };
  }
  // The spec reporter above printed the stacks; repeat just the titles so they end the output.
  for (const f of summary.failures ?? []) console.log(`[e2e] failed: ${f.title}: ${String(f.error).split('\n')[0]}`);
  let code = outcome.code;
  if (code === 0 && summary.failed > 0) code = 1;
  if (code !== 0 && summary.failed === 0) {
    console.log(`[e2e] the suite exited with ${code} although no test failed (an error outside the tests; see the log above)`);
  }
  return { code, passed: summary.passed, failed: code !== 0 && summary.failed === 0 ? 1 : summary.failed };
}

async function cleanup() {
  while (cleanups.length) {
    const fn = cleanups.pop();
    try {
      await fn();
    } catch (error) {
      log(`cleanup step failed: ${error.message}`);
    }
  }
  sweepStragglers();
  if (tmpRoot) {
    if (options.keep) log(`--keep: left ${tmpRoot}`);
    else rmSync(tmpRoot, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

let finishing = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, async () => {
    if (finishing) return;
    finishing = true;
    console.log(`[e2e] ${signal}: stopping everything`);
    await cleanup();
    console.log('0 passed, 1 failed');
    process.exit(130);
  });
}

let result;
try {
  result = await main();
} catch (error) {
  console.log(`[e2e] ERROR: ${error instanceof HarnessError ? error.message : error.stack}`);
  result = { code: 1, passed: 0, failed: 1 };
} finally {
  if (!finishing) {
    finishing = true;
    await cleanup();
  }
}
log(`done (${result.code === 0 ? 'PASS' : 'FAIL'})`);
console.log(`${result.passed} passed, ${result.failed} failed`);
process.exit(result.code);
