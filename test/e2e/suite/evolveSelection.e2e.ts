/**
 * Evolve Selection in a real VS Code: the function body of bad_sort.py evolved by a scripted
 * model (an OpenAI-compatible server in this extension host, named in the window's LLM
 * settings), its best children offered as proposals; a larger run cancelled from the progress
 * notification's Cancel button stops with a checkpoint.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';
import { badSortResponder } from '../../fixtures/badSortMoves';
import { startOpenAiServer, type WireServer } from '../../fixtures/llmWireServers';
import { click, screenshot } from './driver';
import { forgetScriptedModel, selectBadSortBody, useScriptedModel, waitFor } from './helpers';


describe('Evolve Selection', function () {
  this.timeout(150_000);
  let api: PeagenApi;
  let server: WireServer;
  let folder: string;
  const created: string[] = [];

  const llmCaps = async () => (await api.status()).workers.caps.includes('llm');

  before(async function () {
    this.timeout(90_000);
    const extension = vscode.extensions.getExtension<PeagenApi>('peagen.peagen');
    assert.ok(extension, 'the extension is not installed');
    api = await extension.activate();
    folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    if (!fs.existsSync(path.join(folder, '.peagen'))) created.push(path.join(folder, '.peagen'));
    server = await startOpenAiServer({ responder: badSortResponder({ seed: 7, improveProbability: 0.95, harmfulProbability: 0 }), latencyMs: 20 });
    // Machine-scoped settings: written to the user settings (a workspace cannot hold them).
    await useScriptedModel(api, server.baseUrl);
    assert.equal(await llmCaps(), true, 'the daemon offers an LLM once its settings name one');
  });

  after(async function () {
    this.timeout(90_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await forgetScriptedModel(api);
    await server?.close();
    for (const dir of created.reverse()) fs.rmSync(dir, { recursive: true, force: true });
  });


  /** The run's job and run directories, removed after the suite. */
  function forget(runDir: string): void {
    created.push(runDir);
    const exampleDir = (JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8')) as { exampleDir: string }).exampleDir;
    created.push(exampleDir);
  }

  it('evolves the selected function body with the scripted model: a better best than the seed, offered as proposals of that block', async () => {
    const { uri } = await selectBadSortBody(folder);
    const { runId } = await api.evolve.evolveSelection({ exampleConfig: path.join(folder, 'bad_sort', 'peagen.example.json'), stop: { evaluations: 8 }, mutator: 'llm-patch', quick: true, workers: 2, confirm: true });
    const run = api.evolve.lastRun();
    assert.equal(run?.runId, runId);
    forget(run.runDir);
    await screenshot('evolve-selection-progress');
    // Watched while the run goes: no best of it is offered for Accept before its gain is measured.
    const offeredEarly: string[] = [];
    const last = await waitFor('the run to finish', 120_000, () => {
      const progress = api.evolve.lastRun()?.progress;
      if (progress && progress.state !== 'running' && progress.state !== 'stopping') return progress;
      for (const proposal of api.proposals.list()) {
        if (proposal.source.runId === runId && proposal.state === 'open' && proposal.awaiting === undefined) offeredEarly.push(`${proposal.id} "${proposal.title}"`);
      }
      return undefined;
    });
    assert.deepEqual(offeredEarly, [], 'a best is offered for Accept only once the run measured it again');
    assert.equal(last.state, 'finished', `stopped by ${last.stopReason}`);
    assert.equal(last.mutator, 'llm-patch');
    assert.ok(server.requests.length > 0, 'the scripted model was called');
    assert.ok(last.best && last.seedObjective !== null && last.best.objective > last.seedObjective, `best ${last.best?.objective} vs seed ${last.seedObjective}`);

    // The best children were offered, each mapped onto bad_sort.py's EVOLVE-BLOCK (the file's
    // block holds the selection, so the whole block is what a proposal replaces).
    const offers = await waitFor('the best children to be offered', 30_000, () => {
      const found = api.evolve.lastRun()?.offers ?? [];
      return found.some((offer) => offer.programId === last.best!.id) ? found : undefined;
    });
    const lines = (await vscode.workspace.openTextDocument(uri)).getText().split('\n');
    const block = { startLine: lines.findIndex((line) => line.includes('EVOLVE-BLOCK-START')) + 1, endLine: lines.findIndex((line) => line.includes('EVOLVE-BLOCK-END')) };
    for (const offer of offers) {
      assert.equal(offer.file, uri.fsPath);
      assert.deepEqual(offer.region, block);
      // Written by the model, or made from its children with no call (a split, revert or transplant),
      // or, offered last, the best reduced to its smallest diff from the seed (reviewTitle.ts); as the
      // run ends, each is titled with the best's measured interval (or says it was an earlier best).
      assert.match(
        offer.title,
        /^speedup \d+(\.\d)? \(gen \d+, (openai\/gpt-4o-mini|a child without one of its edits|an edit undone|an edit from another lineage)\)( · (measured again against the seed: \d+\.\d\dx \[95% CI [\d.]+-[\d.]+\]|an earlier best, not measured again))?$|^speedup \d+\.\dx with \d+ changed lines? \(measured .*\); \d+\.\dx with all \d+ · passed the evaluator's checks on /,
      );
    }
    await screenshot('evolve-selection-finished');

    // One proposal of the run is offered for Accept as it ends (the measured best, or its reduction); the others are withdrawn, saying why.
    const settled = await waitFor('the run\'s proposals to settle', 30_000, () => {
      const ofRun = api.proposals.list().filter((proposal) => proposal.source.runId === runId);
      // Settled: each offered for Accept (open, no longer awaiting) or withdrawn, saying why.
      return ofRun.length > 0 && ofRun.every((proposal) => proposal.state === 'withdrawn' || (proposal.state === 'open' && proposal.awaiting === undefined)) ? ofRun : undefined;
    });
    const acceptable = settled.filter((proposal) => proposal.state === 'open');
    assert.equal(acceptable.length, 1, `one proposal offered for Accept: ${JSON.stringify(settled.map(({ title, state, withdrawnBecause }) => ({ title, state, withdrawnBecause })))}`);
    for (const other of settled.filter((proposal) => proposal.state === 'withdrawn')) assert.match(other.withdrawnBecause ?? '', /superseded|an earlier best, not measured again/);
    const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
    assert.equal(lenses.filter((lens) => lens.command?.title === 'Accept').length, 1, 'one lens group: one Accept over the block');

    // What the user does next: open the best proposal's diff, Accept it, and Undo it once.
    const bestProposal = acceptable[0];
    assert.ok(bestProposal?.proposalUri, `the best child is a proposal: ${JSON.stringify(api.proposals.list())}`);
    const document = await vscode.workspace.openTextDocument(uri);
    const before = document.getText();
    await vscode.commands.executeCommand('peagen.openProposal', bestProposal.id);
    const proposed = (await vscode.workspace.openTextDocument(vscode.Uri.parse(bestProposal.proposalUri))).getText();
    assert.notEqual(proposed, before, 'the proposal changes the file');
    await screenshot('evolve-selection-proposal-diff');
    const outcome = await vscode.commands.executeCommand<{ outcome: string }>('peagen.acceptProposal', bestProposal.id);
    assert.equal(outcome.outcome, 'accepted');
    assert.equal(document.getText(), proposed, 'Accept puts the proposed text into the file');
    await vscode.commands.executeCommand('undo');
    assert.equal(document.getText(), before, 'one Undo restores the file');
    assert.equal(document.isDirty, false);
  });

  it('a proposal awaiting its measurement shows no Accept, and Accept refuses it, saying why', async () => {
    const { uri, document } = await selectBadSortBody(folder);
    const text = document.getText();
    const line = text.split('\n').findIndex((candidate) => candidate.includes('EVOLVE-BLOCK-START')) + 1;
    const id = await api.proposals.add(
      { uri, baseText: text, region: { startLine: line, endLine: line + 1 }, replacement: '    pass', title: 'speedup 9.9 (gen 1)', source: { kind: 'evolve', runId: 'awaiting-run' }, awaiting: 'not yet measured' },
      { open: false },
    );
    const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
    const ours = lenses.filter((lens) => lens.command?.arguments?.[0] === id).map((lens) => lens.command!.title);
    assert.deepEqual(ours, ['Peagen: speedup 9.9 (gen 1) (not yet measured)', 'Reject']);
    const outcome = await vscode.commands.executeCommand<{ outcome: string; message?: string }>('peagen.acceptProposal', id);
    assert.equal(outcome.outcome, 'none');
    assert.match(outcome.message ?? '', /has not offered "speedup 9\.9 \(gen 1\)" for Accept: not yet measured/);
    assert.equal(document.getText(), text, 'the file is untouched');
    await vscode.commands.executeCommand('peagen.rejectProposal', id);
  });

  it('Cancel on the progress notification stops the run: interrupted, with its checkpoint', async () => {
    await selectBadSortBody(folder);
    await vscode.commands.executeCommand('notifications.clearAll');
    const { runId } = await api.evolve.evolveSelection({ exampleConfig: path.join(folder, 'bad_sort', 'peagen.example.json'), stop: { evaluations: 400 }, mutator: 'llm-patch', quick: true, workers: 1, confirm: true });
    const run = api.evolve.lastRun()!;
    forget(run.runDir);
    await waitFor('the run to evaluate something', 60_000, () => ((api.evolve.lastRun()?.progress?.evaluations ?? 0) >= 1 ? true : undefined));
    await screenshot('evolve-selection-cancel');
    await waitFor('the Cancel button of the progress notification', 30_000, async () => {
      // VS Code 1.13x may keep a progress notification in the notification centre (the bell has
      // its dot) rather than as a toast: a person opens the centre and clicks Cancel there.
      await vscode.commands.executeCommand('notifications.showList');
      await click('.notifications-toasts .monaco-button, .notifications-center .monaco-button', 'Cancel');
      return true;
    });
    const last = await waitFor('the run to stop', 60_000, () => {
      const progress = api.evolve.lastRun()?.progress;
      return progress?.runId === runId && progress.state !== 'running' && progress.state !== 'stopping' ? progress : undefined;
    });
    assert.equal(last.state, 'interrupted');
    assert.ok(last.evaluations < 400);
    assert.ok(fs.existsSync(path.join(run.runDir, 'checkpoint.json')), 'the run checkpointed');
  });
});
