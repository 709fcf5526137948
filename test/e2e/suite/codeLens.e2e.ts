/**
 * "Evolve this function" in a real VS Code, as a new user meets it: a small Python project with
 * unittest tests (test/fixtures/codeLensProject) is opened, the lens stands above its function,
 * a click makes the example `peagen init` makes (for speed: the tests pass) and runs an evolve run with a
 * scripted model (an OpenAI-compatible server in this extension host) that rewrites the
 * O(n²) loop; the best version is offered as a proposal on the function's lines, and accepting
 * it leaves the file with the function changed, no EVOLVE-BLOCK markers, and its tests passing.
 * A package whose tests live beside it (src/tests.py) gets the lens; a file whose project has no
 * tests gets a hint instead, and the command says what to add.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PeagenApi } from '../../../extension/api';
import { extractCurrentProgram } from '../../fixtures/badSortMoves';
import { startOpenAiServer, type WireServer } from '../../fixtures/llmWireServers';
import { click, screenshot } from './driver';
import { forgetScriptedModel, useScriptedModel, waitFor } from './helpers';

/** Sources live beside the compiled suite's repository: out/test/e2e/suite → test/fixtures. */
const FIXTURE = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'codeLensProject');
const SLOW_LOOP = [
  '    count = 0',
  '    for i in range(len(values)):',
  '        for j in range(i + 1, len(values)):',
  '            if values[i] + values[j] == target:',
  '                count += 1',
  '    return count',
].join('\n');
const FAST_LOOP = ['    seen = {}', '    count = 0', '    for value in values:', '        count += seen.get(target - value, 0)', '        seen[value] = seen.get(value, 0) + 1', '    return count'].join('\n');

const DOCSTRING = '    """How many pairs i < j have values[i] + values[j] == target."""';

/**
 * A model that knows one improvement (the pair count in one pass with a dictionary), written
 * with a new harmless statement each time after the first, as a real model varies its answers:
 * the run proposes children until its evaluations are spent, and one that was evaluated before
 * (or a comment-only change) is no child.
 */
function pairsResponder(): (request: { messages?: readonly { role: string; content: unknown }[] }) => string {
  let variant = 0;
  const edit = (search: string, replace: string): string =>
    `Count the pairs in one pass with a dictionary of the values seen.\n\n\`\`\`python\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n\`\`\`\n`;
  return (request) => {
    const program = extractCurrentProgram(request.messages ?? []) ?? '';
    const note = variant === 0 ? '' : `    checked = ${variant}\n`;
    variant++;
    if (program.includes(SLOW_LOOP)) return edit(SLOW_LOOP, `${note}${FAST_LOOP}`);
    if (program.includes(DOCSTRING)) return edit(DOCSTRING, `${DOCSTRING}\n${note || '    checked = 0\n'}`.trimEnd());
    return 'The program looks as good as I can make it; I have no change to suggest.';
  };
}

describe('Evolve this function (CodeLens)', function () {
  this.timeout(240_000);
  let api: PeagenApi;
  let server: WireServer;
  let folder: string;
  let project: string;
  const created: string[] = [];
  const settings = vscode.workspace.getConfiguration('peagen');
  let evaluationsBefore: number | undefined;

  before(async function () {
    this.timeout(120_000);
    const extension = vscode.extensions.getExtension<PeagenApi>('peagen.peagen');
    assert.ok(extension, 'the extension is not installed');
    api = await extension.activate();
    folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    project = path.join(folder, 'pairs_project');
    fs.cpSync(FIXTURE, project, { recursive: true });
    created.push(project);
    // Not the workspace's .peagen/: it holds workspace-id, by which the running daemon knows it
    // shares this folder; deleted, the suites after this one saw no runs (their run dirs go one by one).
    if (!fs.existsSync(path.join(folder, '.vscode'))) created.push(path.join(folder, '.vscode'));
    // A short run: the lens uses the user's default number of evaluations.
    evaluationsBefore = settings.inspect<number>('evolve.defaultEvaluations')?.workspaceValue;
    await settings.update('evolve.defaultEvaluations', 4, vscode.ConfigurationTarget.Workspace);
    server = await startOpenAiServer({ responder: pairsResponder(), latencyMs: 20 });
    await useScriptedModel(api, server.baseUrl);
  });

  after(async function () {
    this.timeout(90_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await settings.update('evolve.defaultEvaluations', evaluationsBefore, vscode.ConfigurationTarget.Workspace);
    await forgetScriptedModel(api);
    await server?.close();
    for (const dir of created.reverse()) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows "Evolve this function" above the function; a click makes the tests-based example and a run whose best is a proposal; Accept writes it into the file', async () => {
    const uri = vscode.Uri.file(path.join(project, 'pairs.py'));
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document);
    const defLine = document.getText().split('\n').findIndex((line) => line.startsWith('def count_pairs('));
    const lenses = await waitFor('the lens above count_pairs', 60_000, async () => {
      const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
      const ours = found.filter((lens) => lens.command?.command === 'peagen.evolveFunction');
      return ours.length > 0 ? ours : undefined;
    });
    assert.equal(lenses.length, 1, 'one lens: the file has one function');
    assert.equal(lenses[0]!.range.start.line, defLine);
    assert.equal(lenses[0]!.command!.title, 'Evolve this function');
    assert.match(lenses[0]!.command!.tooltip ?? '', /peagen init for count_pairs\(\) \(tests: python3 -m unittest in pairs_project\): for speed when they pass, for the tests when some fail/);
    await screenshot('codelens-lens');

    // What a person does: click the lens in the editor.
    const before = api.evolve.lastRun()?.runId;
    await waitFor('a click on the lens', 30_000, async () => {
      await click('.contentWidgets .codelens-decoration a', 'Evolve this function');
      return true;
    });
    const runId = await waitFor('the run the lens started', 90_000, () => {
      const id = api.evolve.lastRun()?.runId;
      return id && id !== before ? id : undefined;
    });
    created.push(api.evolve.lastRun()!.runDir);
    await screenshot('codelens-progress');

    // The example is the CLI's: `peagen init pairs.py --function count_pairs --tests "python3 -m unittest"`,
    // for speed (the project's tests pass on the code as it is).
    const exampleDir = path.join(project, '.peagen', 'examples', 'pairs-count_pairs');
    const config = JSON.parse(fs.readFileSync(path.join(exampleDir, 'peagen.example.json'), 'utf8')) as { objective: { name: string }; evaluator: string[] };
    assert.equal(config.objective.name, 'speedup');
    assert.match(fs.readFileSync(path.join(exampleDir, 'peagen_evaluate.py'), 'utf8'), /^TESTS = "python3 -m unittest"/m);

    const last = await waitFor('the run to finish', 180_000, () => {
      const progress = api.evolve.lastRun()?.progress;
      return progress && progress.state !== 'running' && progress.state !== 'stopping' ? progress : undefined;
    });
    assert.equal(last.state, 'finished', `stopped by ${last.stopReason}`);
    assert.equal(last.runId, runId);
    assert.ok(server.requests.length > 0, 'the scripted model was called');
    assert.ok(last.best && last.seedObjective !== null && last.best.objective > last.seedObjective, `best ${last.best?.objective} vs seed ${last.seedObjective}`);

    // Offered for Accept once measured: the one proposal of the run left open.
    const offer = await waitFor('the best version to be offered', 60_000, () => {
      const offers = api.evolve.lastRun()?.offers ?? [];
      return offers.find((candidate) => candidate.proposalId && candidate.confirmed);
    });
    assert.equal(offer.file, uri.fsPath);
    await screenshot('codelens-finished');

    const outcome = await vscode.commands.executeCommand<{ outcome: string; message?: string }>('peagen.acceptProposal', offer.proposalId);
    assert.equal(outcome.outcome, 'accepted', outcome.message);
    await document.save();
    const text = fs.readFileSync(uri.fsPath, 'utf8');
    assert.ok(text.includes(FAST_LOOP) && !text.includes(SLOW_LOOP), `the file holds the evolved function:\n${text}`);
    assert.ok(!text.includes('EVOLVE-BLOCK'), 'no markers in the user\'s file');
    assert.ok(text.startsWith('"""Pairs that add up to a target'), 'the rest of the file is as it was');
    execFileSync('python3', ['-m', 'unittest'], { cwd: project, stdio: 'pipe' }); // throws when a test fails
  });

  it('a package whose tests live elsewhere (src/tests.py beside the package, as roman keeps them) gets the lens, with the tests found there', async () => {
    const layout = path.join(folder, 'elsewhere_project');
    fs.mkdirSync(path.join(layout, 'src', 'numerals'), { recursive: true });
    created.push(layout);
    fs.writeFileSync(path.join(layout, 'src', 'numerals', '__init__.py'), 'def to_base7(n):\n    digits = ""\n    while n:\n        n, d = divmod(n, 7)\n        digits = str(d) + digits\n    return digits or "0"\n');
    fs.writeFileSync(path.join(layout, 'src', 'tests.py'), 'import unittest\n\nimport numerals\n\n\nclass T(unittest.TestCase):\n    def test_it(self):\n        self.assertEqual(numerals.to_base7(49), "100")\n');
    const uri = vscode.Uri.file(path.join(layout, 'src', 'numerals', '__init__.py'));
    await vscode.window.showTextDocument(uri);
    const lens = await waitFor('the lens above to_base7', 30_000, async () => {
      const found = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
      return found.find((candidate) => candidate.command?.command === 'peagen.evolveFunction');
    });
    assert.equal(lens.command!.title, 'Evolve this function');
    assert.match(lens.command!.tooltip ?? '', /tests: python3 -m unittest in elsewhere_project\/src\)/);
  });

  it('a file whose project has no tests gets no lens, and the command says what to add', async () => {
    const lonely = path.join(folder, 'no_tests_project');
    fs.mkdirSync(lonely, { recursive: true });
    created.push(lonely);
    const uri = vscode.Uri.file(path.join(lonely, 'lonely.py'));
    fs.writeFileSync(uri.fsPath, 'def total(values):\n    return sum(values)\n');
    await vscode.window.showTextDocument(uri);
    const found = await waitFor('the no-tests hint', 30_000, async () => {
      const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
      return lenses.some((lens) => lens.command?.title.startsWith('Peagen: no tests found')) ? lenses : undefined;
    });
    assert.deepEqual(found.filter((lens) => lens.command?.command === 'peagen.evolveFunction'), []);
    const hint = found.find((lens) => lens.command?.title.startsWith('Peagen: no tests found'))!;
    assert.equal(hint.command!.title, 'Peagen: no tests found for this file (set the test command)');
    assert.deepEqual(hint.command!.arguments, ['peagen.codeLens.testCommand']);
    assert.match(hint.command!.tooltip ?? '', /no tests found for lonely\.py/);
    const answer = await vscode.commands.executeCommand<{ error?: string }>('peagen.evolveFunction', uri, 'total');
    assert.match(answer?.error ?? '', /no tests found for lonely\.py: .*add unittest or pytest tests \(test_\*\.py beside the file, or in tests\/\), or set peagen\.codeLens\.testCommand/);
  });
});
