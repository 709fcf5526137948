import * as assert from 'node:assert/strict';
import { type ChildProcess, fork, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createProtocolConnection, IPCMessageReader, IPCMessageWriter } from 'vscode-languageserver-protocol/node';
import { isAlive } from '../../shared/processes';
import type { Status } from '../../shared/protocol';
import { CLI, DAEMON, tempDir } from '../fixtures/paths';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface StartAnswer {
  started: boolean;
  alreadyRunning?: boolean;
  pid: number;
  address: string;
}

/** One state directory (PEAGEN_HOME) and a project directory without peagen.json. */
class StateDir {
  readonly home = tempDir('lock-home');
  readonly cwd = tempDir('lock-project');

  cli(...args: string[]): Run {
    const run = spawnSync(process.execPath, [CLI, ...args], { cwd: this.cwd, env: this.env, encoding: 'utf8', timeout: 45_000 });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  /** The same, without blocking this process: for commands that must run at the same time. */
  cliAsync(...args: string[]): Promise<Run> {
    return this.cliAsyncWith({}, ...args);
  }

  /** The same with more environment variables. */
  cliAsyncWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: this.cwd, env: { ...this.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  }

  json<T>(...args: string[]): T {
    const run = this.cli('--json', ...args);
    assert.equal(run.code, 0, `peagen ${args.join(' ')}: ${run.stderr}`);
    return JSON.parse(run.stdout) as T;
  }

  get env(): NodeJS.ProcessEnv {
    return { ...process.env, PEAGEN_HOME: this.home };
  }

  file(name: string): string {
    return fs.readFileSync(path.join(this.home, name), 'utf8');
  }

  cleanUp(): void {
    this.cli('daemon', 'stop', '--no-drain');
    fs.rmSync(this.home, { recursive: true, force: true });
    fs.rmSync(this.cwd, { recursive: true, force: true });
  }
}

/** A loopback port nothing listens on (bound once, then released). */
async function unusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function assertOneCleanLine(run: Run, pattern: RegExp): void {
  assert.equal(run.code, 2, `exit code 2 expected: ${run.stderr}`);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line expected, got:\n${run.stderr}`);
  assert.match(lines[0] ?? '', pattern);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
}

describe('one daemon per state directory (real processes)', function () {
  this.timeout(90_000);
  let state: StateDir;
  beforeEach(() => (state = new StateDir()));
  afterEach(() => state.cleanUp());

  it('a second daemon leaves the first one reachable: CLI start, a bare dist/daemon.js, an editor-spawned --node-ipc daemon', async () => {
    const first = state.json<StartAnswer>('daemon', 'start');
    assert.equal(first.started, true);
    const token = state.file('daemon.token');
    const record = state.file('daemon.json');

    const again = state.json<StartAnswer>('daemon', 'start');
    assert.equal(again.started, false);
    assert.equal(again.alreadyRunning, true);
    assert.equal(again.pid, first.pid);
    assert.match(state.cli('daemon', 'start').stdout, new RegExp(`already running \\(pid ${first.pid}, ${first.address}\\)`));

    // A second background daemon, as `peagen daemon start` or a service manager spawns it.
    const bare = spawn(process.execPath, [DAEMON], { env: state.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let bareLog = '';
    bare.stderr.on('data', (chunk: Buffer) => (bareLog += chunk.toString()));
    assert.equal(await waitForExit(bare), 0, bareLog);
    assert.match(bareLog, new RegExp(`already running \\(pid ${first.pid}`));

    // A daemon spawned by an editor: it serves its editor over the pipe, and nothing else.
    const editorDaemon = fork(DAEMON, ['--node-ipc'], { env: state.env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let editorLog = '';
    editorDaemon.stderr?.on('data', (chunk: Buffer) => (editorLog += chunk.toString()));
    const connection = createProtocolConnection(new IPCMessageReader(editorDaemon), new IPCMessageWriter(editorDaemon));
    connection.listen();
    try {
      await connection.sendRequest('initialize', { processId: process.pid, capabilities: {}, rootUri: null });
      const status = await connection.sendRequest<Status.Response>('peagen/status');
      assert.equal(status.pid, editorDaemon.pid, 'the editor is served by its own daemon');
      assert.equal(status.listen, undefined, 'it does not listen on a shared socket');
      assert.match(editorLog, new RegExp(`pid ${first.pid}`), 'its log names the daemon that holds the state directory');
      assert.equal(editorLog.split('\n').filter((line) => line.includes(`pid ${first.pid}`)).length, 1, editorLog);
    } finally {
      const exited = waitForExit(editorDaemon);
      await connection.sendRequest('shutdown').catch(() => {});
      await connection.sendNotification('exit').catch(() => {});
      await exited;
      connection.dispose();
    }

    assert.equal(state.file('daemon.token'), token, 'nobody else wrote the token');
    assert.equal(state.file('daemon.json'), record, 'nobody else wrote the record');
    const status = state.json<{ pid: number; running: boolean }>('daemon', 'status');
    assert.equal(status.pid, first.pid);
    const stopped = state.json<{ stopped: boolean; pid: number }>('daemon', 'stop');
    assert.deepEqual(stopped, { stopped: true, pid: first.pid });
    for (const left of ['daemon.token', 'daemon.json', 'daemon.lock']) assert.equal(fs.existsSync(path.join(state.home, left)), false, `${left} is removed`);
  });

  it('two `daemon start` at the same time result in exactly one daemon', async () => {
    const runs = await Promise.all([state.cliAsync('--json', 'daemon', 'start'), state.cliAsync('--json', 'daemon', 'start')]);
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    const answers = runs.map((run) => JSON.parse(run.stdout) as StartAnswer);
    assert.equal(answers.filter((answer) => answer.started).length, 1, JSON.stringify(answers));
    assert.equal(answers[0]?.pid, answers[1]?.pid, 'both name the same daemon');
    const status = state.json<{ pid: number }>('daemon', 'status');
    assert.equal(status.pid, answers[0]?.pid);
    const log = state.file('daemon.log');
    assert.equal(log.split('\n').filter((line) => line.includes('listening on')).length, 1, log);
  });

  it('takes over the state directory of a daemon that was killed', async () => {
    const first = state.json<StartAnswer>('daemon', 'start');
    process.kill(first.pid, 'SIGKILL');
    while (isAlive(first.pid)) await delay(20);
    const second = state.json<StartAnswer>('daemon', 'start');
    assert.equal(second.started, true);
    assert.notEqual(second.pid, first.pid);
    assert.equal(state.json<{ pid: number }>('daemon', 'status').pid, second.pid);
  });

  it('`daemon start` with its Redis down exits 1 with the daemon\'s own reason, and leaves no daemon behind', async () => {
    const port = await unusedPort();
    const started = Date.now();
    const run = await state.cliAsyncWith({ QUEUE_URL: `redis://127.0.0.1:${port}` }, 'daemon', 'start');
    assert.equal(run.code, 1, `exit code 1 expected:\n${run.stdout}${run.stderr}`);
    assert.ok(Date.now() - started < 30_000, 'within a bounded wait');
    assert.doesNotMatch(run.stdout, /daemon started/);
    assert.match(run.stderr, new RegExp(`^peagen: the daemon did not start: could not reach Redis at redis://127\\.0\\.0\\.1:${port}`));
    assert.match(run.stderr, /redis-server|QUEUE_URL/, 'it says what to do');
    assert.match(run.stderr, /log: .*daemon\.log/);
    assert.equal(fs.existsSync(path.join(state.home, 'daemon.json')), false, 'no record of a daemon');
    assert.equal(state.cli('daemon', 'status').code, 3, 'no daemon runs');
    // The next start (Redis fixed) works, and its answer is not taken from the old lines.
    const next = state.json<StartAnswer>('daemon', 'start');
    assert.equal(next.started, true);
  });

  it('`daemon start` returns once the daemon answers: the next command reaches it at once', () => {
    const started = state.json<StartAnswer>('daemon', 'start');
    const status = state.json<{ pid: number; queue: { backend: string } }>('daemon', 'status');
    assert.equal(status.pid, started.pid);
    assert.equal(status.queue.backend, 'memory');
    assert.match(state.file('daemon.log'), new RegExp(`ready \\(pid ${started.pid}`), 'the daemon said it was ready before start returned');
  });

  it('refuses a bad --listen address with exit code 2 and one line', () => {
    assertOneCleanLine(state.cli('daemon', 'start', '--listen', 'BAD'), /"BAD" is not a daemon address/);
    assertOneCleanLine(state.cli('daemon', 'start', '--foreground', '--listen', 'tcp:8.8.8.8:80'), /loopback only/);
    const json = state.cli('--json', 'daemon', 'start', '--listen', 'BAD');
    assert.equal(json.code, 2, json.stderr);
    assert.doesNotMatch(json.stderr + json.stdout, /\n\s+at /, 'no stack trace');
    const document = JSON.parse(json.stdout) as { error: { code: string; message: string; exitCode: number } };
    assert.equal(document.error.exitCode, 2);
    assert.match(document.error.message, /"BAD" is not a daemon address/);
    assert.equal(fs.existsSync(path.join(state.home, 'daemon.json')), false, 'no daemon was started');
  });

  it('refuses a bad daemon.listen in peagen.json the same way', () => {
    fs.writeFileSync(path.join(state.cwd, 'peagen.json'), JSON.stringify({ daemon: { listen: 'udp:nowhere' } }));
    assertOneCleanLine(state.cli('daemon', 'start'), /peagen\.json.*"udp:nowhere" is not a daemon address/);
    assert.equal(fs.existsSync(path.join(state.home, 'daemon.json')), false, 'no daemon was started');
  });
});
