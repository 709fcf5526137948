/**
 * The editor's use cases against a daemon that does not share the workspace's files (another
 * machine, a container): everything travels as content. The workspace here is a path that
 * does not exist on the daemon's side; the daemon makes the selection job, runs, mutates and
 * answers where each program belongs, and never creates or reads that path. A daemon that
 * does share the folder (it reads the same workspace id there) keeps the runs in it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ResponseError } from 'vscode-languageserver-protocol/node';
import { DaemonClient } from '../../daemon/rpc/client';
import { readExampleFiles } from '../../extension/evolve/exampleFiles';
import type { RunProgress } from '../../shared/evolution';
import { GetProgram, ListRuns, MutateProgram, PrepareSelection, ScaffoldEvaluator, StartRun } from '../../shared/protocol';
import { replacementFromProgram } from '../../shared/selection';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { tempDir } from '../fixtures/paths';

const NO_LLM = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_API_KEY: '' };
/** bad_sort by counted instructions (badSortOps.ts): these runs are about where files live, not speed. */
const EXAMPLE = badSortOpsDir();
const TEXT = fs.readFileSync(path.join(EXAMPLE, 'bad_sort.py'), 'utf8');
/** Inside the file's EVOLVE-BLOCK: that block is evolved whole. */
const REGION = { startLine: 25, endLine: 30 };

describe('a daemon that does not share the workspace (content over the protocol)', function () {
  this.timeout(240_000);
  const daemon = new DaemonProcess();
  let client: DaemonClient;
  // The client's paths: nothing exists there on the daemon's side.
  const clientRoot = path.join('/nonexistent-client', `ws-${process.pid}`);
  const workspace = { projectDir: clientRoot, workspaceId: `remote-${process.pid}-test` };
  const sourceFile = path.join(clientRoot, 'examples', 'bad_sort_ops', 'bad_sort.py');

  before(async () => {
    const { address } = await daemon.start([], NO_LLM);
    client = await DaemonClient.connect(address, daemon.token, 'test');
  });
  after(async () => {
    client?.close();
    await daemon.stop();
  });

  async function runToEnd(params: StartRun.Params): Promise<{ runId: string; runDir: string; last: RunProgress }> {
    const run: { id?: string } = {};
    const seen: RunProgress[] = [];
    let finished!: (progress: RunProgress) => void;
    const ended = new Promise<RunProgress>((resolve) => (finished = resolve));
    const check = (progress: RunProgress): void => {
      if (progress.runId === run.id && ['finished', 'failed', 'interrupted'].includes(progress.state)) finished(progress);
    };
    client.onRunProgress((progress) => {
      if (run.id === undefined) seen.push(progress);
      else check(progress);
    });
    const started = await client.request(StartRun.type, params);
    run.id = started.runId;
    seen.forEach(check);
    return { runId: started.runId, runDir: started.runDir, last: await ended };
  }

  it('Evolve Selection: the job is made from the files sent, the run is kept by the daemon, each program maps back to the client file', async () => {
    const prepared = await client.request(PrepareSelection.type, { ...workspace, sourceFile, languageId: 'python', text: TEXT, region: REGION, example: { dir: path.dirname(sourceFile), files: readExampleFiles(EXAMPLE) } });
    assert.equal(prepared.markersAdded, false, 'the file has a block holding the region');
    assert.ok(prepared.job, 'a job');
    const { runId, runDir, last } = await runToEnd({ selection: prepared.job.jobId, ...workspace, stop: { evaluations: 4 }, workers: 1, quick: true, mutator: 'offline' });
    assert.equal(last.state, 'finished', last.error);
    assert.ok(runDir.startsWith(path.join(daemon.home, 'workspaces', workspace.workspaceId) + path.sep), `the daemon keeps the run itself: ${runDir}`);
    assert.equal(fs.existsSync(clientRoot), false, 'the client path was never created on the daemon side');

    const { runs } = await client.request(ListRuns.type, workspace);
    assert.deepEqual(runs.map((run) => run.runId), [runId]);
    const answer = await client.request(GetProgram.type, { runId, ...workspace, programId: last.best!.id });
    assert.equal(answer.placement.kind, 'selection');
    assert.ok(answer.placement.kind === 'selection');
    assert.equal(answer.placement.record.sourceFile, sourceFile, 'the program maps back to the client file');
    assert.equal(answer.placement.baseText, TEXT);
    assert.deepEqual(answer.placement.record.replaceRange, { startLine: 20, endLine: 94 });
    const replacement = replacementFromProgram(answer.program.code, answer.placement.record.blockIndex);
    assert.equal(answer.program.code, [...TEXT.split('\n').slice(0, 20), replacement, ...TEXT.split('\n').slice(94)].join('\n'), 'the evolved block replaces the recorded range');
    assert.equal(answer.objectiveName, 'speedup');
  });

  it('Mutate Selection: one mutation evaluated with the job, no workspace file read; scaffolds answer as content', async () => {
    const prepared = await client.request(PrepareSelection.type, { ...workspace, sourceFile, languageId: 'python', text: TEXT, region: REGION, example: { dir: path.dirname(sourceFile), files: readExampleFiles(EXAMPLE) } });
    const answer = await client.request(MutateProgram.type, { ...workspace, code: prepared.code, languageId: 'python', name: 'bad_sort.py', selection: prepared.job!.jobId, mutator: 'offline', seed: 3 });
    assert.equal(answer.mutator, 'offline');
    assert.ok(answer.proposal.ok, 'the offline mutator gives a child for this seed');
    assert.notEqual(answer.proposal.code, prepared.code);
    assert.equal(typeof answer.evaluation?.correct, 'boolean', `the child is evaluated by the job's evaluator (${answer.evaluationError})`);
    assert.equal(answer.objectiveName, 'speedup');

    const scaffold = await client.request(ScaffoldEvaluator.type, { fileName: 'slow.py', languageId: 'python', text: 'def total(values):\n    return sum(values)\n', region: { startLine: 1, endLine: 2 } });
    assert.equal(scaffold.scaffold?.functionName, 'total');
    assert.deepEqual(Object.keys(scaffold.scaffold?.files ?? {}).sort(), ['peagen.example.json', 'peagen_evaluate.py', 'peagen_reference_slow.py']);
    const refused = await client.request(ScaffoldEvaluator.type, { fileName: 'x.rs', languageId: 'rust', text: 'fn main() {}\n', region: { startLine: 0, endLine: 1 } });
    assert.match(refused.refused ?? '', /Python and JavaScript/);
    assert.equal(fs.existsSync(clientRoot), false);
  });

  it('refuses an unknown job, a region the daemon cannot mark, and files that would land outside the job, with the reason', async () => {
    const invalid = (pattern: RegExp) => (error: ResponseError<unknown>) => error.code === -32602 && pattern.test(error.message);
    await assert.rejects(client.request(StartRun.type, { selection: 'no-such-job', ...workspace }), invalid(/no selection job "no-such-job"/));
    await assert.rejects(client.request(StartRun.type, { selection: 'a', exampleDir: EXAMPLE, ...workspace }), invalid(/exactly one of exampleDir and selection/));
    await assert.rejects(
      client.request(PrepareSelection.type, { ...workspace, sourceFile, languageId: 'python', text: TEXT, region: { startLine: 18, endLine: 22 } }),
      invalid(/marker line: select only the lines inside/),
    );
    const files = { ...readExampleFiles(EXAMPLE), '../../escape.py': Buffer.from('x').toString('base64') };
    await assert.rejects(
      client.request(PrepareSelection.type, { ...workspace, sourceFile, languageId: 'python', text: TEXT, region: REGION, example: { dir: path.dirname(sourceFile), files } }),
      invalid(/not a safe relative path: "\.\.\/\.\.\/escape\.py" has an empty, "\." or "\.\." part[\s\S]*example\.files\["\.\.\/\.\.\/escape\.py"\]/),
    );
    await assert.rejects(client.request(ListRuns.type, { ...workspace, workspaceId: '../../etc' }), invalid(/workspace id/));
  });

  it('a daemon that reads the same workspace id in the folder shares it: the run is kept in the folder, as the CLI keeps its runs', async () => {
    const shared = tempDir('shared-workspace');
    try {
      fs.mkdirSync(path.join(shared, '.peagen'));
      fs.writeFileSync(path.join(shared, '.peagen', 'workspace-id'), 'shared-workspace-1\n');
      const here = { projectDir: shared, workspaceId: 'shared-workspace-1' };
      const prepared = await client.request(PrepareSelection.type, { ...here, sourceFile: path.join(shared, 'bad_sort.py'), languageId: 'python', text: TEXT, region: REGION, example: { dir: EXAMPLE, files: readExampleFiles(EXAMPLE) } });
      const { runDir, last } = await runToEnd({ selection: prepared.job!.jobId, ...here, stop: { evaluations: 2 }, workers: 1, quick: true, mutator: 'offline' });
      assert.equal(last.state, 'finished', last.error);
      assert.ok(runDir.startsWith(path.join(shared, '.peagen', 'runs') + path.sep), runDir);
      // Another id for the same path: not proof of sharing, the daemon keeps it on its side.
      const { runs } = await client.request(ListRuns.type, { projectDir: shared, workspaceId: 'someone-else-1' });
      assert.deepEqual(runs, []);
    } finally {
      fs.rmSync(shared, { recursive: true, force: true });
    }
  });
});
