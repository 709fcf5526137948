import * as assert from 'node:assert/strict';
import { poolsServing } from '../../daemon/fabric/worker/servingPools';
import { createWorkerRegistry } from '../../daemon/composition';
import { ConfigError, loadConfig } from '../../daemon/config';
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import type { WorkerRecord } from '../../shared/task';

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

describe('which of a run\'s tasks the workers listed on a shared queue serve (evolve run leaves them those)', () => {
  const pool = (id: string, record: Partial<WorkerRecord>): WorkerRecord => ({
    id,
    host: 'h',
    pid: 1,
    caps: ['cpu'],
    kinds: ['evaluate'],
    mode: 'in-process',
    slots: 16,
    busy: 0,
    startedAt: 0,
    seenAt: 0,
    ...record,
  });
  const runTasks = [
    { kind: 'evaluate', requires: [] },
    { kind: 'mutate', requires: ['llm'] },
  ];

  it('counts dedicated workers by what they claim, and never another command\'s own slots', () => {
    const served = poolsServing(
      [
        pool('eval-1', { accepts: [{ kind: 'evaluate', provides: ['cpu'] }] }),
        pool('eval-2', { accepts: [{ kind: 'evaluate', provides: ['cpu'] }] }),
        pool('model', { caps: ['cpu', 'llm'], kinds: ['mutate'], slots: 40, accepts: [{ kind: 'mutate', provides: ['cpu', 'llm'] }] }),
        // another evolve run's embedded slots: they serve both kinds, and leave with that run
        pool('other-run', { caps: ['cpu', 'llm'], kinds: ['evaluate', 'mutate'], passing: true, accepts: [{ kind: 'evaluate', provides: ['cpu'] }, { kind: 'mutate', provides: ['cpu', 'llm'] }] }),
      ],
      runTasks,
    );
    assert.deepEqual(served, [
      { kind: 'evaluate', slots: 32, pools: 2 },
      { kind: 'mutate', slots: 40, pools: 1 },
    ]);
  });

  it('does not count a worker with the llm cap but no model for LLM calls: its mutate handler needs none', () => {
    const noModel = pool('cpu-llm', { caps: ['cpu', 'llm'], kinds: ['evaluate', 'mutate'], accepts: [{ kind: 'evaluate', provides: ['cpu'] }, { kind: 'mutate', provides: ['cpu'] }] });
    assert.deepEqual(poolsServing([noModel], runTasks), [{ kind: 'evaluate', slots: 16, pools: 1 }]);
  });
});
