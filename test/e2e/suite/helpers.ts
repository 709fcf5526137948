/**
 * What several e2e files need: waiting for a condition, running the installed extension's
 * `peagen` CLI, and pointing the extension's daemon at a scripted LLM server.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';

export const EXTENSION_ID = 'peagen.peagen';

/**
 * Resolves with the first value `probe` gives that is not undefined (a throwing probe counts as
 * not yet); fails after `timeoutMs` naming what it waited for, the probe's last error and, with
 * `describe`, what it saw.
 */
export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined, describe?: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}${describe ? `; saw: ${describe()}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface CliRun {
  child: ChildProcess;
  /** The CLI's --json report once it exits. */
  done: Promise<{ runId?: string; runDir?: string; stopReason?: string; progress?: { evaluations?: number } }>;
}

/**
 * `peagen evolve run bad_sort_ops --json ...` from the installed extension's CLI, in `folder`:
 * bad_sort judged by counted instructions (test/fixtures/badSortOps.ts), for the suites about
 * how a run shows, not how fast its programs are.
 */
export function startCliRun(folder: string, args: string[]): CliRun {
  const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
  let child!: ChildProcess;
  const done: CliRun['done'] = new Promise((resolve, reject) => {
    child = execFile(
      process.execPath,
      [path.join(ext.extensionPath, 'dist', 'cli.js'), 'evolve', 'run', 'bad_sort_ops', '--json', ...args],
      { cwd: folder, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout) as Awaited<CliRun['done']>);
        } catch {
          reject(new Error(`peagen evolve run printed no JSON (${error?.message ?? 'exit 0'}): ${stdout}${stderr}`));
        }
      },
    );
  });
  return { child, done };
}

/** The pid of the daemon the extension is connected to, once it runs. */
export function daemonPid(api: PeagenApi): Promise<number> {
  return waitFor('the daemon to run', 60_000, async () => (api.state === 'running' || api.state === 'busy' ? (await api.status()).pid : undefined));
}

/**
 * Changes one LLM setting (user settings: they are machine-scoped) and waits for the daemon
 * restart it causes, since the setting reaches a daemon only in its environment. One at a
 * time: a second change during a restart would race it.
 */
export async function changeLlmSetting(api: PeagenApi, name: 'llm.baseUrl' | 'llm.model', value: string | undefined): Promise<void> {
  const before = await daemonPid(api);
  await vscode.workspace.getConfiguration('peagen').update(name, value, vscode.ConfigurationTarget.Global);
  await waitFor(`a new daemon after changing peagen.${name}`, 60_000, async () => {
    if (api.state !== 'running' && api.state !== 'busy') return undefined;
    return (await api.status()).pid !== before ? true : undefined;
  });
}

/** Points the daemon at an OpenAI-compatible server (its base URL) with model gpt-4o-mini. */
export async function useScriptedModel(api: PeagenApi, baseUrl: string): Promise<void> {
  await changeLlmSetting(api, 'llm.baseUrl', baseUrl);
  await changeLlmSetting(api, 'llm.model', 'gpt-4o-mini');
}

/** Resets what {@link useScriptedModel} set; logs, never throws (it runs in `after`). */
export async function forgetScriptedModel(api: PeagenApi): Promise<void> {
  try {
    await changeLlmSetting(api, 'llm.model', undefined);
    await changeLlmSetting(api, 'llm.baseUrl', undefined);
  } catch (error) {
    console.log(`[e2e] the LLM settings were reset, but: ${(error as Error).message}`);
  }
}

/** Opens the workspace's bad_sort/bad_sort.py with the body of bad_sort() selected; returns the document and the selected lines. */
export async function selectBadSortBody(folder: string): Promise<{ uri: vscode.Uri; document: vscode.TextDocument; body: { startLine: number; endLine: number } }> {
  const uri = vscode.Uri.file(path.join(folder, 'bad_sort', 'bad_sort.py'));
  const editor = await vscode.window.showTextDocument(uri);
  const lines = editor.document.getText().split('\n');
  const def = lines.findIndex((line) => line.startsWith('def bad_sort('));
  const end = lines.findIndex((line, index) => index > def && line.startsWith('    return work'));
  editor.selection = new vscode.Selection(def + 1, 0, end + 1, 0);
  return { uri, document: editor.document, body: { startLine: def + 1, endLine: end + 1 } };
}
