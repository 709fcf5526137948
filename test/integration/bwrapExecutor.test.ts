/**
 * The bwrap executor against the real bubblewrap and the host's real cgroups (no mocks):
 * the shared conformance suite with traits read from the executor (whole-sandbox limits only
 * where cgroups work), then what is specific to bwrap. `node scripts/provision/bwrap.mjs`
 * installs bubblewrap.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BwrapExecutor, SANDBOX_HOME } from '../../daemon/sandbox/bwrap/BwrapExecutor';
import { openCgroups } from '../../daemon/sandbox/cgroup';
import { cgroupsOf, describeExecutorConformance } from '../conformance/executor';

const executor = new BwrapExecutor();

describe('BwrapExecutor', function () {
  this.timeout(60_000);
  let workspace: string;

  before(async () => {
    const availability = await executor.available();
    assert.ok(availability.ok, availability.ok ? '' : availability.reason);
  });
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-ws-'));
    fs.writeFileSync(path.join(workspace, 'candidate.py'), 'print("candidate")\n');
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  const run = (command: string[], extra: Partial<Parameters<BwrapExecutor['run']>[0]> = {}) => executor.run({ command, workspace, ...extra });
  const sh = (script: string, extra: Partial<Parameters<BwrapExecutor['run']>[0]> = {}) => run(['sh', '-c', script], extra);

  it('says how it enforces limits', async () => {
    const availability = await executor.available();
    assert.ok(availability.ok);
    assert.match(availability.detail, /^bubblewrap \d+\.\d+/);
    const enforcement = await executor.enforcement();
    assert.ok(enforcement);
    // On this kind of host (root, cgroups mounted) the limits must cover the whole sandbox.
    if (openCgroups().ok) assert.deepEqual([enforcement.memory, enforcement.pids], ['cgroup', 'cgroup'], enforcement.detail);
  });

  it('runs python3 and node from the sandbox PATH', async () => {
    const result = await sh('python3 -c "import sys, ssl, json; print(sys.version_info[:2])" && node -e "console.log(process.version, require(\'os\').userInfo().username)"');
    assert.equal(result.exitCode, 0, result.stderr);
    assert.match(result.stdout, /^\(3, \d+\)\nv\d+\.\d+\.\d+ \w+\n$/);
  });

  it('runs the candidate as an unprivileged user of its own, also when the daemon is root', async () => {
    const result = await sh('python3 candidate.py; pwd; id -u; echo "$HOME $TMPDIR"; grep -c . /etc/passwd');
    assert.equal(result.exitCode, 0, result.stderr);
    const [candidate, cwd, uid, dirs] = result.stdout.split('\n');
    assert.equal(candidate, 'candidate');
    assert.equal(cwd, '/workspace');
    assert.notEqual(uid, '0');
    assert.equal(dirs, `${SANDBOX_HOME} /tmp`);
  });

  it('shows nothing of /root, /home, /run, /var, /sys or the host /tmp', async () => {
    const marker = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-host-tmp-'));
    try {
      const hidden = ['/root', '/run', '/var', '/sys', marker, '/etc/shadow', '/etc/ssl/private', '/var/run/docker.sock', path.join(os.homedir(), '.ssh')];
      const result = await sh(`for p in ${hidden.join(' ')}; do test -e "$p" && echo "visible: $p"; done; ls -A /home /tmp`);
      assert.equal(result.exitCode, 0, result.stderr);
      assert.equal(result.stdout, '/home:\nsandbox\n\n/tmp:\n', 'only the sandbox HOME under /home, nothing in /tmp');
    } finally {
      fs.rmSync(marker, { recursive: true, force: true });
    }
  });

  it('keeps the root file system and /usr read-only', async () => {
    const result = await sh('touch /evil 2>&1; touch /usr/evil 2>&1; echo ok > /tmp/fine && cat /tmp/fine');
    assert.match(result.stdout, /\/evil': Read-only file system\n.*\/usr\/evil': Read-only file system\nok\n$/s);
    assert.equal(fs.existsSync('/usr/evil'), false);
  });

  it('gives every run a fresh /tmp', async () => {
    await sh('echo left > /tmp/left-behind');
    const result = await sh('ls -A /tmp');
    assert.equal(result.stdout, '');
  });

  it('drops all capabilities and forbids nested user namespaces', async () => {
    const result = await sh('grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status; unshare -U true 2>/dev/null && echo nested || echo no-nested');
    assert.match(result.stdout, /CapEff:\s+0+\nCapBnd:\s+0+\n|CapPrm:\s+0+\nCapEff:\s+0+\nCapBnd:\s+0+\n/);
    assert.match(result.stdout, /no-nested/);
  });

  it('sees only its own processes', async () => {
    const result = await sh('ls /proc | grep -c "^[0-9]"');
    assert.ok(Number(result.stdout) <= 4, result.stdout);
  });

  it('reaches the network only when limits.network is set', async () => {
    const offline = await sh('cat /proc/net/dev | grep -c :');
    const online = await sh('cat /proc/net/dev | grep -c :', { limits: { network: true } });
    assert.equal(offline.stdout.trim(), '1', 'only loopback without network');
    assert.ok(Number(online.stdout) >= 1);
    assert.notEqual(online.stdout, '');
  });

  it('reports 127 for a command that does not exist', async () => {
    const result = await run(['no-such-command-peagen']);
    assert.equal(result.exitCode, 127);
  });

  it('refuses mounts over its own paths', async () => {
    await assert.rejects(run(['true'], { mounts: [{ hostPath: workspace, sandboxPath: '/workspace/sub' }] }), /reserved/);
    await assert.rejects(run(['true'], { mounts: [{ hostPath: workspace, sandboxPath: '/opt/../usr/x' }] }), /reserved/);
    await assert.rejects(run(['true'], { mounts: [{ hostPath: '/nonexistent-peagen', sandboxPath: '/data' }] }), /does not exist/);
    const trailing = await run(['cat', '/data/candidate.py'], { mounts: [{ hostPath: workspace, sandboxPath: '/data/' }] });
    assert.equal(trailing.stdout, 'print("candidate")\n');
  });

  it('measures peak memory and removes its cgroup after the run', async function () {
    const enforcement = await executor.enforcement();
    if (enforcement?.memory !== 'cgroup') this.skip();
    const before = listRunCgroups();
    const result = await run(['python3', '-c', 'x = bytearray(48 * 1024 * 1024)\nprint(len(x))']);
    assert.equal(result.exitCode, 0, result.stderr);
    assert.ok(result.peakMemoryKb !== undefined && result.peakMemoryKb > 48 * 1024, `peak ${result.peakMemoryKb}`);
    assert.deepEqual(listRunCgroups().filter((dir) => !before.includes(dir)), []);
  });

  it('counts threads and processes of the whole sandbox against the pids limit', async function () {
    const enforcement = await executor.enforcement();
    if (enforcement?.pids !== 'cgroup') this.skip();
    const result = await run(['python3', '-c', 'import threading, time\nfor _ in range(40): threading.Thread(target=time.sleep, args=(30,), daemon=True).start()'], {
      limits: { pids: 16, timeoutMs: 20_000 },
    });
    assert.equal(result.stoppedBy, 'pids');
    assert.ok(result.wallMs < 5_000, `took ${result.wallMs} ms`);
  });

  it('keeps a memory hog within the limit of the whole sandbox, children included', async function () {
    const enforcement = await executor.enforcement();
    if (enforcement?.memory !== 'cgroup') this.skip();
    // Three processes of 60 MB each fit any per-process limit of 128 MB, not a sandbox limit.
    const hog = 'import time\\nx = bytearray(60 * 1024 * 1024)\\ntime.sleep(5)';
    const result = await sh(`for i in 1 2 3; do python3 -c "$(printf '${hog}')" & done; wait`, { limits: { memoryMb: 128, timeoutMs: 20_000 } });
    assert.equal(result.stoppedBy, 'memory');
    assert.ok(result.wallMs < 5_000, `took ${result.wallMs} ms`);
  });

  it('runs sandboxes side by side', async () => {
    const results = await Promise.all([1, 2, 3, 4].map((n) => sh(`echo ${n} > mine; sleep 0.2; cat mine`)));
    assert.deepEqual(
      results.map((result) => result.stdout),
      ['1\n', '2\n', '3\n', '4\n'],
    );
  });
});

const fallback = new BwrapExecutor({ cgroups: false });

describe('BwrapExecutor without cgroups (rlimit fallback)', function () {
  this.timeout(60_000);
  let workspace: string;

  beforeEach(() => (workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-ws-'))));
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it('says its limits are per process', async () => {
    const availability = await fallback.available();
    assert.ok(availability.ok, availability.ok ? '' : availability.reason);
    assert.match(availability.detail, /per-process rlimits/);
    const enforcement = await fallback.enforcement();
    assert.equal(enforcement?.memory, 'rlimit');
    assert.equal(enforcement?.pids, process.getuid?.() === 0 ? 'none' : 'rlimit');
  });

  it('stops python at the memory limit and runs node under the default one', async () => {
    const hog = await fallback.run({
      command: ['python3', '-c', 'x = bytearray(1024 * 1024 * 1024)\nprint(len(x))'],
      workspace,
      limits: { memoryMb: 128 },
    });
    assert.equal(hog.stoppedBy, 'memory');
    assert.notEqual(hog.exitCode, 0);
    const node = await fallback.run({ command: ['node', '-e', 'console.log(1)'], workspace });
    assert.equal(node.exitCode, 0, node.stderr);
  });
});

/** Every run cgroup this test process made (all owner tags start with its pid). */
function listRunCgroups(): string[] {
  return cgroupsOf(String(process.pid));
}

// mocha needs the traits synchronously: whole-sandbox limits where cgroups are usable; the
// rlimit fallback still stops a single process at the memory limit, and limits processes only
// when not root ('says how it enforces limits' checks the executor agrees).
const cgroups = openCgroups();
describeExecutorConformance('bwrap', async () => executor, {
  isolates: true,
  limitsMemory: true,
  limitsPids: cgroups.ok || process.getuid?.() !== 0,
});

// The fallback as well: per-process memory limits; processes limited only when not root.
describeExecutorConformance('bwrap without cgroups', async () => fallback, {
  isolates: true,
  limitsMemory: true,
  limitsPids: process.getuid?.() !== 0,
});
