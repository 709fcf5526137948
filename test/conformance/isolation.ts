/**
 * Isolation as the brief measures it, run as real `execute` tasks through a real WorkerPool
 * on a MemoryQueue, unchanged for every executor:
 *
 *   describeIsolationStress('bwrap', async () => new BwrapExecutor());
 *   describeHostileCandidates('bwrap', async () => new BwrapExecutor(), { isolates: true, limitsMemory: true, limitsPids: true });
 *
 * - The stress suite is the P-3 KPI "no task cross-contamination detected in stress test
 *   (hash of /tmp & env diff)": 200 sequential tasks, each of which first records what it can
 *   see, then contaminates everything it can reach. Every record must equal the first.
 * - The hostile suite runs programs that attack the worker and the host, and checks that
 *   each one ends in time with the right stop reason, that the worker goes on to run the
 *   next task, that no secret of the worker or the host leaks, and that the host is unharmed.
 *
 * What an executor that does not isolate (the `process` fallback) can be held to is chosen by
 * its traits: it runs the same suites with the checks that mean something for it.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { HandlerRegistry } from '../../daemon/fabric/worker/HandlerRegistry';
import { WorkerPool } from '../../daemon/fabric/worker/WorkerPool';
import { createExecuteHandler } from '../../daemon/handlers/execute';
import type { ExecutionResult, Executor, LimitOverrides, StopReason } from '../../daemon/sandbox/Executor';
import { newTask, type Result } from '../../shared/task';
import { REPO } from '../fixtures/paths';
import { soakSize } from '../fixtures/soak';
import { type ExecutorTraits, hostProcessesWith, KILL_GRACE_MS } from './executor';

// ---------------------------------------------------------------------------------------
// A worker that runs `execute` tasks with one executor

interface TaskRun {
  result: Result;
  /** The executor's answer (the result's data), when the task produced one. */
  execution: ExecutionResult | undefined;
  /** From the worker's taskStart to its taskEnd: what a user waits for one task. */
  elapsedMs: number;
}

interface ExecutePayloadInput {
  command: string[];
  workspace: string;
  files?: Record<string, string>;
  env?: Record<string, string>;
  limits?: LimitOverrides;
}

class ExecuteWorker {
  private readonly queue = new MemoryQueue({ maxAttempts: 1 });
  private readonly pool: WorkerPool;

  constructor(executor: Executor) {
    const handler = createExecuteHandler(executor);
    this.pool = new WorkerPool({
      queue: this.queue,
      registry: new HandlerRegistry().register(handler),
      caps: [...handler.provides],
      concurrency: 1,
      mode: 'in-process',
      claimBlockMs: 100,
    }).start();
  }

  /** Enqueues one execute task and waits for the worker to finish it. */
  run(payload: ExecutePayloadInput): Promise<TaskRun> {
    const task = newTask({ kind: 'execute', payload });
    return new Promise<TaskRun>((resolve, reject) => {
      let startedAt: number | undefined;
      const onStart = (started: { id: string }): void => {
        if (started.id === task.id) startedAt = performance.now();
      };
      const onEnd = (ended: { id: string }, end: string, result: Result | undefined): void => {
        if (ended.id !== task.id) return;
        const elapsedMs = performance.now() - (startedAt ?? performance.now());
        this.pool.off('taskStart', onStart);
        this.pool.off('taskEnd', onEnd);
        if (!result) {
          reject(new Error(`task ${task.id} ended "${end}" without a result`));
          return;
        }
        resolve({ result, execution: result.status === 'ok' ? (result.data as ExecutionResult) : undefined, elapsedMs });
      };
      this.pool.on('taskStart', onStart);
      this.pool.on('taskEnd', onEnd);
      this.queue.enqueue(task).catch(reject);
    });
  }

  async stop(): Promise<void> {
    await this.pool.stop({ drain: true });
    await this.queue.close();
  }
}

function executionOf(run: TaskRun): ExecutionResult {
  assert.equal(run.result.status, 'ok', `the execute task failed: ${JSON.stringify(run.result.error)}`);
  assert.ok(run.execution, 'the execute task returned no execution result');
  return run.execution;
}

/** Kills (by pid) processes carrying `marker` that a failed run left behind. */
function killMarked(marker: string): number[] {
  const pids = hostProcessesWith(marker);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * Processes carrying `marker` that are still there `graceMs` after the task ended. A process
 * SIGKILLed at the end of a run can still be listed for a few milliseconds after the executor
 * returns (seen with the process executor in ~15% of runs, state R, gone within 200 ms); it can
 * no longer run user code, so only processes that outlive the grace count as left behind.
 */
async function survivors(marker: string, graceMs = KILL_GRACE_MS): Promise<number[]> {
  const giveUpAt = Date.now() + graceMs;
  for (;;) {
    const found = hostProcessesWith(marker);
    if (found.length === 0 || Date.now() >= giveUpAt) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** sha256 over a directory tree's names, modes and contents. */
function hashTree(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      const stat = fs.lstatSync(full);
      hash.update(`${path.relative(root, full)} ${stat.mode}\n`);
      if (entry.isDirectory()) walk(full);
      else if (entry.isSymbolicLink()) hash.update(fs.readlinkSync(full));
      else if (entry.isFile()) hash.update(fs.readFileSync(full));
    }
  };
  walk(root);
  return hash.digest('hex');
}

function makeWorkspace(): string {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-iso-ws-'));
  fs.writeFileSync(path.join(workspace, 'candidate.txt'), 'original\n');
  fs.mkdirSync(path.join(workspace, 'pkg', 'sub'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'pkg', 'sub', 'data.json'), '{"n": 1}\n');
  return workspace;
}

// ---------------------------------------------------------------------------------------
// 1. Stress: no cross-contamination between sequential tasks

/**
 * Run by every stress task: prints one JSON line recording what the task can see, then
 * contaminates what it can reach and prints "contaminated".
 *
 * argv: mode ("full" | "sandbox-dirs"), marker, tag, shared dirs (JSON).
 * - sandbox-dirs: only what the executor promises even without isolation: the environment,
 *   HOME, TMPDIR and the workspace copy; the background process stays in the task's
 *   process group.
 * - full: also the directories every process on a machine shares (/tmp, /var/tmp, /dev/shm),
 *   the names in / and /etc, and the other processes visible in /proc; writes go there too,
 *   and a background process escapes with setsid and a double fork.
 * Paths the executor picks per run (workspace, HOME, TMPDIR) and a container's HOSTNAME are
 * replaced by placeholders so that only contamination can make two records differ.
 */
const STRESS_PROBE = String.raw`
import hashlib, json, os, site, socket, stat, subprocess, sys

mode, marker, tag, shared_dirs = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
full = mode == 'full'
cwd = os.getcwd()
home = os.environ.get('HOME', '')
tmpdir = os.environ.get('TMPDIR', '/tmp')

subst = []
for value, token in ((cwd, '<CWD>'), (home, '<HOME>'), (tmpdir, '<TMPDIR>')):
    for variant in (value, os.path.realpath(value) if value else ''):
        if variant and variant != '/':
            subst.append((variant, token))
subst.sort(key=lambda pair: -len(pair[0]))

def norm(text):
    for value, token in subst:
        text = text.replace(value, token)
    return text

def tree(root):
    if not os.path.lexists(root):
        return {'missing': True}
    digest = hashlib.sha256()
    names = []
    def failed(error):
        digest.update(('unreadable %s\n' % norm(str(error.filename))).encode())
    for dirpath, dirnames, filenames in os.walk(root, onerror=failed):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            rel = norm(os.path.relpath(path, root))
            try:
                info = os.lstat(path)
            except OSError:
                continue
            entry = '%s %o' % (rel, info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                entry += ' -> ' + norm(os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                try:
                    content = hashlib.sha256()
                    with open(path, 'rb') as handle:
                        for chunk in iter(lambda: handle.read(1 << 20), b''):
                            content.update(chunk)
                    entry += ' ' + content.hexdigest()
                except OSError:
                    entry += ' unreadable'
            digest.update(entry.encode() + b'\n')
            names.append(rel)
    return {'sha256': digest.hexdigest(), 'entries': len(names), 'first': names[:25]}

def names(directory):
    try:
        return sorted(os.listdir(directory))
    except OSError as error:
        return 'unlistable: %s' % error.strerror

def other_processes():
    chain = set()
    pid = os.getpid()
    while pid > 0 and pid not in chain:
        chain.add(pid)
        try:
            with open('/proc/%d/stat' % pid) as handle:
                pid = int(handle.read().rsplit(')', 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    found = []
    for entry in os.listdir('/proc'):
        if entry.isdigit() and int(entry) not in chain:
            try:
                with open('/proc/%s/comm' % entry) as handle:
                    found.append(handle.read().strip())
            except OSError:
                pass
    return sorted(found)

env = {key: norm(value) for key, value in os.environ.items()}
if 'HOSTNAME' in env and env['HOSTNAME'] == socket.gethostname():
    env['HOSTNAME'] = '<HOSTNAME>'
record = {
    'env': hashlib.sha256(json.dumps(env, sort_keys=True).encode()).hexdigest(),
    'envKeys': sorted(env),
    'home': tree(home),
    'tmpdir': tree(tmpdir),
    'workspace': tree(cwd),
}
if full:
    for directory in shared_dirs:
        record['shared:' + directory] = tree(directory)
    record['rootNames'] = names('/')
    record['etcNames'] = names('/etc')
    record['processes'] = other_processes()
print(json.dumps(record, sort_keys=True), flush=True)

# Contaminate everything reachable.
name = tag + '-' + marker
def scribble(path, text):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'a') as handle:
            handle.write(text)
    except OSError:
        pass
scribble(os.path.join(cwd, name), marker)
scribble(os.path.join(cwd, 'candidate.txt'), marker)
scribble(os.path.join(cwd, 'pkg', 'sub', name), marker)
scribble(os.path.join(home, name), marker)
scribble(os.path.join(tmpdir, name), marker)
for rc in ('.bashrc', '.profile', '.bash_profile', '.zshrc'):
    scribble(os.path.join(home, rc), 'export PEAGEN_CONTAMINATED=%s\n' % marker)
try:
    user_site = site.getusersitepackages()
    if home and user_site.startswith(home):
        scribble(os.path.join(user_site, 'usercustomize.py'), 'import os\nos.environ["PEAGEN_CONTAMINATED"] = %r\n' % marker)
except Exception:
    pass
os.environ['PEAGEN_CONTAMINATED'] = marker
if full:
    for directory in shared_dirs + ['/etc', '/']:
        scribble(os.path.join(directory, name), marker)

sleeper = ['python3', '-c', 'import time; time.sleep(300)', marker]
devnull = os.open(os.devnull, os.O_RDWR)
subprocess.Popen(sleeper, stdin=devnull, stdout=devnull, stderr=devnull)
if full:
    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.execvp(sleeper[0], sleeper)
        os._exit(0)
    os.waitpid(child, 0)
print('contaminated', flush=True)
`;

export interface StressOptions {
  /** Sequential tasks in `npm run test:soak` (the KPI asks for at least 200); 20 in `npm test`. */
  tasks?: number;
  /**
   * What the probe records and contaminates (see STRESS_PROBE); default: `full` when the
   * executor says it isolates, else `sandbox-dirs`.
   */
  probe?: 'full' | 'sandbox-dirs';
  /** Directories every process on the host shares; `full` records and writes them. */
  sharedDirs?: string[];
}

export function describeIsolationStress(name: string, factory: () => Promise<Executor>, options: StressOptions = {}): void {
  // The full count in `npm run test:soak`; 20 in `npm test` (the same checks on each task).
  const tasks = soakSize(options.tasks ?? 200, 20);
  const sharedDirs = options.sharedDirs ?? ['/tmp', '/var/tmp', '/dev/shm'];

  describe(`Isolation stress: ${name}`, function () {
    this.timeout(15 * 60_000);
    const suiteId = randomUUID().slice(0, 8);
    /** Prefix of every file the probes write; the host must never get one. */
    const tag = `peagen-contam-${suiteId}`;
    /** In the argv of every probe and every process it leaves behind. */
    const markerPrefix = `peagen-iso-${suiteId}`;
    let executor: Executor;
    let worker: ExecuteWorker | undefined;
    let workspace: string;
    let workspaceHash: string;

    /** Where a probe that escaped would have written on the host. */
    const hostResidueDirs = (): string[] => [...sharedDirs, '/etc', '/', os.homedir(), REPO, workspace];
    const hostResidue = (): string[] =>
      hostResidueDirs().flatMap((dir) => {
        try {
          return fs.readdirSync(dir).filter((entry) => entry.startsWith(tag)).map((entry) => path.join(dir, entry));
        } catch {
          return [];
        }
      });

    before(async () => {
      executor = await factory();
      const availability = await executor.available();
      assert.ok(availability.ok, `executor ${name} is not available: ${availability.ok ? '' : availability.reason}`);
      workspace = makeWorkspace();
      workspaceHash = hashTree(workspace);
      worker = new ExecuteWorker(executor);
    });

    after(async () => {
      await worker?.stop();
      await executor?.close();
      killMarked(markerPrefix);
      for (const file of hostResidue()) fs.rmSync(file, { recursive: true, force: true });
      if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
    });

    it(`runs ${tasks} sequential execute tasks that each see exactly what the first one saw`, async function () {
      const mode = options.probe ?? (executor.isolates ? 'full' : 'sandbox-dirs');
      let reference: unknown;
      let referenceLine = '';
      const wallMs: number[] = [];
      for (let index = 0; index < tasks; index++) {
        const marker = `${markerPrefix}-${index}x`;
        const run = await worker!.run({
          command: ['python3', 'probe.py', mode, marker, tag, JSON.stringify(sharedDirs)],
          workspace,
          files: { 'probe.py': STRESS_PROBE },
          limits: { timeoutMs: 30_000 },
        });
        const execution = executionOf(run);
        wallMs.push(run.elapsedMs);
        const problems: string[] = [];
        const [line = '', done] = execution.stdout.split('\n');
        if (execution.exitCode !== 0 || done !== 'contaminated' || execution.stoppedBy !== undefined) {
          problems.push(`the probe did not run to the end (exit ${execution.exitCode}, stopped by ${execution.stoppedBy}): ${execution.stderr.slice(0, 2_000)}`);
        }
        let record: unknown;
        try {
          record = JSON.parse(line);
        } catch {
          problems.push(`the probe printed no record: ${line.slice(0, 500)}`);
        }
        if (index === 0) {
          reference = record;
          referenceLine = line;
        } else if (record !== undefined) {
          try {
            assert.deepEqual(record, reference);
          } catch {
            problems.push(`its record differs from task 0's:\n  task 0: ${referenceLine}\n  task ${index}: ${line}`);
          }
        }
        const left = await survivors(marker);
        if (left.length > 0) {
          const commands = left.map((pid) => {
            try {
              return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
            } catch {
              return '(exited)';
            }
          });
          problems.push(`processes it started are still running on the host ${KILL_GRACE_MS} ms after it ended: ${left.join(', ')} (${commands.join(' | ')})`);
        }
        if (hashTree(workspace) !== workspaceHash) problems.push('the original workspace on the host changed');
        const residue = hostResidue();
        if (residue.length > 0) problems.push(`files it wrote appeared on the host: ${residue.join(', ')}`);
        if (problems.length > 0) assert.fail(`task ${index} of ${tasks} (${mode} probe):\n- ${problems.join('\n- ')}`);
      }
      const sorted = [...wallMs].sort((a, b) => a - b);
      const at = (q: number): number => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
      this.test!.title += ` [${mode} probe; per task median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms]`;
    });

    it('leaves nothing behind on the host: no marked process, no contamination file, workspace intact', () => {
      assert.deepEqual(hostProcessesWith(markerPrefix), []);
      assert.deepEqual(hostResidue(), []);
      assert.equal(hashTree(workspace), workspaceHash);
    });
  });
}

// ---------------------------------------------------------------------------------------
// 2. Hostile candidates

export interface HostileTraits extends ExecutorTraits {
  /**
   * Upper bound on the measured round trip of a trivial task (make, start and destroy one
   * sandbox plus the worker's bookkeeping); default 10 s. Past it the suite fails rather than
   * widen its deadline checks.
   */
  maxStartupMs?: number;
}

/** The deadline every hostile task gets. */
const HOSTILE_TIMEOUT_MS = 2_000;

/** while True: pass */
const INFINITE_LOOP = String.raw`
while True:
    pass
`;

/** argv: marker, limit. limit 0: every process forks forever; else the parent forks `limit` sleepers. */
const FORK_BOMB = String.raw`
import os, sys, time
limit = int(sys.argv[2])
made = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        time.sleep(0.01)
        continue
    if pid == 0:
        made = 0
        if limit:
            time.sleep(300)
            os._exit(0)
        continue
    made += 1
    if limit and made >= limit:
        time.sleep(300)
`;

const MEMORY_HOG = String.raw`
import time
chunks = []
for _ in range(64):
    chunks.append(b'\x01' * (16 << 20))
print('allocated 1 GiB', flush=True)
time.sleep(300)
`;

const STDOUT_FLOOD = String.raw`
import sys
block = b'x' * (1 << 16)
out = sys.stdout.buffer
for _ in range((1 << 30) // len(block)):
    out.write(block)
out.flush()
`;

/** argv: marker, port, host addresses (JSON), unix socket path, abstract socket name. */
const NETWORK_PROBE = String.raw`
import json, socket, sys
port, addresses, unix_path, abstract = int(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
outcome = {}
for address in addresses:
    try:
        socket.create_connection((address, port), timeout=0.3).close()
        outcome['tcp ' + address] = 'connected'
    except OSError as error:
        outcome['tcp ' + address] = 'failed: %s' % error
# node binds an abstract name with the whole sun_path (108 bytes, NUL-padded): match it.
for label, target in (('unix ' + unix_path, unix_path), ('abstract ' + abstract, ('\0' + abstract).ljust(108, '\0'))):
    try:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(0.3)
        client.connect(target)
        client.close()
        outcome[label] = 'connected'
    except OSError as error:
        outcome[label] = 'failed: %s' % error
print(json.dumps(outcome), flush=True)
`;

/** argv: marker, host home, "scan" | "own". Dumps everything secret it can find, to both streams. */
const SECRET_DUMP = String.raw`
import json, os, sys
host_home, scan = sys.argv[2], sys.argv[3] == 'scan'
def say(text):
    sys.stdout.write(text + '\n')
    sys.stderr.write(text + '\n')
say('environ ' + json.dumps(dict(os.environ)))
try:
    with open('/proc/self/environ', 'rb') as handle:
        say('/proc/self/environ ' + handle.read().decode(errors='replace').replace('\0', ' '))
except OSError as error:
    say('no /proc/self/environ: %s' % error)
homes = [os.path.expanduser('~')] + ([host_home] if scan else [])
for home in homes:
    directory = os.path.join(home, '.ssh')
    try:
        entries = os.listdir(directory)
    except OSError as error:
        say('cannot list %s: %s' % (directory, error))
        continue
    for entry in entries:
        try:
            with open(os.path.join(directory, entry), errors='replace') as handle:
                say('%s/%s: %s' % (directory, entry, handle.read()))
        except OSError as error:
            say('cannot read %s/%s: %s' % (directory, entry, error))
if scan:
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            for part in ('environ', 'cmdline'):
                try:
                    with open('/proc/%s/%s' % (entry, part), 'rb') as handle:
                        say('/proc/%s/%s %s' % (entry, part, handle.read().decode(errors='replace').replace('\0', ' ')))
                except OSError:
                    pass
`;

/** argv: marker, new host paths (JSON), existing host files to overwrite (JSON). */
const WRITE_OUTSIDE = String.raw`
import json, os, sys
marker, targets, canaries = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
outcome = {}
for path in targets + canaries:
    try:
        with open(path, 'w') as handle:
            handle.write(marker)
        outcome[path] = 'written (inside the sandbox)'
    except OSError as error:
        outcome[path] = 'refused: %s' % error.strerror
print(json.dumps(outcome), flush=True)
`;

/**
 * argv: marker, worker pid, host pid namespace. Kills its parent. Refuses (exit 3) only when
 * the parent is the worker itself in the host's pid namespace: then there is no sandbox
 * between the candidate and the worker and the kill would end this test run.
 */
const KILL_PARENT = String.raw`
import os, sys, time
worker_pid, host_pidns = int(sys.argv[2]), sys.argv[3]
try:
    same_ns = os.readlink('/proc/self/ns/pid') == host_pidns
except OSError:
    same_ns = True
parent = os.getppid()
if same_ns and parent == worker_pid:
    print('refusing: my parent is the worker itself', flush=True)
    sys.exit(3)
print('killing parent %d' % parent, flush=True)
os.kill(parent, 9)
time.sleep(300)
`;

/**
 * argv: marker, host pid namespace. Kills pid 1 of its pid namespace. Refuses (exit 3) in the
 * host's pid namespace, where pid 1 is the machine's init.
 */
const KILL_PID_1 = String.raw`
import os, sys, time
host_pidns = sys.argv[2]
try:
    same_ns = os.readlink('/proc/self/ns/pid') == host_pidns
except OSError:
    same_ns = True
if same_ns:
    print('refusing: this is the host pid namespace', flush=True)
    sys.exit(3)
print('killing pid 1', flush=True)
try:
    os.kill(1, 9)
except OSError as error:
    print('kill failed: %s' % error, flush=True)
time.sleep(300)
`;

export function describeHostileCandidates(name: string, factory: () => Promise<Executor>, traits: HostileTraits): void {
  describe(`Hostile candidates: ${name}`, function () {
    this.timeout(120_000);
    const suiteId = randomUUID();
    const markerPrefix = `peagen-hostile-${suiteId.slice(0, 8)}`;
    const secrets = {
      openai: `sk-test-planted-${suiteId}`,
      peagenToken: `peagen-token-planted-${suiteId}`,
      sshKey: `-----BEGIN OPENSSH PRIVATE KEY----- peagen-planted-key-${suiteId}`,
    };
    const savedEnv = { OPENAI_API_KEY: process.env.OPENAI_API_KEY, PEAGEN_TOKEN: process.env.PEAGEN_TOKEN };
    const sshDir = path.join(os.homedir(), '.ssh');
    let createdSshDir = false;
    let plantedKey: string | undefined;
    let decoy: ChildProcess | undefined;
    let executor: Executor;
    let worker: ExecuteWorker | undefined;
    let workspace: string;
    let workspaceHash: string;
    let canary: string;
    /** New files a hostile task tries to create on the host; none may appear. */
    let hostTargets: string[] = [];
    let startupSlackMs = 0;
    let counter = 0;
    let currentTest: Mocha.Test | undefined;

    /** Secrets a result must never contain; a non-isolating executor can read the host's files. */
    const forbidden = (): string[] => (traits.isolates ? [secrets.openai, secrets.peagenToken, secrets.sshKey] : [secrets.openai, secrets.peagenToken]);

    function assertNoSecrets(run: TaskRun, label: string): void {
      const text = JSON.stringify(run.result);
      for (const secret of forbidden()) assert.ok(!text.includes(secret), `${label}: a planted secret (${secret.slice(0, 24)}…) is in the task's result`);
    }

    before(async function () {
      executor = await factory();
      const availability = await executor.available();
      assert.ok(availability.ok, `executor ${name} is not available: ${availability.ok ? '' : availability.reason}`);

      // Secrets of the worker (its environment) and of the host user (~/.ssh).
      process.env.OPENAI_API_KEY = secrets.openai;
      process.env.PEAGEN_TOKEN = secrets.peagenToken;
      if (!fs.existsSync(sshDir)) {
        fs.mkdirSync(sshDir, { mode: 0o700 });
        createdSshDir = true;
      }
      // Never overwrite a real key: plant beside it when there is one.
      plantedKey = path.join(sshDir, fs.existsSync(path.join(sshDir, 'id_rsa')) ? `id_rsa_peagen_planted_${suiteId}` : 'id_rsa');
      fs.writeFileSync(plantedKey, `${secrets.sshKey}\n`, { mode: 0o600, flag: 'wx' });
      // A host process started with the secrets in its real environment (what a daemon
      // launched with OPENAI_API_KEY looks like in /proc/<pid>/environ).
      decoy = spawn('python3', ['-c', 'import time; time.sleep(600)', `${markerPrefix}-decoy`], {
        env: { ...process.env, OPENAI_API_KEY: secrets.openai, PEAGEN_TOKEN: secrets.peagenToken },
        stdio: 'ignore',
      });

      workspace = makeWorkspace();
      workspaceHash = hashTree(workspace);
      canary = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-canary-')), 'canary.txt');
      fs.writeFileSync(canary, 'canary\n');
      const newFile = `peagen-hostile-${suiteId}`;
      hostTargets = [path.join(REPO, newFile), path.join('/etc', newFile), path.join(os.homedir(), newFile), path.join(os.tmpdir(), newFile), path.join('/var/tmp', newFile)];
      worker = new ExecuteWorker(executor);

      // The fixed cost of one task (make, start and destroy a sandbox, queue round trip),
      // measured here with five trivial tasks. A hostile task may take its deadline, the 1 s kill
      // grace and this fixed cost, doubled to absorb jitter on a busy machine, at least 500 ms.
      let slowest = 0;
      for (let attempt = 0; attempt < 5; attempt++) {
        const run: TaskRun = await worker.run({ command: ['python3', '-c', 'print("warm")'], workspace });
        assert.equal(executionOf(run).stdout, 'warm\n');
        slowest = Math.max(slowest, run.elapsedMs);
      }
      const maxStartupMs = traits.maxStartupMs ?? 10_000;
      assert.ok(slowest <= maxStartupMs, `a trivial task takes ${Math.round(slowest)} ms (more than ${maxStartupMs} ms)`);
      startupSlackMs = Math.max(500, Math.ceil(2 * slowest));
    });

    beforeEach(function () {
      currentTest = this.currentTest;
    });

    after(async () => {
      await worker?.stop();
      await executor?.close();
      decoy?.kill('SIGKILL');
      killMarked(markerPrefix);
      if (savedEnv.OPENAI_API_KEY === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = savedEnv.OPENAI_API_KEY;
      if (savedEnv.PEAGEN_TOKEN === undefined) delete process.env.PEAGEN_TOKEN;
      else process.env.PEAGEN_TOKEN = savedEnv.PEAGEN_TOKEN;
      if (plantedKey) fs.rmSync(plantedKey, { force: true });
      if (createdSshDir) {
        try {
          fs.rmdirSync(sshDir); // only when empty: another run may have planted its own key meanwhile
        } catch {}
      }
      for (const target of hostTargets) fs.rmSync(target, { force: true });
      if (canary) fs.rmSync(path.dirname(canary), { recursive: true, force: true });
      if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
    });

    interface Hostile {
      label: string;
      program: string;
      args?: string[];
      limits?: LimitOverrides;
    }

    /**
     * Runs one hostile program as an execute task, then a benign task on the same worker.
     * Checks what holds for every hostile program; returns the hostile execution.
     */
    async function attack(hostile: Hostile): Promise<ExecutionResult> {
      const marker = `${markerPrefix}-t${++counter}x`;
      const workspaceBefore = hashTree(workspace);
      const run = await worker!.run({
        command: ['python3', 'hostile.py', marker, ...(hostile.args ?? [])],
        workspace,
        files: { 'hostile.py': hostile.program },
        limits: { timeoutMs: HOSTILE_TIMEOUT_MS, ...hostile.limits },
      });
      const execution = executionOf(run);
      const bound = HOSTILE_TIMEOUT_MS + KILL_GRACE_MS + startupSlackMs;
      assert.ok(
        run.elapsedMs <= bound,
        `${hostile.label}: the task took ${Math.round(run.elapsedMs)} ms, more than deadline ${HOSTILE_TIMEOUT_MS} + kill grace ${KILL_GRACE_MS} + startup slack ${startupSlackMs} ms`,
      );
      if (currentTest) currentTest.title += ` [${Math.round(run.elapsedMs)} ms, bound ${bound} ms]`;
      assertNoSecrets(run, hostile.label);
      assert.deepEqual(await survivors(marker), [], `${hostile.label}: processes it started outlived the task by more than ${KILL_GRACE_MS} ms`);

      const next = await worker!.run({ command: ['python3', '-c', 'print("next")'], workspace, limits: { timeoutMs: 30_000 } });
      const nextExecution = executionOf(next);
      assert.equal(nextExecution.exitCode, 0, `the task after ${hostile.label} failed: ${nextExecution.stderr}`);
      assert.equal(nextExecution.stdout, 'next\n');
      assert.equal(nextExecution.stoppedBy, undefined);
      assertNoSecrets(next, `the task after ${hostile.label}`);
      assert.equal(hashTree(workspace), workspaceBefore, `${hostile.label}: the original workspace changed`);
      return execution;
    }

    function assertStopped(execution: ExecutionResult, reason: StopReason, label: string): void {
      assert.equal(execution.stoppedBy, reason, `${label}: stopped by ${execution.stoppedBy} (exit ${execution.exitCode}, signal ${execution.signal}); stderr: ${execution.stderr.slice(0, 1_000)}`);
    }

    it('an infinite loop is stopped at its deadline (timeout) and the worker runs the next task', async () => {
      assertStopped(await attack({ label: 'infinite loop', program: INFINITE_LOOP }), 'timeout', 'infinite loop');
    });

    if (traits.limitsPids) {
      it('a fork bomb is stopped by the process limit (pids) and the worker runs the next task', async () => {
        assertStopped(await attack({ label: 'fork bomb', program: FORK_BOMB, args: ['0'], limits: { pids: 64 } }), 'pids', 'fork bomb');
      });
    } else {
      // Without a process limit an unbounded bomb would take the host down: 100 sleepers
      // check that everything a candidate forked dies with it at the deadline.
      it('a bounded fork bomb (100 sleepers) is stopped at its deadline with every child', async () => {
        assertStopped(await attack({ label: 'fork bomb (bounded)', program: FORK_BOMB, args: ['100'] }), 'timeout', 'fork bomb (bounded)');
      });
    }

    if (traits.limitsMemory) {
      it('a memory hog is stopped by the memory limit (memory) and the worker runs the next task', async () => {
        const execution = await attack({ label: 'memory hog', program: MEMORY_HOG, limits: { memoryMb: 128 } });
        assertStopped(execution, 'memory', 'memory hog');
        assert.doesNotMatch(execution.stdout, /allocated 1 GiB/);
      });
    }

    it('1 GB written to stdout is cut off (output), truncated to the limit, and the worker runs the next task', async () => {
      const outputBytes = 1 << 20;
      const execution = await attack({ label: 'stdout flood', program: STDOUT_FLOOD, limits: { outputBytes } });
      assertStopped(execution, 'output', 'stdout flood');
      assert.equal(execution.stdoutTruncated, true);
      assert.ok(execution.stdout.length <= outputBytes, `kept ${execution.stdout.length} bytes of stdout`);
    });

    it('dumping the environment leaks no secret of the worker', async () => {
      const execution = await attack({ label: 'secret dump', program: SECRET_DUMP, args: [os.homedir(), 'own'] });
      assert.equal(execution.exitCode, 0, execution.stderr.slice(0, 1_000));
      assert.match(execution.stdout, /^environ \{/, 'the dump ran');
    });

    if (traits.isolates) {
      it("reading the host user's ~/.ssh and every visible process's environment leaks no secret", async () => {
        // The same dump, asserted against the planted key and the decoy host process too
        // (forbidden() includes the key for isolating executors; attack() checks it).
        const execution = await attack({ label: 'ssh key and /proc dump', program: SECRET_DUMP, args: [os.homedir(), 'scan'] });
        assert.equal(execution.exitCode, 0, execution.stderr.slice(0, 1_000));
        assert.ok(decoy?.exitCode === null, 'the decoy host process is still running (so it was there to be found)');
        assert.ok(fs.readFileSync(plantedKey!, 'utf8').includes(secrets.sshKey), 'the planted key is still on the host');
      });

      it('cannot reach a server on the host: TCP on 127.0.0.1 and the host addresses, a unix socket, an abstract socket', async () => {
        const contacts: string[] = [];
        const serve = (label: string): net.Server =>
          net.createServer((socket) => {
            contacts.push(label);
            socket.destroy();
          });
        const tcp = serve('tcp');
        const unixDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-sock-'));
        const unixPath = path.join(unixDir, 'daemon.sock');
        const unix = serve('unix');
        const abstractName = `${markerPrefix}-abstract`;
        const abstract = serve('abstract');
        try {
          await new Promise<void>((resolve) => tcp.listen(0, '0.0.0.0', resolve));
          await new Promise<void>((resolve) => unix.listen(unixPath, resolve));
          await new Promise<void>((resolve) => abstract.listen(`\0${abstractName}`, resolve));
          const port = (tcp.address() as net.AddressInfo).port;
          const addresses = [
            '127.0.0.1',
            ...Object.values(os.networkInterfaces())
              .flat()
              .filter((info) => info && info.family === 'IPv4' && !info.internal)
              .map((info) => info!.address),
          ];
          const execution = await attack({ label: 'network', program: NETWORK_PROBE, args: [String(port), JSON.stringify(addresses), unixPath, abstractName] });
          assert.equal(execution.exitCode, 0, execution.stderr.slice(0, 1_000));
          const outcome = JSON.parse(execution.stdout) as Record<string, string>;
          assert.deepEqual(Object.keys(outcome).length, addresses.length + 2, execution.stdout);
          assert.deepEqual(
            Object.entries(outcome).filter(([, value]) => value === 'connected'),
            [],
            'the candidate connected',
          );
          assert.deepEqual(contacts, [], 'a host server saw a connection from the sandbox');
        } finally {
          tcp.close();
          unix.close();
          abstract.close();
          fs.rmSync(unixDir, { recursive: true, force: true });
        }
      });

      it('writing outside the workspace (repo, /etc, host HOME, /tmp, /var/tmp, existing files) changes nothing on the host', async () => {
        const canaries = [canary, path.join(workspace, 'candidate.txt')];
        const execution = await attack({ label: 'write outside', program: WRITE_OUTSIDE, args: [JSON.stringify(hostTargets), JSON.stringify(canaries)] });
        assert.equal(execution.exitCode, 0, execution.stderr.slice(0, 1_000));
        assert.deepEqual(hostTargets.filter((target) => fs.existsSync(target)), [], `files appeared on the host; the candidate saw: ${execution.stdout}`);
        assert.equal(fs.readFileSync(canary, 'utf8'), 'canary\n', 'a host file was overwritten');
      });

      it('kill -9 of its own parent: the worker survives, the task ends with a result, the next task runs', async () => {
        const execution = await attack({ label: 'kill parent', program: KILL_PARENT, args: [String(process.pid), fs.readlinkSync('/proc/self/ns/pid')] });
        assert.doesNotMatch(execution.stdout, /refusing/, 'the candidate ran as a direct child of the worker');
      });

      it('kill -9 of pid 1 of its namespace: the worker survives, the task ends with a result, the next task runs', async () => {
        const execution = await attack({ label: 'kill pid 1', program: KILL_PID_1, args: [fs.readlinkSync('/proc/self/ns/pid')] });
        assert.doesNotMatch(execution.stdout, /refusing/, 'the candidate shares the host pid namespace');
      });
    }

    it('leaves the host unharmed: planted files intact, nothing written, no marked process', () => {
      assert.ok(fs.readFileSync(plantedKey!, 'utf8').includes(secrets.sshKey));
      assert.equal(fs.readFileSync(canary, 'utf8'), 'canary\n');
      assert.deepEqual(hostTargets.filter((target) => fs.existsSync(target)), []);
      assert.equal(hashTree(workspace), workspaceHash);
      assert.deepEqual(hostProcessesWith(markerPrefix).filter((pid) => pid !== decoy?.pid), []);
      assert.equal(process.env.OPENAI_API_KEY, secrets.openai, 'the worker environment is as planted');
    });
  });
}
