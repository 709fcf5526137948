/**
 * Mutate Selection in a real VS Code: the body of bad_sort() mutated once by a scripted model
 * (an OpenAI-compatible server in this extension host, named in the window's LLM settings),
 * scored by bad_sort's evaluator and offered as a proposal; a mutation that breaks the program
 * is offered with its evaluator's error in the Problems view until it is rejected.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';
import { badSortResponder } from '../../fixtures/badSortMoves';
import { type Responder, startOpenAiServer, type WireServer } from '../../fixtures/llmWireServers';
import { screenshot } from './driver';
import { forgetScriptedModel, selectBadSortBody, useScriptedModel, waitFor } from './helpers';


/** A model that always answers with this one SEARCH/REPLACE edit. */
const fixedAnswer =
  (description: string, search: string, replace: string): Responder =>
  () =>
    `${description}.\n\n\`\`\`python\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n\`\`\`\n`;

/** The lines before (and including) the EVOLVE-BLOCK-START marker and from the END marker on. */
function outsideBlock(text: string): { before: string[]; after: string[]; inside: string[] } {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.includes('EVOLVE-BLOCK-START'));
  const end = lines.findIndex((line) => line.includes('EVOLVE-BLOCK-END'));
  assert.ok(start >= 0 && end > start, 'the text keeps its EVOLVE-BLOCK markers');
  return { before: lines.slice(0, start + 1), after: lines.slice(end), inside: lines.slice(start + 1, end) };
}

describe('Mutate Selection', function () {
  this.timeout(150_000);
  let api: PeagenApi;
  let server: WireServer;
  let folder: string;
  let answer: Responder = badSortResponder();
  /** What existed under the workspace's .peagen/ before: everything else this file made. */
  let peagenBefore: Set<string> | undefined;
  const peagenDir = () => path.join(folder, '.peagen');


  before(async function () {
    this.timeout(90_000);
    const extension = vscode.extensions.getExtension<PeagenApi>('peagen.peagen');
    assert.ok(extension, 'the extension is not installed');
    api = await extension.activate();
    folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    peagenBefore = fs.existsSync(peagenDir()) ? new Set(listTree(peagenDir())) : undefined;
    server = await startOpenAiServer({ responder: (request) => answer(request), latencyMs: 20 });
    await useScriptedModel(api, server.baseUrl);
    assert.equal((await api.status()).workers.caps.includes('llm'), true, 'the daemon offers an LLM once its settings name one');
  });

  after(async function () {
    this.timeout(90_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await forgetScriptedModel(api);
    await server?.close();
    if (!peagenBefore) fs.rmSync(peagenDir(), { recursive: true, force: true });
    else for (const entry of listTree(peagenDir()).reverse()) if (!peagenBefore.has(entry)) fs.rmSync(entry, { recursive: true, force: true });
  });

  const exampleConfig = () => path.join(folder, 'bad_sort', 'peagen.example.json');
  const peagenDiagnostics = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((diagnostic) => diagnostic.source === 'Peagen');

  it('mutates the selected body once: a scored proposal that changes only the EVOLVE-BLOCK; the file is untouched until Accept', async () => {
    answer = badSortResponder({ seed: 3, improveProbability: 1, harmfulProbability: 0, noise: { noMatch: 0, prose: 0, twoBlocks: 0, oddFence: 0, crlf: 0 } });
    const { uri, document } = await selectBadSortBody(folder);
    const onDisk = fs.readFileSync(uri.fsPath, 'utf8');
    const requestsBefore = server.requests.length;
    const result = await api.evolve.mutateSelection({ exampleConfig: exampleConfig(), mutator: 'llm-patch', seed: 1 });
    assert.ok(server.requests.length > requestsBefore, 'the scripted model was asked');
    assert.equal(result.evaluationError, undefined, `the improving edit passes its evaluation: ${result.evaluationError}`);
    assert.equal(typeof result.objective, 'number', 'the evaluator scored the mutation');

    const proposal = api.proposals.list().find((candidate) => candidate.id === result.proposalId);
    assert.ok(proposal?.proposalUri, `the mutation is a proposal: ${JSON.stringify(api.proposals.list())}`);
    assert.equal(proposal.uri, uri.toString());
    assert.equal(proposal.state, 'open');
    assert.deepEqual(proposal.source, { kind: 'mutate', objective: result.objective });
    assert.match(proposal.title, /^mutation \(llm-patch\): speedup \d+\.\d\d$/);
    await screenshot('mutate-selection-proposal');

    const proposed = outsideBlock((await vscode.workspace.openTextDocument(vscode.Uri.parse(proposal.proposalUri))).getText());
    const current = outsideBlock(onDisk);
    assert.deepEqual(proposed.before, current.before, 'nothing above the EVOLVE-BLOCK changes');
    assert.deepEqual(proposed.after, current.after, 'nothing below the EVOLVE-BLOCK changes');
    assert.notDeepEqual(proposed.inside, current.inside, 'the EVOLVE-BLOCK changes');
    assert.equal(document.isDirty, false, 'the file is not edited before Accept');
    assert.equal(document.getText(), onDisk);

    const rejected = await vscode.commands.executeCommand<{ outcome: string }>('peagen.rejectProposal', result.proposalId);
    assert.equal(rejected.outcome, 'rejected');
    assert.equal(api.proposals.list().find((candidate) => candidate.id === result.proposalId)?.state, 'rejected');
    assert.equal(fs.readFileSync(uri.fsPath, 'utf8'), onDisk, 'Reject leaves the file as it was');
    assert.equal(document.isDirty, false);
  });

  it("a mutation that breaks the program: offered with the evaluator's error in Problems, which Reject clears", async () => {
    answer = fixedAnswer('Return the result in the other order', '    return work\n', '    return work[::-1]\n');
    const { uri, document } = await selectBadSortBody(folder);
    const onDisk = fs.readFileSync(uri.fsPath, 'utf8');
    const result = await api.evolve.mutateSelection({ exampleConfig: exampleConfig(), mutator: 'llm-patch', seed: 2 });
    assert.ok(result.evaluationError, `the wrong program fails its evaluation (objective ${result.objective})`);
    const proposal = api.proposals.list().find((candidate) => candidate.id === result.proposalId);
    assert.equal(proposal?.evaluationError, result.evaluationError);
    assert.match(proposal.title, /failed its evaluation/);
    const proposed = (await vscode.workspace.openTextDocument(vscode.Uri.parse(proposal.proposalUri!))).getText();
    assert.match(proposed, /return work\[::-1\]/, 'the proposal is the model’s edit');

    const shown = await waitFor('the evaluation error in Problems', 30_000, () => {
      const found = peagenDiagnostics(uri);
      return found.length > 0 ? found : undefined;
    });
    assert.equal(shown.length, 1);
    assert.ok(shown[0]!.message.includes(result.evaluationError), `the diagnostic carries the evaluator's text: ${shown[0]!.message}`);
    assert.equal(shown[0]!.severity, vscode.DiagnosticSeverity.Warning);
    await screenshot('mutate-selection-failed-evaluation');

    const rejected = await vscode.commands.executeCommand<{ outcome: string }>('peagen.rejectProposal', result.proposalId);
    assert.equal(rejected.outcome, 'rejected');
    await waitFor('the diagnostic to go', 30_000, () => (peagenDiagnostics(uri).length === 0 ? true : undefined));
    assert.equal(fs.readFileSync(uri.fsPath, 'utf8'), onDisk);
    assert.equal(document.isDirty, false);
  });
});

/** Every path under `dir` (directories before their contents); none when it does not exist. */
function listTree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? [full, ...listTree(full)] : [full];
  });
}
