import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Status } from '../../shared/protocol';
import { findIgnoredSettings } from '../../daemon/cli/ignoredSettings';
import { ConfigError, loadConfig, loadConfigWithSources } from '../../daemon/config';
import { createQueue, QueueAddressError } from '../../daemon/fabric/queue/createQueue';
import { tempDir } from '../fixtures/paths';

describe('configuration (peagen.json + environment)', () => {
  const dir = tempDir('config');
  const file = path.join(dir, 'peagen.json');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The ConfigError message for this file content and environment. */
  function errorFor(content: unknown, env: NodeJS.ProcessEnv = {}): string {
    fs.writeFileSync(file, JSON.stringify(content));
    try {
      loadConfig(file, env);
    } catch (error) {
      assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
      return error.message;
    }
    assert.fail('the configuration was accepted');
  }

  it('refuses a misspelt key inside a section, naming the file, the key path and the likely key', () => {
    const message = errorFor({ worker: { concurency: 4 }, sandbox: { excutor: 'bwrap' } });
    assert.match(message, /peagen\.json: unknown key "worker\.concurency" \(did you mean "concurrency"\?\)/);
    assert.match(message, /peagen\.json: unknown key "sandbox\.excutor" \(did you mean "executor"\?\)/);
  });

  it('refuses unknown keys in every section and at the top level', () => {
    for (const section of ['queue', 'worker', 'sandbox', 'daemon']) {
      assert.match(errorFor({ [section]: { bogus: 1 } }), new RegExp(`unknown key "${section}\\.bogus"`));
    }
    assert.match(errorFor({ wrker: {} }), /unknown key "wrker" \(did you mean "worker"\?\)/);
  });

  it('names the key path of a value of the wrong type', () => {
    assert.match(errorFor({ worker: { concurrency: 'many' } }), /peagen\.json: worker\.concurrency: .*expected number/);
  });

  it('accepts memory://, redis(s)://host[:port][/db] and redis(s)+cluster://host:port,... queue addresses and refuses anything else', () => {
    for (const url of [
      'memory://',
      'redis://localhost',
      'redis://10.0.0.2:6379/0',
      'rediss://user:secret@queue.example.com:6380/2',
      'redis://[::1]:6379',
      'redis+cluster://10.0.0.1:7000,10.0.0.2:7000,[::1]:7002?prefix=team',
      'rediss+cluster://user:secret@node-a:6379',
    ]) {
      fs.writeFileSync(file, JSON.stringify({ queue: { url } }));
      assert.equal(loadConfig(file, {}).queue.url, url);
    }
    for (const url of ['garbage', 'http://localhost:6379', 'redis://', 'redis://host:port', 'memory:', 'redis://host/db', 'redis://a:1,b:2', 'redis+cluster://a:1/2', 'redis+cluster://']) {
      assert.match(errorFor({ queue: { url } }), /peagen\.json: queue\.url: expected memory:\/\/ or redis:\/\/host\[:port\]\[\/db\]/, url);
    }
  });

  it('names the environment variable at fault', () => {
    const cases: Record<string, string> = {
      WORKER_CONCURRENCY: 'abc',
      WORKER_IDLE_EXIT: '-1',
      PEAGEN_EXECUTOR: 'not a name',
      QUEUE_URL: 'ftp://queue',
      WORKER_CAPS: 'cpu,GPU!',
    };
    for (const [variable, value] of Object.entries(cases)) {
      const message = errorFor({}, { [variable]: value });
      assert.match(message, new RegExp(`^${variable}="${value.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}": `), message);
    }
    assert.match(errorFor({}, { WORKER_CONCURRENCY: '0' }), /^WORKER_CONCURRENCY="0": /);
  });

  it('masks a password in a queue address it reports', () => {
    assert.doesNotMatch(errorFor({}, { QUEUE_URL: 'redis://user:hunter2@host:notaport' }), /hunter2/);
  });

  it('applies valid environment values over the file and records where each setting came from', () => {
    fs.writeFileSync(file, JSON.stringify({ worker: { concurrency: 3, mode: 'one-shot' } }));
    const { config, sources } = loadConfigWithSources(file, { WORKER_CONCURRENCY: '5', WORKER_IDLE_EXIT: '30', QUEUE_URL: 'redis://h:1' });
    assert.equal(config.worker.concurrency, 5);
    assert.equal(config.worker.exitAfterIdleMs, 30_000);
    assert.equal(config.worker.mode, 'one-shot');
    assert.equal(sources['worker.concurrency'], 'WORKER_CONCURRENCY');
    assert.equal(sources['queue.url'], 'QUEUE_URL');
    assert.match(sources['worker.mode'] ?? '', /peagen\.json worker\.mode$/);
    assert.equal(sources['sandbox.executor'], undefined, 'a default is not a choice the user made');
  });

  it('makes a malformed queue address a configuration error, with the password masked', async () => {
    await assert.rejects(createQueue('redis://user:pw@localhost:notaport'), (error: unknown) => {
      assert.ok(error instanceof QueueAddressError);
      assert.doesNotMatch(error.message, /pw/);
      return true;
    });
    await assert.rejects(createQueue('amqp://localhost'), QueueAddressError);
  });

  it('accepts a key prefix on a Redis QUEUE_URL', () => {
    const { config } = loadConfigWithSources(undefined, { QUEUE_URL: 'redis://127.0.0.1:6390/2?prefix=team-a' });
    assert.equal(config.queue.url, 'redis://127.0.0.1:6390/2?prefix=team-a');
  });
});

describe('settings a running daemon ignores', () => {
  const status: Status.Response = {
    daemonVersion: '0.2.0',
    protocolVersion: 1,
    pid: 42,
    uptimeMs: 1,
    cluster: { workers: [], depth: [] },
    queue: { backend: 'memory', url: 'memory://', pending: 0, inFlight: 0, delayed: 0, dead: 0 },
    workers: { count: 2, busy: 0, caps: ['cpu', 'docker'], mode: 'in-process' },
    sandbox: { executor: 'docker', isolates: true, reason: 'auto chose docker: Docker 27 at unix:///var/run/docker.sock, image peagen-sandbox:latest' },
  };
  const ignoredFor = (env: NodeJS.ProcessEnv): string[] => findIgnoredSettings(loadConfigWithSources(undefined, env), status).map((setting) => setting.source);

  it('names each explicit setting that differs from what the daemon runs with', () => {
    assert.deepEqual(
      ignoredFor({
        QUEUE_URL: 'redis://h:1',
        WORKER_CONCURRENCY: '4',
        WORKER_CAPS: 'cpu,llm',
        PEAGEN_EXECUTOR: 'bwrap',
        DOCKER_HOST: 'unix:///elsewhere/docker.sock',
      }),
      ['QUEUE_URL', 'WORKER_CAPS', 'WORKER_CONCURRENCY', 'PEAGEN_EXECUTOR', 'DOCKER_HOST'],
    );
  });

  it('says nothing when the settings match, or were not given', () => {
    assert.deepEqual(ignoredFor({}), []);
    assert.deepEqual(
      ignoredFor({ QUEUE_URL: 'memory://', WORKER_CONCURRENCY: '2', WORKER_CAPS: 'cpu', PEAGEN_EXECUTOR: 'docker', DOCKER_HOST: 'unix:///var/run/docker.sock' }),
      [],
      'caps the executor proves (docker) are the daemon\'s own addition',
    );
  });
});
