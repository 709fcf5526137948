/**
 * The docker executor against a real engine and the real sandbox image (no mocks): the
 * executor conformance suite unchanged, then what is particular to docker.
 * The engine is private (scripts/provision/docker.mjs), started once and stopped at the end
 * if this process started it; see test/fixtures/dockerEngine.ts.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DockerExecutor } from '../../daemon/sandbox/docker/DockerExecutor';
import { CONTAINER_LABEL, containerOwner } from '../../daemon/sandbox/docker/orphanSweep';
import { buildSandboxImage, sandboxImageStatus } from '../../daemon/sandbox/image/buildImage';
import { describeExecutorConformance } from '../conformance/executor';
import { type DockerEngine, releaseDockerEngine, useDockerEngine } from '../fixtures/dockerEngine';

describe('docker executor (real engine)', function () {
  this.timeout(180_000);
  let engine: DockerEngine;

  before(async function () {
    // First run on a fresh machine: apt install, engine start and image build.
    this.timeout(600_000);
    engine = await useDockerEngine();
  });
  after(() => releaseDockerEngine());

  describeExecutorConformance('docker', async () => new DockerExecutor({ dockerHost: engine.dockerHost, image: engine.image }), {
    isolates: true,
    limitsMemory: true,
    limitsPids: true,
    ownedResources: async (owner) =>
      (await engine.docker.listContainers({ all: true, filters: { label: [`${CONTAINER_LABEL}=${containerOwner(owner)}`] } })).map((container) => `container ${container.Id}`),
  });

  describe('docker specifics', () => {
    let executor: DockerExecutor;
    let workspace: string;

    before(() => {
      executor = new DockerExecutor({ dockerHost: engine.dockerHost, image: engine.image });
    });
    after(() => executor.close());
    beforeEach(() => {
      workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-ws-'));
      fs.writeFileSync(path.join(workspace, 'candidate.txt'), 'original');
    });
    afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

    const ourContainers = async (): Promise<string[]> =>
      (await engine.docker.listContainers({ all: true, filters: { label: [`${CONTAINER_LABEL}=${containerOwner()}`] } })).map((container) => container.Id);

    it('builds the image idempotently: a second build keeps the image, --force makes a new one', async () => {
      const tag = `peagen-sandbox-test:idempotent-${process.pid}`;
      try {
        const first = await buildSandboxImage({ docker: engine.docker, tag });
        assert.equal(first.built, true);
        assert.ok(first.seconds < 60, `the build took ${first.seconds} s`);
        assert.equal(first.contents.node, process.version);
        const again = await buildSandboxImage({ docker: engine.docker, tag });
        assert.equal(again.built, false);
        assert.equal(again.id, first.id);
        const status = await sandboxImageStatus({ docker: engine.docker, tag });
        assert.equal(status.present, true);
        assert.equal(status.id, first.id);
        assert.equal(status.contents?.python, first.contents.python);
        const forced = await buildSandboxImage({ docker: engine.docker, tag, force: true });
        assert.equal(forced.built, true);
        assert.equal((await sandboxImageStatus({ docker: engine.docker, tag })).id, forced.id);
      } finally {
        await engine.docker
          .getImage(tag)
          .remove({ force: true })
          .catch(() => undefined);
      }
      assert.equal((await sandboxImageStatus({ docker: engine.docker, tag })).present, false);
    });

    it('available() says to build the image when it is missing', async () => {
      const missing = new DockerExecutor({ dockerHost: engine.dockerHost, image: 'peagen-sandbox-missing:nope' });
      const availability = await missing.available();
      assert.equal(availability.ok, false);
      assert.match(availability.ok ? '' : availability.reason, /peagen-sandbox-missing:nope is missing.*run `peagen sandbox image build`/);
      await assert.rejects(missing.run({ command: ['true'], workspace }), /run `peagen sandbox image build`/);
    });

    it('available() says to start Docker or set DOCKER_HOST when no engine answers', async () => {
      const nowhere = new DockerExecutor({ dockerHost: `unix://${path.join(os.tmpdir(), 'peagen-no-such-engine.sock')}` });
      const availability = await nowhere.available();
      assert.equal(availability.ok, false);
      assert.match(availability.ok ? '' : availability.reason, /cannot reach the Docker engine at unix:\/\/.*peagen-no-such-engine\.sock.*start Docker, or set DOCKER_HOST/);
    });

    it('available() reports the engine and the image when both are there', async () => {
      const availability = await executor.available();
      assert.ok(availability.ok, availability.ok ? '' : availability.reason);
      assert.match(availability.detail, /^Docker .* image peagen-sandbox:latest/);
    });

    it('available() removes containers left by an executor process that died, and only those', async () => {
      const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;
      const make = async (owner: string) => {
        const container = await engine.docker.createContainer({
          Image: engine.image,
          Entrypoint: ['sleep'],
          Cmd: ['60'],
          Labels: { [CONTAINER_LABEL]: owner },
          HostConfig: { NetworkMode: 'none' },
        });
        await container.start();
        return container;
      };
      const orphan = await make(containerOwner(`${deadPid}-00000000`));
      const live = await make(containerOwner());
      try {
        assert.ok((await executor.available()).ok);
        await assert.rejects(orphan.inspect(), (error: { statusCode?: number }) => error.statusCode === 404);
        assert.equal((await live.inspect()).State.Running, true);
      } finally {
        await orphan.remove({ force: true }).catch(() => undefined);
        await live.remove({ force: true }).catch(() => undefined);
      }
    });

    it('removes the container after every run: a normal exit, a timeout, a flood, a missing program', async () => {
      assert.deepEqual(await ourContainers(), []);
      await executor.run({ command: ['sh', '-c', 'echo hi'], workspace });
      assert.deepEqual(await ourContainers(), []);
      const timedOut = await executor.run({ command: ['sleep', '30'], workspace, limits: { timeoutMs: 500 } });
      assert.equal(timedOut.stoppedBy, 'timeout');
      assert.deepEqual(await ourContainers(), []);
      const flood = await executor.run({ command: ['sh', '-c', 'yes'], workspace, limits: { outputBytes: 1024 } });
      assert.equal(flood.stoppedBy, 'output');
      assert.deepEqual(await ourContainers(), []);
      const missing = await executor.run({ command: ['no-such-program'], workspace });
      assert.equal(missing.exitCode, 127);
      assert.match(missing.stderr, /not found/);
      assert.deepEqual(await ourContainers(), []);
    });

    it('has a read-only root filesystem; only /workspace, HOME and /tmp are writable', async () => {
      const result = await executor.run({
        command: [
          'sh',
          '-c',
          'for f in /etc/passwd /usr/bin/python3 /newfile /usr/local/bin/x; do if echo x > "$f"; then echo "wrote $f"; fi; done; ' +
            'echo ok > /workspace/w && echo ok > "$HOME/h" && echo ok > /tmp/t && echo writable',
        ],
        workspace,
      });
      assert.doesNotMatch(result.stdout, /wrote/);
      assert.match(result.stderr, /Read-only file system/);
      assert.match(result.stdout, /writable/);
    });

    it('runs as uid 65534 without capabilities, with loopback as the only network interface', async () => {
      const result = await executor.run({
        command: ['sh', '-c', 'id -u; id -g; grep CapEff /proc/self/status; ls /sys/class/net; grep NoNewPrivs /proc/self/status'],
        workspace,
      });
      assert.equal(result.exitCode, 0, result.stderr);
      const [uid, gid, caps, net, nnp] = result.stdout.trim().split('\n');
      assert.equal(uid, '65534');
      assert.equal(gid, '65534');
      assert.match(caps ?? '', /CapEff:\s+0+$/);
      assert.equal(net, 'lo');
      assert.match(nnp ?? '', /NoNewPrivs:\s+1/);
    });

    it('passes exactly the sandbox environment (plus the container HOSTNAME)', async () => {
      process.env.PEAGEN_DOCKER_TEST_SECRET = 'planted';
      try {
        const result = await executor.run({ command: ['node', '-e', 'console.log(JSON.stringify(process.env))'], workspace, env: { EXTRA: '1' } });
        assert.equal(result.exitCode, 0, result.stderr);
        const env = JSON.parse(result.stdout) as Record<string, string>;
        assert.deepEqual(Object.keys(env).sort(), ['EXTRA', 'HOME', 'HOSTNAME', 'LANG', 'PATH', 'PYTHONDONTWRITEBYTECODE', 'TMPDIR']);
        assert.equal(env.HOME, '/home/sandbox');
        assert.equal(env.TMPDIR, '/tmp');
        assert.equal(env.HOSTNAME, 'sandbox');
        assert.equal(env.PATH, '/usr/local/bin:/usr/bin:/bin');
      } finally {
        delete process.env.PEAGEN_DOCKER_TEST_SECRET;
      }
    });

    it('runs node, python3 and busybox tools from the image, in the requested cwd', async () => {
      fs.mkdirSync(path.join(workspace, 'sub'));
      const result = await executor.run({
        command: ['sh', '-c', 'pwd; node -e "console.log(process.version)"; python3 -c "import sys; print(sys.version_info[0])"; ls'],
        workspace,
        cwd: '/workspace/sub',
      });
      assert.equal(result.exitCode, 0, result.stderr);
      assert.equal(result.stdout, `/workspace/sub\n${process.version}\n3\n`);
    });

    it('reports the peak memory of the sandbox', async () => {
      const result = await executor.run({ command: ['python3', '-c', 'x = bytearray(64 * 1024 * 1024); print(len(x))'], workspace });
      assert.equal(result.exitCode, 0, result.stderr);
      assert.ok(result.peakMemoryKb !== undefined && result.peakMemoryKb >= 64 * 1024, `peak ${result.peakMemoryKb} KiB`);
    });

    it('binds a world-readable mount directly and copies one only root may read', async () => {
      const open = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-open-'));
      const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-closed-'));
      try {
        fs.chmodSync(open, 0o755);
        fs.writeFileSync(path.join(open, 'a.txt'), 'open\n');
        fs.writeFileSync(path.join(closed, 'b.txt'), 'closed\n', { mode: 0o600 });
        const result = await executor.run({
          command: ['sh', '-c', 'cat /open/a.txt /closed/b.txt; echo x > /closed/b.txt || echo refused'],
          workspace,
          mounts: [
            { hostPath: open, sandboxPath: '/open' },
            { hostPath: closed, sandboxPath: '/closed' },
          ],
        });
        assert.equal(result.stdout, 'open\nclosed\nrefused\n');
        assert.equal(fs.readFileSync(path.join(closed, 'b.txt'), 'utf8'), 'closed\n');
        assert.equal(fs.statSync(closed).mode & 0o777, 0o700, 'the host directory keeps its mode');
      } finally {
        fs.rmSync(open, { recursive: true, force: true });
        fs.rmSync(closed, { recursive: true, force: true });
      }
    });

    it('returns "cancelled" without running anything when the signal has already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const result = await executor.run({ command: ['sh', '-c', 'echo ran'], workspace, signal: controller.signal });
      assert.equal(result.stoppedBy, 'cancelled');
      assert.equal(result.stdout, '');
      assert.deepEqual(await ourContainers(), []);
    });

    it('runs several sandboxes at once, each in its own container', async () => {
      const results = await Promise.all(
        [1, 2, 3].map((n) => executor.run({ command: ['sh', '-c', `echo ${n} > /tmp/n; sleep 0.3; cat /tmp/n; hostname`], workspace })),
      );
      assert.deepEqual(
        results.map((result) => result.stdout),
        ['1\nsandbox\n', '2\nsandbox\n', '3\nsandbox\n'],
      );
      assert.deepEqual(await ourContainers(), []);
    });
  });
});
