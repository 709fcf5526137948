/**
 * The Evolution view against a run started the way a user starts one: the `peagen` CLI shipped
 * in the extension, in the workspace folder, which hands the run to the daemon this window is
 * connected to. The view learns of it only from the daemon's pushed progress (nobody refreshes).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';
import type { TreeNodeSnapshot } from '../../../extension/evolutionView/api';
import { screenshot } from './driver';
import { type CliRun, EXTENSION_ID, startCliRun, waitFor } from './helpers';





function flatten(nodes: TreeNodeSnapshot[]): TreeNodeSnapshot[] {
  return nodes.flatMap((node) => [node, ...flatten(node.children)]);
}

describe('Evolution view', function () {
  let api: PeagenApi;
  let folder: string;
  let run: CliRun | undefined;
  let runDir: string | undefined;

  before(async function () {
    this.timeout(60_000);
    api = await vscode.extensions.getExtension<PeagenApi>(EXTENSION_ID)!.activate();
    folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    await waitFor('the daemon to be running', 40_000, () => (api.state === 'running' || api.state === 'busy' ? true : undefined));
  });

  after(async function () {
    this.timeout(60_000);
    if (run && run.child.exitCode === null) run.child.kill('SIGINT');
    const report = await run?.done.catch(() => undefined);
    runDir ??= report?.runDir;
    if (runDir) {
      fs.rmSync(runDir, { recursive: true, force: true });
      // .peagen/runs and .peagen too, when this run made them and nothing else is in them.
      for (const dir of [path.dirname(runDir), path.dirname(path.dirname(runDir))]) {
        try {
          fs.rmdirSync(dir);
        } catch {}
      }
    }
    await vscode.commands.executeCommand('workbench.view.explorer');
  });

  it('shows a run started by the CLI, then its niches and elites as its progress arrives, with no manual refresh', async function () {
    // An 8-evaluation run of bad_sort_ops (about 0.3 s an evaluation; bad_sort's full
    // measurements once took 149 s with the confirmation and reduction the run then had).
    this.timeout(240_000);
    // What the view shows before the run: what it would keep showing if progress did not refresh it.
    const before = new Set((await api.evolution.snapshot()).map((node) => node.id));
    // No confirmation or reduction as the run ends: about 10 more evaluations this view does
    // not show differently (they have suites of their own).
    run = startCliRun(folder, ['--evaluations', '8', '--mutator', 'offline', '--confirm-pairs', '0', '--reduce-budget', '0']);
    let seen: TreeNodeSnapshot[] = [];
    const show = (): string => JSON.stringify(seen.map((node) => [node.label, node.description, node.contextValue]));

    const runRow = await waitFor(
      'the new run in the Evolution view',
      60_000,
      async () => {
        seen = await api.evolution.snapshot();
        return seen.find((node) => node.label === 'bad_sort_ops' && !before.has(node.id));
      },
      show,
    );
    const runId = runRow.id.replace(/^run:/, '');
    const ofRun = async (): Promise<TreeNodeSnapshot | undefined> => (seen = await api.evolution.snapshot()).find((node) => node.id === runRow.id);

    // Niches and elites: the objective with a value, the generation.
    const withElites = await waitFor(
      'niches with elites under the run',
      90_000,
      async () => {
        const node = await ofRun();
        return node && node.children.some((niche) => niche.contextValue === 'peagen.niche' && niche.children.some((elite) => elite.contextValue === 'peagen.elite')) ? node : undefined;
      },
      show,
    );
    assert.equal(withElites.contextValue === 'peagen.run.running' || withElites.contextValue === 'peagen.run', true, withElites.contextValue);
    for (const niche of withElites.children) {
      // bad_sort_ops declares its speedup in x and keeps the default grid of a Python program: a
      // speedup range and its structure in words, no bin numbers.
      assert.match(
        niche.label,
        /^speedup ([<≥] [\d.]+|[\d.]+–[\d.]+)x · (no loops|loops \d\+?) · (no built-ins|1 built-in|\d–\d built-ins|\d\+ built-ins) · (not )?recursive · (no maps or sets|maps|sets|maps and sets)$/,
        `a niche label says what its bins hold: ${niche.label}`,
      );
      for (const elite of niche.children) {
        assert.match(elite.label, /speedup \d/, `an elite shows its objective: ${elite.label}`);
        assert.match(elite.description, /generation \d+/, `an elite shows its generation: ${elite.description}`);
      }
    }

    const report = await run.done;
    runDir = report.runDir;
    assert.equal(report.runId, runId, `the CLI's run: ${JSON.stringify(report).slice(0, 400)}`);
    // When it has ended: a finished run (no Stop action), its best marked.
    const finished = await waitFor(
      'the run to show as finished with its best marked',
      30_000,
      async () => {
        const node = await ofRun();
        return node?.contextValue === 'peagen.run' && /finished/.test(node.description) && flatten(node.children).some((row) => row.label.startsWith('★ speedup')) ? node : undefined;
      },
      show,
    );
    assert.match(finished.description, /8 evaluations/);

    // The artifact shows the niches with their structural labels (test-artifacts/e2e-evolution-view.png),
    // in a side bar wide enough to read them whole.
    await api.evolution.revealRun(runId, 2);
    // (In the web workbench the view-size commands act on the editor whatever has the focus:
    // increaseViewWidth narrowed the side bar; decreasing the editor widens it.)
    const resize = async (command: string): Promise<void> => {
      for (let step = 0; step < 8; step++) await vscode.commands.executeCommand(command).then(undefined, () => undefined);
    };
    await resize('workbench.action.decreaseViewWidth');
    await screenshot('evolution-view');
    // The suites after this one get the layout they had.
    await resize('workbench.action.increaseViewWidth');

    // The best elite's inline actions: its diff against the workspace file (a run of the
    // example itself: the whole program file), its code, its lineage back to the seed.
    const bestRow = flatten(finished.children).find((row) => row.label.startsWith('★ speedup'));
    const programId = bestRow?.id.split(':').pop();
    assert.ok(programId && /^[0-9a-f]{64}$/.test(programId), `the best elite row names its program: ${bestRow?.id}`);
    const elite = { runId, programId };
    const proposalId = await vscode.commands.executeCommand<string | undefined>('peagen.openEliteDiff', elite);
    assert.ok(proposalId, 'Open Diff made a proposal');
    const proposal = api.proposals.list().find((entry) => entry.id === proposalId);
    assert.equal(proposal?.source.kind, 'elite');
    assert.equal(vscode.Uri.parse(proposal.uri).fsPath, path.join(folder, 'bad_sort_ops', 'bad_sort.py'));
    const code = await vscode.commands.executeCommand<string | undefined>('peagen.copyElite', elite);
    assert.equal(await vscode.env.clipboard.readText(), code);
    assert.ok(code?.includes('def bad_sort'), 'the copied code is the program');
    const lineage = await vscode.commands.executeCommand<{ mutator?: string }[] | undefined>('peagen.showLineage', elite, { choose: null });
    assert.ok(lineage && lineage.length >= 1, 'the lineage lists at least the elite itself');
    const outcome = await vscode.commands.executeCommand<{ outcome: string }>('peagen.rejectProposal', proposalId);
    assert.equal(outcome.outcome, 'rejected');
  });
});
