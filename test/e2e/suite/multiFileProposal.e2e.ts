/**
 * A proposal that changes two files, in a real VS Code: it opens in the multi-file diff view,
 * Accept changes both files in one WorkspaceEdit, and one Undo reverts both (should VS Code ask
 * whether to undo across all files, the test answers as a user would, "Undo in 2 Files"). First
 * a proposal made directly, then the best of a real run of examples/lookup_table (the CLI
 * shipped in the extension, a scripted model whose answer edits both files), opened from its
 * elite as the Evolution view's Open Diff does.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';
import type { ProposalCommandResult } from '../../../extension/proposals/api';
import { click, screenshot } from './driver';
import { EXTENSION_ID, waitFor } from './helpers';
import { startOpenAiServer } from '../../fixtures/llmWireServers';

const TABLE = ['# EVOLVE-BLOCK-START', 'def build(pairs):', '    table = []', '    for key, value in pairs:', '        table.append((key, value))', '    return table', '# EVOLVE-BLOCK-END', ''].join('\n');
const LOOKUP = ['from table import build', '', '# EVOLVE-BLOCK-START', 'def lookup(table, key):', '    for k, v in table:', '        if k == key:', '            return v', '    return None', '# EVOLVE-BLOCK-END', ''].join('\n');
const NEW_TABLE = ['# EVOLVE-BLOCK-START', 'def build(pairs):', '    table = {}', '    for key, value in pairs:', '        table.setdefault(key, value)', '    return table', '# EVOLVE-BLOCK-END'].join('\n');
const NEW_LOOKUP = ['from table import build', '', '# EVOLVE-BLOCK-START', 'def lookup(table, key):', '    return table.get(key)', '# EVOLVE-BLOCK-END'].join('\n');
const TITLE = 'speedup 812.0 (gen 1, scripted)';

describe('Multi-file proposals', function () {
  let api: PeagenApi;
  let dir: string;
  let table: vscode.Uri;
  let lookup: vscode.Uri;
  let runDir: string | undefined;

  before(async function () {
    api = await vscode.extensions.getExtension<PeagenApi>(EXTENSION_ID)!.activate();
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root, 'the e2e workspace has no folder');
    dir = fs.mkdtempSync(path.join(root, 'multifile-e2e-'));
    table = vscode.Uri.file(path.join(dir, 'table.py'));
    lookup = vscode.Uri.file(path.join(dir, 'lookup.py'));
    fs.writeFileSync(table.fsPath, TABLE);
    fs.writeFileSync(lookup.fsPath, LOOKUP);
  });

  after(async function () {
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme !== 'file' || !document.uri.fsPath.startsWith(dir) || !document.isDirty) continue;
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
    if (runDir) {
      fs.rmSync(runDir, { recursive: true, force: true });
      // .peagen/runs and .peagen too, when this run made them and nothing else is in them.
      for (const parent of [path.dirname(runDir), path.dirname(path.dirname(runDir))]) {
        try {
          fs.rmdirSync(parent);
        } catch {}
      }
    }
  });

  const multiDiffTab = (): vscode.Tab | undefined =>
    vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((tab) => tab.label === `Peagen: ${TITLE} (2 files)`);

  it('opens in the multi-file diff view; Accept changes both files as one edit, and one Undo reverts both', async function () {
    this.timeout(120_000);
    const id = await api.proposals.add(
      {
        uri: lookup,
        baseText: LOOKUP,
        region: { startLine: 0, endLine: 9 },
        replacement: NEW_LOOKUP,
        otherFiles: [{ uri: table, baseText: TABLE, region: { startLine: 0, endLine: 7 }, replacement: NEW_TABLE }],
        title: TITLE,
        source: { kind: 'evolve' },
      },
      { open: true },
    );
    const tabLabels = (): string => JSON.stringify(vscode.window.tabGroups.all.flatMap((group) => group.tabs).map((tab) => [tab.label, tab.input?.constructor?.name]));
    await waitFor('the multi-file diff view', 20_000, () => multiDiffTab(), tabLabels);
    const summary = api.proposals.list().find((candidate) => candidate.id === id);
    assert.deepEqual(summary?.otherUris, [table.toString()]);
    await screenshot('multi-file-proposal');

    const result = await vscode.commands.executeCommand<ProposalCommandResult>('peagen.acceptProposal', id);
    assert.deepEqual(result, { id, outcome: 'accepted' });
    const lookupDocument = await vscode.workspace.openTextDocument(lookup);
    const tableDocument = await vscode.workspace.openTextDocument(table);
    assert.equal(lookupDocument.getText(), `${NEW_LOOKUP}\n`);
    assert.equal(tableDocument.getText(), `${NEW_TABLE}\n`);
    await waitFor('the multi-file diff view to close', 20_000, () => (multiDiffTab() ? undefined : true));
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), lookup.toString(), 'the first file is the active editor after Accept');
    await screenshot('multi-file-accepted');
    // The other file keeps its change once the diff view is gone: it has an editor of its own.
    assert.ok(vscode.window.tabGroups.all.some((group) => group.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === table.toString())), 'table.py has an editor after Accept');
    assert.equal(tableDocument.isClosed, false, 'table.py is still open after the diff view closed');
    assert.equal(tableDocument.getText(), `${NEW_TABLE}\n`, 'table.py keeps the accepted change after the diff view closed');

    await undoOnce([lookupDocument, tableDocument], [LOOKUP, TABLE]);
  });

  it("opens a real run's two-file best from its elite in the multi-file diff view, and accepts it as one edit", async function () {
    this.timeout(240_000);
    const example = path.join(dir, 'lookup_table');
    fs.cpSync(path.join(__dirname, '..', '..', '..', '..', 'examples', 'lookup_table'), example, { recursive: true });
    const seedLookup = fs.readFileSync(path.join(example, 'lookup.py'), 'utf8');
    const seedTable = fs.readFileSync(path.join(example, 'table.py'), 'utf8');
    const server = await startOpenAiServer({
      responder: (request) => (request.messages.some((message) => message.content.includes('table.append((key, value))')) ? BOTH_FILES_ANSWER : 'No further change.'),
    });
    let report: Awaited<ReturnType<typeof cliRun>>;
    try {
      report = await cliRun(example, server.baseUrl);
    } finally {
      await server.close();
    }
    runDir = report.runDir;
    assert.ok(report.best, 'the run has a best program');
    assert.deepEqual(report.best.fileChanges?.map((change) => change.path), ['lookup.py', 'table.py']);

    const id = await vscode.commands.executeCommand<string | undefined>('peagen.openEliteDiff', { runId: report.runId, programId: report.best.id });
    assert.ok(id, 'Open Diff made a proposal');
    const summary = api.proposals.list().find((candidate) => candidate.id === id)!;
    assert.equal(vscode.Uri.parse(summary.uri).fsPath, path.join(example, 'lookup.py'));
    assert.deepEqual(summary.otherUris?.map((uri) => vscode.Uri.parse(uri).fsPath), [path.join(example, 'table.py')]);
    await waitFor('the multi-file diff view of the elite', 20_000, () =>
      vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((tab) => tab.label.startsWith('Peagen: speedup') && tab.label.endsWith('(2 files)')),
    );
    await screenshot('multi-file-elite');

    const result = await vscode.commands.executeCommand<ProposalCommandResult>('peagen.acceptProposal', id);
    assert.deepEqual(result, { id, outcome: 'accepted' });
    const lookupDocument = await vscode.workspace.openTextDocument(path.join(example, 'lookup.py'));
    const tableDocument = await vscode.workspace.openTextDocument(path.join(example, 'table.py'));
    assert.match(lookupDocument.getText(), /return table\.get\(key\)/);
    assert.match(tableDocument.getText(), /table = \{\}/);
    await undoOnce([lookupDocument, tableDocument], [seedLookup, seedTable]);
  });
});

/** The answer a coding assistant writes for both files, each block after its path line. */
const BOTH_FILES_ANSWER = [
  'table.py',
  '```python',
  '<<<<<<< SEARCH',
  '    table = []',
  '    for key, value in pairs:',
  '        table.append((key, value))',
  '=======',
  '    table = {}',
  '    for key, value in pairs:',
  '        table.setdefault(key, value)',
  '>>>>>>> REPLACE',
  '```',
  'lookup.py',
  '```python',
  '<<<<<<< SEARCH',
  '    for k, v in table:',
  '        if k == key:',
  '            return v',
  '    return None',
  '=======',
  '    return table.get(key)',
  '>>>>>>> REPLACE',
  '```',
].join('\n');

/** `peagen evolve run` of the example with the scripted model, in this process's CLI (--sync): its --json report. */
function cliRun(example: string, baseUrl: string): Promise<{ runId: string; runDir: string; best: { id: string; fileChanges?: { path: string }[] } | null }> {
  const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
  const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cli, 'evolve', 'run', example, '--json', '--sync', '--quick', '--evaluations', '2'],
      { cwd: folder, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: 'e2e' }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout) as Awaited<ReturnType<typeof cliRun>>);
        } catch {
          reject(new Error(`peagen evolve run printed no JSON (${error?.message ?? 'exit 0'}): ${stdout}${stderr}`));
        }
      },
    );
  });
}

/**
 * One Undo, from the first file's editor: every document gets its text back (VS Code may ask to
 * undo in all files; the test answers as a user would). The editor is focused first, since
 * `undo` goes to the widget with keyboard focus. A failure says where each file stands: in
 * memory, on disk, and whether its document is still open.
 */
async function undoOnce(documents: vscode.TextDocument[], texts: string[]): Promise<void> {
  const accepted = documents.map((document) => document.getText());
  await vscode.window.showTextDocument(documents[0]!, { preview: false, preserveFocus: false });
  await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
  // Not awaited: while VS Code's "undo in all files?" dialog is open it does not resolve.
  const undone = vscode.commands.executeCommand('undo');
  let asked = false;
  const where = (text: string, i: number): string => (text === texts[i] ? 'restored' : text === accepted[i] ? 'as accepted' : 'other');
  const state = (): string =>
    documents
      .map((document, i) => `${path.basename(document.uri.fsPath)}: ${where(document.getText(), i)} (document ${document.isClosed ? 'closed' : 'open'}, ${document.isDirty ? 'unsaved' : 'saved'}; on disk ${where(fs.readFileSync(document.uri.fsPath, 'utf8'), i)})`)
      .join(', ') + `; the dialog was answered: ${asked}`;
  try {
    await waitFor('every file to be restored by one Undo', 30_000, async () => {
      if (documents.every((document, i) => document.getText() === texts[i])) return true;
      if (!asked) {
        try {
          await click('.monaco-dialog-box .monaco-button', 'Undo in');
          asked = true;
        } catch {
          // No dialog (yet): look again.
        }
      }
      return undefined;
    }, state);
  } catch (error) {
    await screenshot('multi-file-undo-timeout');
    throw error;
  }
  await undone;
  documents.forEach((document, i) => assert.equal(document.getText(), texts[i], `${document.uri.fsPath} after one Undo`));
}
