/**
 * A model that will not answer stops the run at once, in one line that names the server, and
 * the command fails (real CLI, a local server speaking OpenAI's wire format): a refused key and
 * an unknown model on the first call; a server that cannot be reached after a few calls in a
 * row. Before, such runs printed a line per call for a minute and exited 0.
 */
import * as assert from 'node:assert/strict';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { EvolveProject, NO_CONFIRMATION } from '../fixtures/evolveFixtures';
import { startOpenAiServer, type WireServer } from '../fixtures/llmWireServers';
import { freePort } from '../fixtures/freePort';


describe('peagen evolve run with a model that will not answer (real CLI)', function () {
  this.timeout(180_000);
  let project: EvolveProject;
  let server: WireServer | undefined;
  beforeEach(() => {
    project = new EvolveProject();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    project.cleanup();
  });

  const evolve = (env: NodeJS.ProcessEnv) =>
    project.run(['evolve', 'run', badSortOpsDir(), ...NO_CONFIRMATION, '--sync', '--quick', '--evaluations', '40', '--workers', '2', '--project', project.dir], { OPENAI_MODEL: 'some-model', ...env });

  it('a refused key: stops on the first answer, names the server and the key\'s variable, exits 1', async () => {
    server = await startOpenAiServer({ apiKey: 'the-right-key' });
    const run = await evolve({ OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'a-wrong-key' });
    const said = run.stdout + run.stderr;
    assert.equal(run.code, 1, said);
    assert.match(said, new RegExp(`stopped: the model cannot be used: openai: the server at ${server.baseUrl.replace(/[.]/g, '\\.')} refused the key \\(HTTP 401\\); check the key in OPENAI_API_KEY`));
    assert.match(said, /stopped by model_unusable/);
    assert.doesNotMatch(said, /a-wrong-key/, 'the key is never printed');
    assert.ok(server.requests.length <= 4, `${server.requests.length} calls: the first refusal stops the run (two workers may have asked at once)`);
    assert.ok((said.match(/refused/g) ?? []).length <= 2, `said once as the run stops (and in why children failed), not once per call:\n${said}`);
  });

  it('an unknown model (404): stops at once, naming the server', async () => {
    server = await startOpenAiServer({ faults: Array.from({ length: 50 }, () => ({ kind: 'status' as const, status: 404, message: 'The model `some-model` does not exist' })) });
    const run = await evolve({ OPENAI_BASE_URL: server.baseUrl });
    const said = run.stdout + run.stderr;
    assert.equal(run.code, 1, said);
    assert.match(said, new RegExp(`stopped: the model cannot be used: openai: the server at ${server.baseUrl.replace(/[.]/g, '\\.')} answered 404 \\(no such model or path\\)`));
  });

  it('a server that cannot be reached: stops after a few calls in a row, naming the address, exits 1', async () => {
    const url = `http://127.0.0.1:${await freePort()}/v1`;
    const run = await evolve({ OPENAI_BASE_URL: url });
    const said = run.stdout + run.stderr;
    assert.equal(run.code, 1, said);
    assert.match(said, new RegExp(`the model failed: openai: cannot reach the server at ${url.replace(/[.]/g, '\\.')}.*the run goes on`));
    assert.match(said, new RegExp(`stopped: the model cannot be used: openai: cannot reach the server at ${url.replace(/[.]/g, '\\.')}.*\\(3 calls in a row\\)`));
    assert.match(said, /0 evaluations/);
  });
});
