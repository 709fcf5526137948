/**
 * Evolve Selection and Mutate Selection with a daemon that cannot see the workspace's files,
 * reached by address (the design card's shared cluster): a daemon with its own home and
 * working directory, started under bubblewrap with the workspace folder covered by an empty
 * tmpfs. Everything it needs travels over the protocol; its programs come back as proposals
 * on the editor's file.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';
import type { TreeNodeSnapshot } from '../../../extension/evolutionView/api';
import { EXTENSION_ID, selectBadSortBody, waitFor } from './helpers';

describe('Evolve Selection with a daemon that does not share the workspace', function () {
  this.timeout(240_000);
  let api: PeagenApi;
  let folder: string;
  let home: string;
  let daemon: ChildProcess | undefined;
  let daemonLog = '';
  let address: string;
  const settings = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('peagen');

  async function connectedTo(pid: number | undefined, timeoutMs = 60_000): Promise<void> {
    await waitFor(`the extension connected to the daemon ${pid ?? 'it spawns'} (state '${api.state}')`, timeoutMs, async () => {
      if (api.state !== 'running' && api.state !== 'busy') return undefined;
      const status = await api.status();
      return pid === undefined ? (status.pid !== daemon?.pid ? true : undefined) : status.pid === pid ? true : undefined;
    });
  }

  before(async function () {
    this.timeout(120_000);
    const ext = vscode.extensions.getExtension<PeagenApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not installed`);
    api = await ext.activate();
    folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-remote-daemon-'));
    // The daemon's world: its own home and working directory, and the workspace folder an
    // empty tmpfs (the path exists there, the files do not), with no LLM.
    const cli = path.join(ext.extensionPath, 'dist', 'cli.js');
    const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_RUN_AS_NODE: '1', HOME: home, PEAGEN_HOME: path.join(home, '.peagen'), PEAGEN_EXECUTOR: 'process' };
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_API_KEY', 'PEAGEN_LLM_BASE_URL', 'PEAGEN_LLM_MODEL']) delete env[name];
    daemon = spawn('bwrap', ['--dev-bind', '/', '/', '--tmpfs', folder, '--die-with-parent', '--chdir', home, process.execPath, cli, 'daemon', 'start', '--foreground', '--listen', 'tcp:127.0.0.1:0', '--metrics-listen', 'off'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    daemon.stdout?.on('data', (chunk: Buffer) => (daemonLog += chunk.toString()));
    daemon.stderr?.on('data', (chunk: Buffer) => (daemonLog += chunk.toString()));
    const record = await waitFor('the remote daemon to write its address', 60_000, () => {
      if (daemon?.exitCode !== null) throw new Error(`the daemon exited: ${daemonLog}`);
      try {
        return JSON.parse(fs.readFileSync(path.join(home, '.peagen', 'daemon.json'), 'utf8')) as { address: string; pid: number };
      } catch {
        return undefined;
      }
    });
    address = record.address;
    await settings().update('daemon.tokenFile', path.join(home, '.peagen', 'daemon.token'), vscode.ConfigurationTarget.Global);
    await settings().update('daemon.address', address, vscode.ConfigurationTarget.Global);
    await connectedTo(record.pid);
  });

  after(async function () {
    this.timeout(120_000);
    try {
      await settings().update('daemon.address', undefined, vscode.ConfigurationTarget.Global);
      await settings().update('daemon.tokenFile', undefined, vscode.ConfigurationTarget.Global);
      await connectedTo(undefined);
    } finally {
      daemon?.kill('SIGKILL');
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') console.log(`[e2e] remote daemon log:\n${daemonLog.split('\n').slice(-40).join('\n')}`);
  });


  it('evolves the selection in the remote daemon, which keeps the run; its best children come back as proposals on the file', async () => {
    const { uri } = await selectBadSortBody(folder);
    const localRuns = path.join(folder, '.peagen', 'runs');
    const before = fs.existsSync(localRuns) ? fs.readdirSync(localRuns) : [];
    const { runId } = await api.evolve.evolveSelection({ exampleConfig: path.join(folder, 'bad_sort', 'peagen.example.json'), stop: { evaluations: 6 }, mutator: 'offline', quick: true, workers: 1, confirm: true });
    const run = api.evolve.lastRun();
    assert.equal(run?.runId, runId);
    assert.ok(run.runDir.startsWith(path.join(home, '.peagen', 'workspaces') + path.sep), `the remote daemon keeps the run on its side: ${run.runDir}`);
    const last = await waitFor('the run to finish', 180_000, () => {
      const progress = api.evolve.lastRun()?.progress;
      return progress && progress.state !== 'running' && progress.state !== 'stopping' ? progress : undefined;
    });
    assert.equal(last.state, 'finished', `stopped by ${last.stopReason}: ${last.error ?? ''}`);
    assert.deepEqual(fs.existsSync(localRuns) ? fs.readdirSync(localRuns) : [], before, 'nothing was written into the workspace by the daemon');

    const lines = (await vscode.workspace.openTextDocument(uri)).getText().split('\n');
    const block = { startLine: lines.findIndex((line) => line.includes('EVOLVE-BLOCK-START')) + 1, endLine: lines.findIndex((line) => line.includes('EVOLVE-BLOCK-END')) };
    if (last.best && last.best.id !== undefined && last.best.objective !== last.seedObjective) {
      const offers = await waitFor('the best child to be offered', 30_000, () => {
        const found = api.evolve.lastRun()?.offers ?? [];
        return found.some((offer) => offer.programId === last.best!.id) ? found : undefined;
      });
      for (const offer of offers) {
        assert.equal(offer.file, uri.fsPath);
        assert.deepEqual(offer.region, block);
        assert.equal(offer.error, undefined);
      }
    }
    // The Evolution view lists the remote run; its elites open as diffs of the same file.
    const flatten = (rows: TreeNodeSnapshot[]): TreeNodeSnapshot[] => rows.flatMap((row) => [row, ...flatten(row.children)]);
    const eliteRow = await waitFor('the run and its elites in the Evolution view', 30_000, async () => {
      const node = (await api.evolution.snapshot()).find((row) => row.id === `run:${runId}`);
      return flatten(node?.children ?? []).find((row) => row.id.startsWith(`elite:${runId}:`));
    });
    const proposalId = await vscode.commands.executeCommand<string | undefined>('peagen.openEliteDiff', { runId, programId: eliteRow.id.split(':').pop() });
    const proposal = api.proposals.list().find((candidate) => candidate.id === proposalId);
    assert.equal(vscode.Uri.parse(proposal?.uri ?? '').fsPath, uri.fsPath);
    assert.deepEqual(proposal?.region, block);
  });

  it('mutates the selection in the remote daemon and scores it with the example sent as content', async () => {
    await selectBadSortBody(folder);
    const result = await api.evolve.mutateSelection({ exampleConfig: path.join(folder, 'bad_sort', 'peagen.example.json'), mutator: 'offline', seed: 3, open: false });
    assert.ok(result, 'a proposal');
    assert.ok(result.objective !== null || result.evaluationError !== undefined, 'the child was evaluated');
    const proposal = api.proposals.list().find((candidate) => candidate.id === result.proposalId);
    assert.match(proposal?.title ?? '', /^mutation \(offline\)/);
  });
});
