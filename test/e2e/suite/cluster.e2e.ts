/**
 * The shared cluster from VS Code, end to end: a real redis-server that requires a password,
 * "Peagen: Set Redis Password" and `peagen.queue.url` move the window's daemon onto it (status:
 * backend redis; status bar: cluster and the host), the password never lands in a settings
 * file, a log or Status, and a wrong password or an unreachable daemon address is an error
 * status that says what to fix. Also "Peagen: Open the Sample". Leaves settings, secrets and
 * the daemon as it found them.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';
import type { OpenSampleResult } from '../../../extension/cluster/openSample';
import type { SecretCommandResult } from '../../../extension/cluster/secretCommands';
import { type RedisServer, startRedisServer } from '../../fixtures/redisServer';
import { screenshot } from './driver';
import { waitFor } from './helpers';


/** Waits for `promise` at most `ms`; a command stuck behind a failing daemon must not hang the suite. */
function atMost<T>(promise: Thenable<T>, ms: number): Promise<T | undefined> {
  return Promise.race([Promise.resolve(promise), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))]);
}

/** Every regular file under `dir` (sockets and the like skipped), recursively. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function filesContaining(files: string[], needle: string): string[] {
  return files.filter((file) => {
    try {
      return fs.readFileSync(file).includes(needle);
    } catch {
      return false;
    }
  });
}

/** The status bar tooltip as a person reads it: Markdown escapes and &nbsp; undone. */
function tooltipText(api: PeagenApi): string {
  return api.statusBarTooltip().replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('The shared cluster from VS Code', function () {
  this.timeout(120_000);
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const wrongPassword = `wrong-${randomBytes(12).toString('hex')}`;
  let api: PeagenApi;
  let redis: RedisServer | undefined;
  const settings = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('peagen');

  async function daemonOn(backend: string, timeoutMs = 60_000): Promise<void> {
    await waitFor(`the daemon to run on the ${backend} queue (state '${api.state}')`, timeoutMs, async () => {
      if (api.state !== 'running' && api.state !== 'busy') return undefined;
      return (await api.status()).queue.backend === backend ? true : undefined;
    });
  }

  before(async function () {
    const ext = vscode.extensions.getExtension<PeagenApi>('peagen.peagen');
    assert.ok(ext, 'peagen.peagen is not installed');
    api = await ext.activate();
    await daemonOn('memory');
    redis = await startRedisServer({ password });
  });

  after(async function () {
    this.timeout(150_000);
    // Back to the embedded queue with no stored password, as the other files expect; one
    // change at a time, each waited for.
    try {
      if (settings().get<string>('daemon.address')) await settings().update('daemon.address', undefined, vscode.ConfigurationTarget.Global);
      await settings().update('queue.url', undefined, vscode.ConfigurationTarget.Global);
      await daemonOn('memory');
      await atMost(vscode.commands.executeCommand('peagen.setRedisPassword', { value: '' }), 30_000);
      assert.deepEqual(await api.cluster.secretKeysSet(), [], 'a secret is left in secret storage');
      await daemonOn('memory');
    } catch (error) {
      console.log(`[e2e] cluster cleanup: ${(error as Error).message}; status bar: ${api.statusBarText()}; tooltip: ${tooltipText(api)}`);
      await atMost(vscode.commands.executeCommand('peagen.restartDaemon'), 30_000);
      throw error;
    } finally {
      await redis?.stop();
    }
  });

  afterEach(function () {
    // The extension host's logs stay on the server side: show the Peagen log where it failed.
    if (this.currentTest?.state !== 'failed' || !api) return;
    for (const file of filesUnder(api.cluster.logDirectory)) {
      const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
      console.log(`[e2e] last lines of ${file}:\n${lines.slice(-40).join('\n')}`);
    }
  });

  it('stores the Redis password in secret storage, moves the daemon onto the Redis queue and shows the cluster and its host', async function () {
    assert.ok(redis);
    const saved = await atMost(vscode.commands.executeCommand<SecretCommandResult>('peagen.setRedisPassword', { value: password }), 60_000);
    assert.deepEqual(saved && { key: saved.key, saved: saved.saved }, { key: 'peagen.redisPassword', saved: true });
    assert.ok((await api.cluster.secretKeysSet()).includes('peagen.redisPassword'), 'the password is not in secret storage');
    await settings().update('queue.url', redis.url, vscode.ConfigurationTarget.Global);

    await daemonOn('redis');
    const status = await api.status();
    assert.equal(status.queue.url, redis.url, `queue: ${JSON.stringify(status.queue)}`);
    const host = `127.0.0.1:${redis.port}`;
    const text = await waitFor(`the status bar to show the cluster (it shows ${JSON.stringify(api.statusBarText())})`, 30_000, () => {
      const shown = api.statusBarText();
      return shown.includes(`cluster redis ${host}`) ? shown : undefined;
    });
    assert.match(text, /Peagen: (running|busy)/);
    assert.match(tooltipText(api), /queue: cluster \(shared Redis queue\), redis 127\.0\.0\.1:\d+/);
    await screenshot('status-bar-cluster');
  });

  it('keeps the password out of the settings files, the logs and Status', async function () {
    assert.ok(redis);
    await daemonOn('redis');
    assert.doesNotMatch(JSON.stringify(await api.status()), new RegExp(password));

    // Settings: every settings.json of this VS Code (user, machine, workspace). The one that
    // holds peagen.queue.url must be among them, or the search looked in the wrong place.
    const root = process.env.PEAGEN_E2E_RESULTS ? path.dirname(process.env.PEAGEN_E2E_RESULTS) : os.homedir();
    const folders = [root, ...(vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath)];
    const settingsFiles = folders.flatMap(filesUnder).filter((file) => path.basename(file) === 'settings.json');
    assert.ok(filesContaining(settingsFiles, redis.url).length > 0, `peagen.queue.url is in none of ${settingsFiles.join(', ')}`);
    assert.deepEqual(filesContaining(settingsFiles, password), [], 'the password was written to a settings file');

    // Logs: the Peagen output channel's file (it must hold what the extension logged) and
    // everything the daemon keeps under PEAGEN_HOME.
    const logs = filesUnder(api.cluster.logDirectory);
    await waitFor(`the Peagen log under ${api.cluster.logDirectory} (files: ${logs.join(', ')})`, 30_000, () =>
      filesContaining(filesUnder(api.cluster.logDirectory), 'saved in VS Code').length > 0 ? true : undefined,
    );
    const home = process.env.PEAGEN_HOME ?? path.join(os.homedir(), '.peagen');
    const everything = [...filesUnder(api.cluster.logDirectory), ...filesUnder(home)];
    assert.deepEqual(filesContaining(everything, password), [], 'the password was written to a log');
  });

  it('shows a refused password as an error that says what to fix', async function () {
    assert.ok(redis);
    await daemonOn('redis');
    // The restart it triggers fails (Redis refuses the password): do not wait on it.
    const pending = vscode.commands.executeCommand('peagen.setRedisPassword', { value: wrongPassword });
    const tooltip = await waitFor(`an error status about the password (state '${api.state}', tooltip ${JSON.stringify(tooltipText(api))})`, 60_000, () => {
      const shown = tooltipText(api);
      return api.state !== 'running' && api.state !== 'busy' && /refused the password/.test(shown) ? shown : undefined;
    });
    assert.match(tooltip, /check peagen\.queue\.url \/ run Peagen: Set Redis Password/);
    assert.match(api.cluster.problem ?? '', new RegExp(`Redis at 127\\.0\\.0\\.1:${redis.port} refused the password`));
    assert.match(api.statusBarText(), new RegExp(`cluster redis 127\\.0\\.0\\.1:${redis.port}`));
    assert.doesNotMatch(tooltip, new RegExp(wrongPassword));
    await screenshot('status-bar-cluster-error');
    await atMost(pending, 30_000);
    assert.deepEqual(filesContaining(filesUnder(api.cluster.logDirectory), wrongPassword), [], 'the wrong password was written to a log');

    // The right password fixes it.
    await atMost(vscode.commands.executeCommand('peagen.setRedisPassword', { value: password }), 60_000);
    await daemonOn('redis');
  });

  it('says to check peagen.daemon.address when the configured daemon cannot be reached', async function () {
    const address = `tcp:127.0.0.1:${await closedPort()}`;
    await settings().update('daemon.address', address, vscode.ConfigurationTarget.Global);
    const tooltip = await waitFor(`an error status about the daemon address (state '${api.state}', tooltip ${JSON.stringify(tooltipText(api))})`, 60_000, () => {
      const shown = tooltipText(api);
      return api.state === 'error' && /check peagen\.daemon\.address/.test(shown) ? shown : undefined;
    });
    assert.ok(tooltip.includes(`the daemon at ${address} is unreachable`), tooltip);
    assert.match(api.statusBarText(), new RegExp(`daemon ${address.replace(/\./g, '\\.')}`));
    await settings().update('daemon.address', undefined, vscode.ConfigurationTarget.Global);
    await waitFor(`the daemon back after clearing peagen.daemon.address (state '${api.state}')`, 60_000, () =>
      api.state === 'running' || api.state === 'busy' ? true : undefined,
    );
  });

  it('opens the bad_sort sample: copies it where asked and shows bad_sort.py', async function () {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-sample-'));
    try {
      const result = await vscode.commands.executeCommand<OpenSampleResult>('peagen.openSample', { folder: parent });
      assert.ok(result, 'peagen.openSample returned nothing');
      assert.equal(result.directory, path.join(parent, 'bad_sort'));
      assert.equal(result.copied, true);
      for (const file of ['bad_sort.py', 'evaluate.py', 'reference_bad_sort.py', 'peagen.example.json']) {
        assert.ok(fs.existsSync(path.join(result.directory, file)), `${file} was not copied`);
      }
      const editor = vscode.window.activeTextEditor;
      assert.equal(editor?.document.uri.fsPath, path.join(result.directory, 'bad_sort.py'));
      assert.match(editor.document.getText(), /EVOLVE-BLOCK-START/);
      // A second time it opens the copy and never overwrites it (it may hold accepted changes).
      fs.appendFileSync(path.join(result.directory, 'bad_sort.py'), '# mine\n');
      const again = await vscode.commands.executeCommand<OpenSampleResult>('peagen.openSample', { folder: parent });
      assert.equal(again?.copied, false);
      assert.match(fs.readFileSync(path.join(result.directory, 'bad_sort.py'), 'utf8'), /# mine\n$/);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});
