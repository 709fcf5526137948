/**
 * examples/openevolve_schedule evaluated by the daemon's own path (evaluateProgram: the seal on
 * stdin, the sealed verdict read back) in real sandboxes, against hostile candidates
 * (harness/python/tests/openevolve_attacks): none scores above an honest wrong answer, and the
 * honest seed keeps its score. In Docker (a prepared container reads the task from stdin
 * first), the seal and one attack on the channel.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { evaluateProgram } from '../../daemon/evaluation/evaluateProgram';
import { loadExample } from '../../daemon/evaluation/example';
import { BwrapExecutor } from '../../daemon/sandbox/bwrap/BwrapExecutor';
import { DockerExecutor } from '../../daemon/sandbox/docker/DockerExecutor';
import type { Executor } from '../../daemon/sandbox/Executor';
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import { type DockerEngine, releaseDockerEngine, useDockerEngine } from '../fixtures/dockerEngine';
import { REPO } from '../fixtures/paths';

const EXAMPLE = path.join(REPO, 'examples', 'openevolve_schedule');
const ATTACKS = path.join(REPO, 'harness', 'python', 'tests', 'openevolve_attacks');
const SEED_SCORE = 0.5451338865936847;

for (const executor of [new ProcessExecutor(() => {}), new BwrapExecutor()] as Executor[]) {
  describe(`the OpenEvolve adapter's boundary, through the daemon's evaluation (${executor.name} executor)`, function () {
    this.timeout(120_000);
    const example = loadExample(EXAMPLE);

    before(async function () {
      const availability = await executor.available();
      if (!availability.ok) this.skip();
    });

    it('the honest seed scores as before, behind the boundary', async () => {
      const evaluation = await evaluateProgram(executor, example, example.seedProgram(), { seed: 42 });
      assert.equal(evaluation.correct, true, evaluation.errorText);
      assert.ok(Math.abs((evaluation.objective ?? 0) - SEED_SCORE) < 1e-12, `objective ${evaluation.objective}`);
      assert.equal(evaluation.metrics.process_boundary, 1);
    });

    for (const file of fs.readdirSync(ATTACKS).filter((name) => name.endsWith('.py'))) {
      it(`${file} scores no more than an honest wrong answer`, async () => {
        const evaluation = await evaluateProgram(executor, example, fs.readFileSync(path.join(ATTACKS, file), 'utf8'), { seed: 42 });
        assert.equal(evaluation.correct, false, JSON.stringify(evaluation));
        assert.equal(evaluation.objective, null);
        // The adapter's own verdict said why (not a lost or forged line).
        assert.equal(evaluation.failure?.reason, 'incorrect', JSON.stringify(evaluation));
      });
    }
  });
}

describe("the OpenEvolve adapter's boundary, through the daemon's evaluation (docker executor)", function () {
  this.timeout(600_000);
  const example = loadExample(EXAMPLE);
  let engine: DockerEngine;
  let executor: DockerExecutor;

  before(async () => {
    engine = await useDockerEngine();
    executor = new DockerExecutor({ dockerHost: engine.dockerHost, image: engine.image });
  });
  after(async () => {
    await executor?.close();
    await releaseDockerEngine();
  });

  it('the honest seed scores as before, and a verdict on every fd then _exit scores nothing', async () => {
    const seed = await evaluateProgram(executor, example, example.seedProgram(), { seed: 42 });
    assert.equal(seed.correct, true, seed.errorText);
    assert.ok(Math.abs((seed.objective ?? 0) - SEED_SCORE) < 1e-12, `objective ${seed.objective}`);
    assert.equal(seed.metrics.process_boundary, 1);
    const forged = await evaluateProgram(executor, example, fs.readFileSync(path.join(ATTACKS, 'verdict_on_every_fd.py'), 'utf8'), { seed: 42 });
    assert.equal(forged.correct, false, JSON.stringify(forged));
    assert.equal(forged.failure?.reason, 'incorrect');
  });
});
