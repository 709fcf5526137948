/**
 * End-to-end tests that run INSIDE a real VS Code extension host (loaded by ./index.ts), against
 * the extension as users get it: activated by a workspace holding `peagen.json`, talking to a
 * real daemon process through the API the extension exports.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DaemonState, PeagenApi } from '../../../extension/api';
import { waitFor } from './helpers';

const EXTENSION_ID = 'peagen.peagen';

/** Runs the `peagen` CLI shipped inside the installed extension, with --json. */
function peagenCli(args: string[]): Promise<Record<string, unknown>> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, 'the extension is not installed');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(ext.extensionPath, 'dist', 'cli.js'), '--json', ...args], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } }, (error, stdout, stderr) => {
      try {
        resolve(JSON.parse(stdout) as Record<string, unknown>);
      } catch {
        reject(new Error(`peagen ${args.join(' ')} printed no JSON (${error?.message ?? 'exit 0'}): ${stdout}${stderr}`));
      }
    });
  });
}


/**
 * Ask the driver (test/e2e/runE2E.mjs) for a screenshot of the workbench while the extension is
 * still up (the extension host exits as soon as the suite ends), and wait until it is taken.
 * Best effort: never fails the run.
 */
async function requestScreenshot(api: PeagenApi | undefined): Promise<void> {
  const ack = process.env.PEAGEN_E2E_SCREENSHOT_ACK;
  if (!ack) return;
  try {
    // Show what a person would look at: the status notification, next to the status bar item.
    if (api && (api.state === 'running' || api.state === 'busy')) void vscode.commands.executeCommand('peagen.showStatus');
    await new Promise((resolve) => setTimeout(resolve, 500));
    console.log('E2E-SCREENSHOT');
    await waitFor('the screenshot', 10_000, () => (fs.existsSync(ack) ? true : undefined));
  } catch (error) {
    console.log(`[e2e] no screenshot: ${(error as Error).message}`);
  }
}

describe('Peagen in VS Code', function () {
  let api: PeagenApi | undefined;

  after(async function () {
    this.timeout(20_000);
    await requestScreenshot(api);
  });

  function theApi(): PeagenApi {
    assert.ok(api, 'the extension did not activate, or its activate() returned no API');
    return api;
  }

  async function runningState(timeoutMs: number): Promise<DaemonState> {
    const peagen = theApi();
    return waitFor(`the daemon to be running (state is '${peagen.state}')`, timeoutMs, () =>
      peagen.state === 'running' || peagen.state === 'busy' ? peagen.state : undefined,
    );
  }

  it('is installed and activates in a workspace with peagen.json', async function () {
    const ext = vscode.extensions.getExtension<PeagenApi>(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not installed; installed: ${vscode.extensions.all.map((e) => e.id).join(', ')}`);
    const expectedRoot = process.env.PEAGEN_E2E_EXPECT_EXTENSION_ROOT;
    if (expectedRoot) {
      assert.ok(
        ext.extensionPath.startsWith(expectedRoot),
        `expected the extension under test at ${expectedRoot}, but VS Code loaded it from ${ext.extensionPath}`,
      );
    }
    console.log(`[e2e] testing ${EXTENSION_ID} ${String(ext.packageJSON.version)} from ${ext.extensionPath}`);
    // The workspace holds peagen.json, so workspaceContains activation should have fired already.
    await waitFor('activation by workspaceContains:peagen.json', 30_000, () => (ext.isActive ? true : undefined)).catch(
      () => undefined,
    );
    const activatedByWorkspace = ext.isActive;
    api = await ext.activate();
    assert.ok(ext.isActive, 'extension is not active after activate()');
    assert.ok(api, 'activate() returned no API');
    assert.ok(activatedByWorkspace, 'the extension did not activate on its own for a workspace containing peagen.json');
  });

  it('starts the daemon with the in-memory queue and at least one worker', async function () {
    await runningState(30_000);
    const status = await theApi().status();
    assert.equal(status.queue.backend, 'memory', `queue backend: ${JSON.stringify(status.queue)}`);
    assert.ok(status.workers.count >= 1, `workers: ${JSON.stringify(status.workers)}`);
    assert.ok(Number.isInteger(status.pid) && status.pid > 0, `pid: ${status.pid}`);
  });

  it('shows the running daemon in the status bar', async function () {
    await runningState(30_000);
    const text = theApi().statusBarText();
    assert.match(text, /Peagen/, `status bar text: ${JSON.stringify(text)}`);
    assert.doesNotMatch(text, /error|stopped|starting/i, `status bar text: ${JSON.stringify(text)}`);
  });

  it('registers its commands, and Restart Daemon brings up a new daemon', async function () {
    const commands = await vscode.commands.getCommands(true);
    for (const command of ['peagen.showStatus', 'peagen.restartDaemon', 'peagen.showLog']) {
      assert.ok(commands.includes(command), `command ${command} is not registered`);
    }
    await runningState(30_000);
    const before = (await theApi().status()).pid;
    await vscode.commands.executeCommand('peagen.restartDaemon');
    const after = await waitFor('a new daemon after peagen.restartDaemon', 30_000, async () => {
      const peagen = theApi();
      if (peagen.state !== 'running' && peagen.state !== 'busy') return undefined;
      const pid = (await peagen.status()).pid;
      return pid !== before ? pid : undefined;
    });
    assert.notEqual(after, before);
    assert.match(theApi().statusBarText(), /Peagen/);
    assert.doesNotMatch(theApi().statusBarText(), /error|stopped/i);
  });

  it('when the daemon dies, says so in the status bar and restarts it by itself', async function () {
    await runningState(30_000);
    const before = (await theApi().status()).pid;
    const seen = new Set<string>();
    const watcher = setInterval(() => seen.add(theApi().statusBarText()), 5);
    try {
      process.kill(before, 'SIGKILL');
      const after = await waitFor('the extension to restart the killed daemon', 30_000, async () => {
        const peagen = theApi();
        if (peagen.state !== 'running' && peagen.state !== 'busy') return undefined;
        const pid = (await peagen.status()).pid;
        return pid !== before ? pid : undefined;
      });
      assert.notEqual(after, before);
    } finally {
      clearInterval(watcher);
    }
    assert.ok(
      [...seen].some((text) => /error/i.test(text)),
      `the status bar never showed the failure; it showed: ${[...seen].join(' | ')}`,
    );
    assert.doesNotMatch(theApi().statusBarText(), /error|stopped/i);
  });

  it('starts a daemon that the peagen CLI can reach too', async function () {
    await runningState(30_000);
    const status = await peagenCli(['daemon', 'status']);
    assert.equal(status.pid, (await theApi().status()).pid, `CLI saw: ${JSON.stringify(status)}`);
  });

  it('uses the daemon already running for this user instead of starting its own', async function () {
    this.timeout(60_000);
    await runningState(30_000);
    await theApi().stopDaemon();
    const started = await peagenCli(['daemon', 'start']);
    try {
      assert.equal(started.started, true, `daemon start: ${JSON.stringify(started)}`);
      await vscode.commands.executeCommand('peagen.restartDaemon');
      await runningState(30_000);
      assert.equal((await theApi().status()).pid, started.pid);
      assert.equal(theApi().daemonAddress, started.address);
    } finally {
      await theApi().stopDaemon();
      await peagenCli(['daemon', 'stop']);
      await vscode.commands.executeCommand('peagen.restartDaemon');
    }
    await runningState(30_000);
    assert.equal(theApi().daemonAddress, 'spawned by this window');
  });

  it('runs a task submitted through the daemon and returns its result', async function () {
    await runningState(30_000);
    const result = await theApi().submitAndWait({ kind: 'echo', payload: { message: 'hi' } }, 10_000);
    assert.ok(result, 'no result within 10 s');
    assert.equal(result.status, 'ok', `result: ${JSON.stringify(result)}`);
    assert.equal((result.data as { message?: unknown } | undefined)?.message, 'hi', `result: ${JSON.stringify(result)}`);
  });
});
