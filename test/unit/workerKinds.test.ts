import * as assert from 'node:assert/strict';
import { createWorkerRegistry } from '../../daemon/composition';
import { ConfigError, loadConfig } from '../../daemon/config';
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';

describe('worker kinds (worker start --kinds, WORKER_KINDS)', () => {
  const executor = new ProcessExecutor(() => {});
  const llm = { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'm' };

  it('a worker told to serve mutate claims mutate tasks only, though its handlers serve more', () => {
    const every = createWorkerRegistry(loadConfig(undefined, llm), executor);
    assert.ok(every.acceptorsFor(['cpu', 'llm']).some((acceptor) => acceptor.kind === 'evaluate'), 'without kinds a worker serves evaluations too');
    const config = loadConfig(undefined, { ...llm, WORKER_KINDS: 'mutate' });
    assert.deepEqual(config.worker.kinds, ['mutate']);
    const registry = createWorkerRegistry(config, executor);
    assert.deepEqual(
      registry.acceptorsFor(['cpu', 'llm']).map((acceptor) => acceptor.kind),
      ['mutate'],
    );
  });

  it('refuses a kind no handler of the worker serves, naming it and the kinds it does serve', () => {
    const config = loadConfig(undefined, { WORKER_KINDS: 'evaluate,mutat' });
    assert.throws(
      () => createWorkerRegistry(config, executor),
      (error: unknown) => error instanceof ConfigError && /worker\.kinds names mutat, which no handler/.test(error.message) && /serves .*evaluate/.test(error.message),
    );
  });
});
