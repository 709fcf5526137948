/**
 * Prepared (warm) docker sandboxes against a real engine and the sandbox image: the whole
 * executor conformance suite and both isolation suites with every run made in a container
 * prepared for it (warmEveryRun), then PreparedFirstExecutor and a one-shot child SIGKILLed
 * while it holds a prepared container. Slow (a container per run): a file of its own.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { DockerExecutor } from '../../daemon/sandbox/docker/DockerExecutor';
import { CONTAINER_LABEL, containerOwner } from '../../daemon/sandbox/docker/orphanSweep';
import { newSandboxOwner, SANDBOX_OWNER_ENV } from '../../daemon/sandbox/owner';
import { PreparedFirstExecutor } from '../../daemon/sandbox/warm/PreparedFirstExecutor';
import { describeExecutorConformance, leftoversOf, warmEveryRun } from '../conformance/executor';
import { describeHostileCandidates, describeIsolationStress } from '../conformance/isolation';
import { type DockerEngine, releaseDockerEngine, useDockerEngine } from '../fixtures/dockerEngine';
import { REPO } from '../fixtures/paths';

describe('prepared docker sandboxes (real engine)', function () {
  // The first use may provision the engine and build the image.
  this.timeout(20 * 60_000);
  let engine: DockerEngine;
  before(async () => {
    engine = await useDockerEngine();
  });
  after(() => releaseDockerEngine());

  const ownedResources = async (owner: string): Promise<string[]> =>
    (await engine.docker.listContainers({ all: true, filters: { label: [`${CONTAINER_LABEL}=${containerOwner(owner)}`] } })).map((container) => `container ${container.Id}`);
  const warm = async (): Promise<ReturnType<typeof warmEveryRun>> => warmEveryRun(new DockerExecutor({ dockerHost: engine.dockerHost, image: engine.image }));

  describeExecutorConformance('docker, every run prepared', warm, { isolates: true, limitsMemory: true, limitsPids: true, ownedResources });
  describeIsolationStress('docker, every run prepared', warm, { tasks: 50 });
  describeHostileCandidates('docker, every run prepared', warm, { isolates: true, limitsMemory: true, limitsPids: true });

  describe('PreparedFirstExecutor (docker)', () => {
    let executor: DockerExecutor;
    before(() => {
      executor = new DockerExecutor({ dockerHost: engine.dockerHost, image: engine.image });
    });
    after(() => executor.close());

    it('runs the first task in the prepared container and the next one cold, with the same answers', async () => {
      const sandboxes = new PreparedFirstExecutor(executor, await executor.prepare());
      const request = { command: ['sh', '-c', 'cat program.txt; echo; id -u'], files: { 'program.txt': '42' } };
      const first = await sandboxes.run(request);
      const second = await sandboxes.run(request);
      assert.deepEqual([sandboxes.warmRuns, sandboxes.coldRuns], [1, 1]);
      assert.deepEqual(first, { ...second, wallMs: first.wallMs, ...(first.peakMemoryKb !== undefined && { peakMemoryKb: first.peakMemoryKb }) });
      assert.equal(first.stdout, '42\n65534\n');
      await sandboxes.close();
    });

    it('a one-shot child SIGKILLed while it holds a prepared container leaves nothing once its parent reclaims', async () => {
      const owner = newSandboxOwner();
      const script = `
        const { DockerExecutor } = require(${JSON.stringify(path.join(REPO, 'out', 'daemon', 'sandbox', 'docker', 'DockerExecutor.js'))});
        new DockerExecutor({ dockerHost: ${JSON.stringify(engine.dockerHost)}, image: ${JSON.stringify(engine.image)} })
          .prepare({ mountPoints: ['/harness'] }).then(() => console.log('prepared'), (error) => { console.error(error); process.exit(1); });
        setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, [SANDBOX_OWNER_ENV]: owner }, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('prepared') && resolve());
        child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it prepared a sandbox`)));
      });
      assert.equal((await ownedResources(owner)).length, 1, 'the prepared container exists');
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      await executor.reclaim(owner);
      assert.deepEqual(await leftoversOf(owner, { ownedResources }), []);
    });
  });
});
