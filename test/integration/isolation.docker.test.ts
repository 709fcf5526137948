/**
 * The isolation suites (test/conformance/isolation.ts) against a real Docker engine (a private
 * one from test/fixtures/dockerEngine.ts, or PEAGEN_TEST_DOCKER_HOST) and the sandbox image:
 * the 200-task cross-contamination stress test with the full probe, and every hostile
 * candidate. Containers limit memory and processes by their cgroups.
 */
import { DockerExecutor } from '../../daemon/sandbox/docker/DockerExecutor';
import { type DockerEngine, releaseDockerEngine, useDockerEngine } from '../fixtures/dockerEngine';
import { describeHostileCandidates, describeIsolationStress } from '../conformance/isolation';

describe('isolation: docker', function () {
  // The first use may provision the engine and build the image.
  this.timeout(20 * 60_000);
  let engine: Promise<DockerEngine> | undefined;
  const factory = async (): Promise<DockerExecutor> => {
    const { dockerHost, image } = await (engine ??= useDockerEngine());
    return new DockerExecutor({ dockerHost, image });
  };
  after(async () => {
    if (engine) await releaseDockerEngine();
  });

  describeIsolationStress('docker', factory, { tasks: 200 });
  describeHostileCandidates('docker', factory, { isolates: true, limitsMemory: true, limitsPids: true });
});
