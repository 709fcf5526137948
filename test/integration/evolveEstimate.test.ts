/**
 * EstimateRun through a real daemon: what the editor shows before it starts a run. Its
 * worst case is the one `peagen evolve run` prints for the same run, and asking creates no
 * run directory. The example is bad_sort_ops (bad_sort judged by counted instructions): the CLI
 * run it is compared with evaluates in a fraction of a second, not seconds.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes, type ResponseError } from 'vscode-languageserver-protocol/node';
import { RUNS_DIR } from '../../daemon/evolution/controller/runDir';
import { DaemonClient } from '../../daemon/rpc/client';
import { EstimateRun } from '../../shared/protocol';
import { badSortResponder } from '../fixtures/badSortMoves';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { EvolveProject } from '../fixtures/evolveFixtures';
import { startOpenAiServer, type WireServer } from '../fixtures/llmWireServers';

const WORST_CASE = /worst-case spend: (\d+) LLM calls, ([\d,]+) tokens, \$(\d+\.\d\d)/;

describe('EstimateRun (real daemon)', function () {
  this.timeout(180_000);
  const daemon = new DaemonProcess();
  const project = new EvolveProject();
  let server: WireServer;
  let client: DaemonClient;
  let address: string;

  before(async () => {
    server = await startOpenAiServer({ responder: badSortResponder({ seed: 2 }), latencyMs: 5 });
    ({ address } = await daemon.start([], { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_MODEL: '', OPENAI_BASE_URL: server.baseUrl }));
    client = await DaemonClient.connect(address, daemon.token, 'test');
  });
  after(async () => {
    client?.close();
    await daemon.stop();
    await server.close();
    project.cleanup();
  });

  it('creates nothing: no run directory, nothing under .peagen', async () => {
    const estimate = await client.request(EstimateRun.type, { exampleDir: badSortOpsDir(), projectDir: project.dir, stop: { evaluations: 6 }, workers: 1, quick: true });
    assert.equal(estimate.mutator, 'llm-patch');
    assert.ok(estimate.worstCase, `a bounded run has a worst case: ${estimate.notes.join('\n')}`);
    assert.ok(estimate.notes.some((note) => note.includes(`${estimate.worstCase!.calls} LLM calls, ${estimate.worstCase!.tokens.toLocaleString('en-US')} tokens`)), estimate.notes.join('\n'));
    assert.equal(fs.existsSync(path.join(project.dir, '.peagen')), false, 'an estimate creates nothing under .peagen');
  });

  it('answers the same worst case the CLI prints for the identical run', async () => {
    const stop = { evaluations: 3 };
    const estimate = await client.request(EstimateRun.type, { exampleDir: badSortOpsDir(), projectDir: project.dir, stop, workers: 1, quick: true });
    const cli = await project.run(['evolve', 'run', badSortOpsDir(), '--sync', '--quick', '--workers', '1', '--evaluations', '3', '--project', project.dir], { OPENAI_BASE_URL: server.baseUrl });
    assert.equal(cli.code, 0, cli.stderr);
    const match = WORST_CASE.exec(cli.stderr);
    assert.ok(match, `no worst-case line in:\n${cli.stderr}`);
    assert.ok(estimate.worstCase, estimate.notes.join('\n'));
    assert.deepEqual(
      { calls: estimate.worstCase.calls, tokens: estimate.worstCase.tokens, usd: estimate.worstCase.usd.toFixed(2) },
      { calls: Number(match[1]), tokens: Number(match[2]!.replace(/,/g, '')), usd: match[3] },
    );
    assert.equal(fs.readdirSync(path.join(project.dir, RUNS_DIR)).length, 1, 'only the CLI run made a directory');
  });

  it('offline when asked: no worst case; a bad example is refused with the reason', async () => {
    const offline = await client.request(EstimateRun.type, { exampleDir: badSortOpsDir(), projectDir: project.dir, stop: { evaluations: 3 }, mutator: 'offline' });
    assert.deepEqual([offline.mutator, offline.worstCase], ['offline', null]);
    assert.ok(offline.notes.some((note) => /offline/.test(note)));
    await assert.rejects(
      client.request(EstimateRun.type, { exampleDir: path.join(project.dir, 'nowhere'), projectDir: project.dir }),
      (error: ResponseError<unknown>) => error.code === ErrorCodes.InvalidParams && /peagen\.example\.json/.test(error.message),
    );
  });
});
