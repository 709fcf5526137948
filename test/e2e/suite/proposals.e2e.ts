/**
 * Proposals in a real VS Code: the diff against a read-only `peagen-proposal:` document, Accept
 * as one undo step, Reject, the stale guard, CodeLens and Problems. Each test writes its own
 * file into the workspace and removes it (and closes its editors) afterwards.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';
import type { ProposalCommandResult } from '../../../extension/proposals/api';
import type { ProposalInput } from '../../../extension/proposals/proposal';
import { screenshot } from './driver';

const BASE = ['import math', '', 'def area(r):', '    return 3.14 * r * r', '', 'print(area(2))', ''].join('\n');
/** Lines 2..3 of BASE: the function. */
const REGION = { startLine: 2, endLine: 4 };
const REPLACEMENT = ['def area(r):', '    """Exact pi."""', '    return math.pi * r ** 2'].join('\n');
const EXPECTED = BASE.replace('    return 3.14 * r * r', `    """Exact pi."""\n    return math.pi * r ** 2`);

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function proposalTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter(({ input }) => input instanceof vscode.TabInputTextDiff && input.modified.scheme === 'peagen-proposal');
}

describe('Proposals', function () {
  let api: PeagenApi;
  let dir: string;
  let file: vscode.Uri;

  before(async function () {
    const ext = vscode.extensions.getExtension<PeagenApi>('peagen.peagen');
    assert.ok(ext, 'the extension is not installed');
    api = await ext.activate();
  });

  beforeEach(function () {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(root, 'the e2e workspace has no folder');
    dir = fs.mkdtempSync(path.join(root, 'proposals-e2e-'));
    file = vscode.Uri.file(path.join(dir, 'area.py'));
    fs.writeFileSync(file.fsPath, BASE);
  });

  afterEach(async function () {
    // Leave the window as it was: no dirty buffer (no save prompt), no tab of ours, no file.
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme !== 'file' || !document.uri.fsPath.startsWith(dir) || !document.isDirty) continue;
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    const ours = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter(({ input }) => {
      if (input instanceof vscode.TabInputText) return input.uri.scheme === 'file' && input.uri.fsPath.startsWith(dir);
      return input instanceof vscode.TabInputTextDiff && input.modified.scheme === 'peagen-proposal';
    });
    await vscode.window.tabGroups.close(ours);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function proposal(extra: Partial<ProposalInput> = {}): ProposalInput {
    return { uri: file, baseText: BASE, region: REGION, replacement: REPLACEMENT, title: 'exact pi (generation 3)', source: { kind: 'mutate' }, ...extra };
  }

  async function fileDocument(): Promise<vscode.TextDocument> {
    return vscode.workspace.openTextDocument(file);
  }

  function stateOf(id: string): string | undefined {
    return api.proposals.list().find((summary) => summary.id === id)?.state;
  }

  async function editFile(edit: (builder: vscode.WorkspaceEdit, document: vscode.TextDocument) => void): Promise<string> {
    const document = await fileDocument();
    const workspaceEdit = new vscode.WorkspaceEdit();
    edit(workspaceEdit, document);
    assert.ok(await vscode.workspace.applyEdit(workspaceEdit), 'the test could not edit the file');
    return document.getText();
  }

  it('shows a proposal as a diff against a read-only document, without touching the file', async function () {
    const id = await api.proposals.add(proposal(), { open: true });
    const tab = await waitFor('the proposal diff tab', () => proposalTabs().find((candidate) => candidate.isActive));
    assert.equal(tab.label, 'area.py ↔ Peagen: exact pi (generation 3)');
    const input = tab.input as vscode.TabInputTextDiff;
    assert.equal(input.original.toString(), file.toString());
    const proposed = await vscode.workspace.openTextDocument(input.modified);
    assert.equal(proposed.getText(), EXPECTED);
    const document = await fileDocument();
    assert.equal(document.getText(), BASE);
    assert.equal(document.isDirty, false);
    await waitFor('peagen.proposalActive', () => api.proposals.proposalActive() || undefined);
    assert.equal(stateOf(id), 'open');
    await screenshot('proposal-diff');
    await vscode.commands.executeCommand('peagen.rejectProposal', id);
    await waitFor('peagen.proposalActive to clear once the diff is gone', () => (api.proposals.proposalActive() ? undefined : true));
  });

  it('Accept replaces the region in one edit that one Undo takes back, and closes the diff', async function () {
    const id = await api.proposals.add(proposal(), { open: true });
    await waitFor('the proposal diff tab', () => proposalTabs().find((tab) => tab.isActive));
    // No id: the proposal of the active diff editor.
    const result = await vscode.commands.executeCommand<ProposalCommandResult>('peagen.acceptProposal');
    assert.deepEqual(result, { id, outcome: 'accepted' });
    const document = await fileDocument();
    assert.equal(document.getText(), EXPECTED);
    assert.equal(stateOf(id), 'accepted');
    await waitFor('the diff to close', () => (proposalTabs().length === 0 ? true : undefined));
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), file.toString(), 'the file is not the active editor after Accept');
    await vscode.commands.executeCommand('undo');
    assert.equal(document.getText(), BASE, 'one Undo did not restore the text the proposal was made against');
  });

  it('Reject from the region under the cursor closes the diff and leaves the file untouched', async function () {
    const id = await api.proposals.add(proposal(), { open: true });
    await waitFor('the proposal diff tab', () => proposalTabs().find((tab) => tab.isActive));
    // Beside the diff, so the file does not take the place of the diff's preview tab.
    const editor = await vscode.window.showTextDocument(file, { viewColumn: vscode.ViewColumn.Beside, selection: new vscode.Range(3, 4, 3, 4) });
    await waitFor('the file editor to be active', () => (vscode.window.activeTextEditor === editor ? true : undefined));
    assert.equal(proposalTabs().length, 1, 'the diff closed before Reject');
    const result = await vscode.commands.executeCommand<ProposalCommandResult>('peagen.rejectProposal');
    assert.deepEqual(result, { id, outcome: 'rejected' });
    await waitFor('the diff to close', () => (proposalTabs().length === 0 ? true : undefined));
    assert.equal(editor.document.getText(), BASE);
    assert.equal(editor.document.isDirty, false);
    assert.equal(stateOf(id), 'rejected');
  });

  it('Accept after an edit above the region re-applies it where the region moved', async function () {
    const id = await api.proposals.add(proposal());
    const edited = await editFile((edit) => edit.insert(file, new vscode.Position(1, 0), 'import sys\nimport os\n'));
    const result = await vscode.commands.executeCommand<ProposalCommandResult>('peagen.acceptProposal', id);
    assert.deepEqual(result, { id, outcome: 'accepted' });
    assert.equal((await fileDocument()).getText(), edited.replace('    return 3.14 * r * r', `    """Exact pi."""\n    return math.pi * r ** 2`));
  });

  it('Accept after an edit inside the region is refused with the reason, and the file is unchanged', async function () {
    const id = await api.proposals.add(proposal());
    const edited = await editFile((edit) => edit.replace(file, new vscode.Range(3, 11, 3, 15), 'math.pi'));
    const result = await vscode.commands.executeCommand<ProposalCommandResult>('peagen.acceptProposal', id);
    assert.equal(result?.outcome, 'refused');
    assert.equal(result?.message, 'the code this proposal changes was edited since it was made; evolve it again');
    assert.equal((await fileDocument()).getText(), edited);
    assert.equal(stateOf(id), 'refused');
  });

  it('shows a failed evaluation in Problems on the region, on the accepted lines after Accept, until they are edited', async function () {
    const error = 'Traceback: NameError: name "pi" is not defined';
    const id = await api.proposals.add(proposal({ evaluationError: error }));
    const peagenDiagnostics = (): vscode.Diagnostic[] => vscode.languages.getDiagnostics(file).filter((diagnostic) => diagnostic.source === 'Peagen');
    const warning = await waitFor('the proposal warning', () => peagenDiagnostics()[0]);
    assert.ok(warning.message.includes(error), warning.message);
    assert.equal(warning.severity, vscode.DiagnosticSeverity.Warning);
    assert.deepEqual([warning.range.start.line, warning.range.end.line], [2, 3]);

    await vscode.commands.executeCommand('peagen.acceptProposal', id);
    const accepted = await waitFor('the accepted error', () => peagenDiagnostics().find((diagnostic) => diagnostic.severity === vscode.DiagnosticSeverity.Error));
    assert.ok(accepted.message.includes(error), accepted.message);
    assert.deepEqual([accepted.range.start.line, accepted.range.end.line], [2, 4]);
    assert.equal(peagenDiagnostics().length, 1, 'the proposal warning stayed beside the accepted error');

    await editFile((edit) => edit.insert(file, new vscode.Position(0, 0), '# header\n'));
    const moved = await waitFor('the error to follow the lines', () => peagenDiagnostics().find((diagnostic) => diagnostic.range.start.line === 3));
    assert.equal(moved.severity, vscode.DiagnosticSeverity.Error);
    await editFile((edit) => edit.insert(file, new vscode.Position(4, 0), '    # edited\n'));
    await waitFor('the error to go once its lines are edited', () => (peagenDiagnostics().length === 0 ? true : undefined));
  });

  it('removes a failed proposal from Problems when it is rejected', async function () {
    const id = await api.proposals.add(proposal({ evaluationError: 'exit code 1' }));
    await waitFor('the proposal warning', () => vscode.languages.getDiagnostics(file).find((diagnostic) => diagnostic.source === 'Peagen'));
    await vscode.commands.executeCommand('peagen.rejectProposal', id);
    await waitFor('the warning to go', () => (vscode.languages.getDiagnostics(file).some((diagnostic) => diagnostic.source === 'Peagen') ? undefined : true));
  });

  it('provides a CodeLens over the region: the title, Open Diff, Accept and Reject', async function () {
    const id = await api.proposals.add(proposal());
    await fileDocument(); // CodeLens are asked of open documents only
    const lenses = await waitFor('the proposal CodeLens', async () => {
      const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', file);
      const ours = all.filter((lens) => lens.command?.command.startsWith('peagen.'));
      return ours.length > 0 ? ours : undefined;
    });
    assert.deepEqual(
      lenses.map((lens) => [lens.range.start.line, lens.command?.title, lens.command?.command, lens.command?.arguments]),
      [
        [2, 'Peagen: exact pi (generation 3)', 'peagen.openProposal', [id]],
        [2, 'Open Diff', 'peagen.openProposal', [id]],
        [2, 'Accept', 'peagen.acceptProposal', [id]],
        [2, 'Reject', 'peagen.rejectProposal', [id]],
      ],
    );
    await vscode.commands.executeCommand('peagen.rejectProposal', id);
  });
});
