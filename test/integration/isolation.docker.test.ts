/**
 * The isolation suites (test/conformance/isolation.ts) against a real Docker engine (a private
 * one from test/fixtures/dockerEngine.ts, or PEAGEN_TEST_DOCKER_HOST) and the sandbox image:
 * the cross-contamination stress test with the full probe (50 tasks: a container costs about
 * 0.8 s here, and the prepared path runs 50 more in dockerPrepared.test.ts), and every hostile
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

  describeIsolationStress('docker', factory, { tasks: 50 });
  describeHostileCandidates('docker', factory, { isolates: true, limitsMemory: true, limitsPids: true });
});
