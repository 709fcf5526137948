/**
 * A proposal that changes two files, in a real VS Code: it opens in the multi-file diff view,
 * Accept changes both files in one WorkspaceEdit, and one Undo reverts both (VS Code asks
 * whether to undo across all files; the test answers as a user would, "Undo in 2 Files").
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';
import type { ProposalCommandResult } from '../../../extension/proposals/api';
import { click, screenshot } from './driver';
import { EXTENSION_ID, waitFor } from './helpers';

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

    // One Undo: VS Code asks whether to undo the edit in every file it changed.
    const undone = vscode.commands.executeCommand('undo');
    let asked = false;
    await waitFor('both files to be restored by one Undo', 30_000, async () => {
      if (lookupDocument.getText() === LOOKUP && tableDocument.getText() === TABLE) return true;
      if (!asked) {
        try {
          await click('.monaco-dialog-box .monaco-button', 'Undo in 2 Files');
          asked = true;
        } catch {
          // No dialog (yet): look again.
        }
      }
      return undefined;
    });
    await undone;
    assert.equal(lookupDocument.getText(), LOOKUP);
    assert.equal(tableDocument.getText(), TABLE);
  });
});
