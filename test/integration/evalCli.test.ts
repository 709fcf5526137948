import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { Evaluation } from '../../shared/evaluation';
import { type DockerEngine, releaseDockerEngine, useDockerEngine } from '../fixtures/dockerEngine';
import { CLI, REPO, tempDir } from '../fixtures/paths';

const BAD_SORT = path.join(REPO, 'examples', 'bad_sort');

describe('peagen eval (dist/cli.js, real sandboxes)', function () {
  this.timeout(180_000);
  const home = tempDir('eval-cli');
  let engine: DockerEngine;

  before(async () => {
    engine = await useDockerEngine();
  });
  after(async () => {
    await releaseDockerEngine();
  });

  function evaluate(args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; json: Evaluation & { sandbox: string; example: string }; stderr: string } {
    const run = spawnSync(process.execPath, [CLI, '--json', 'eval', BAD_SORT, '--quick', ...args], {
      cwd: REPO,
      env: { ...process.env, PEAGEN_HOME: home, ...env },
      encoding: 'utf8',
    });
    assert.ok(run.stdout, `no output; stderr:\n${run.stderr}`);
    return { code: run.status, json: JSON.parse(run.stdout), stderr: run.stderr };
  }

  for (const executor of ['bwrap', 'docker'] as const) {
    it(`scores the seed program in a ${executor} sandbox and says so`, () => {
      const { code, json } = evaluate(['--executor', executor], { DOCKER_HOST: engine.dockerHost });
      assert.equal(code, 0);
      assert.equal(json.example, 'bad_sort');
      assert.equal(json.executor, executor);
      assert.match(json.sandbox, new RegExp(executor));
      assert.equal(json.correct, true);
      assert.ok(json.objective !== null && json.objective > 0.4 && json.objective < 2.5, `speedup ${json.objective}`);
      assert.equal(typeof json.metrics.candidate_ms, 'number');
    });

    it(`reports a candidate that calls sorted() as incorrect in ${executor}, exit code 1`, () => {
      const { code, json } = evaluate(['--executor', executor, '--program', path.join(BAD_SORT, 'test_candidates', 'uses_sorted.py')], {
        DOCKER_HOST: engine.dockerHost,
      });
      assert.equal(code, 1);
      assert.equal(json.correct, false);
      assert.equal(json.failure?.reason, 'incorrect');
    });
  }

  it('auto picks docker when an engine and the image are there', () => {
    const { json } = evaluate([], { DOCKER_HOST: engine.dockerHost });
    assert.equal(json.executor, 'docker');
    assert.match(json.sandbox, /auto chose docker/);
  });

  it('auto falls back to bwrap, saying why docker was passed over', () => {
    const { json } = evaluate([], { DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
    assert.equal(json.executor, 'bwrap');
    assert.match(json.sandbox, /passed over: docker/);
  });

  it('explains a directory that is not an example, with exit code 2', () => {
    const run = spawnSync(process.execPath, [CLI, 'eval', REPO], { env: { ...process.env, PEAGEN_HOME: home }, encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /peagen\.example\.json/);
  });
});
