import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createProtocolConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver-protocol/node';
import { DaemonClient } from '../../daemon/rpc/client';
import {
  CancelTask,
  GetResult,
  Handshake,
  PeagenErrorCodes,
  PROTOCOL_VERSION,
  Shutdown,
  Status,
  SubmitTask,
  type TaskUpdate,
} from '../../shared/protocol';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { DAEMON, TEST_PLUGIN } from '../fixtures/paths';

/** Sends raw bytes on a fresh socket and collects the JSON-RPC messages that come back. */
async function rawExchange(address: string, frames: string[], expected: number): Promise<Array<Record<string, unknown>>> {
  const socket = net.connect({ path: address.replace(/^unix:/, '') });
  const replies: Array<Record<string, unknown>> = [];
  let buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) break;
      const length = Number(/Content-Length: (\d+)/.exec(buffer.subarray(0, headerEnd).toString())?.[1]);
      const start = headerEnd + 4;
      if (buffer.length < start + length) break;
      replies.push(JSON.parse(buffer.subarray(start, start + length).toString()) as Record<string, unknown>);
      buffer = buffer.subarray(start + length);
    }
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  for (const frame of frames) {
    socket.write(`Content-Length: ${Buffer.byteLength(frame)}\r\n\r\n${frame}`);
    await delay(30);
  }
  for (let i = 0; i < 100 && replies.length < expected; i++) await delay(30);
  socket.destroy();
  return replies;
}

describe('daemon JSON-RPC (real process)', function () {
  this.timeout(30_000);
  const daemon = new DaemonProcess();
  let address: string;

  before(async () => {
    fs.writeFileSync(path.join(daemon.home, 'peagen.json'), JSON.stringify({ worker: { plugins: [TEST_PLUGIN] }, queue: { retryBaseMs: 10 } }));
    ({ address } = await daemon.start(['--config', path.join(daemon.home, 'peagen.json')]));
  });
  after(() => daemon.stop());

  async function connect(): Promise<DaemonClient> {
    return DaemonClient.connect(address, daemon.token, 'test');
  }

  it('writes its address and a token only its user can read', () => {
    assert.match(address, /^unix:/);
    assert.equal(fs.statSync(path.join(daemon.home, 'daemon.token')).mode & 0o077, 0);
    assert.equal(fs.statSync(address.slice('unix:'.length)).mode & 0o077, 0);
  });

  it('reports its version, queue backend and workers', async () => {
    const client = await connect();
    assert.equal(client.handshake.protocolVersion, PROTOCOL_VERSION);
    const status = await client.request(Status.type);
    assert.equal(status.queue.backend, 'memory');
    assert.equal(status.workers.count, 2);
    assert.deepEqual(status.workers.caps, ['cpu']);
    assert.equal(status.listen, address);
    assert.ok(['docker', 'bwrap', 'process'].includes(status.sandbox.executor), 'the status names the sandbox executor');
    assert.ok(status.sandbox.reason.length > 0);
    client.close();
  });

  it('runs a submitted task on a matching worker, returns its result and reports its states', async () => {
    const client = await connect();
    const updates: TaskUpdate.Params[] = [];
    client.onTaskUpdate((update) => {
      updates.push(update);
    });
    const { taskId } = await client.request(SubmitTask.type, { kind: 'echo', payload: { message: 'round trip' }, requires: ['cpu'] });
    const { result } = await client.request(GetResult.type, { taskId, waitMs: 10_000 });
    assert.equal(result?.status, 'ok');
    assert.deepEqual(result?.data, { message: 'round trip' });
    await delay(100);
    assert.deepEqual(
      updates.filter((update) => update.taskId === taskId).map((update) => update.state),
      ['queued', 'running', 'done'],
    );
    client.close();
  });

  it("sends a task's updates to the client that submitted it, not to the others", async () => {
    const submitter = await connect();
    const bystander = await connect();
    const seenBy = (client: DaemonClient): TaskUpdate.Params[] => {
      const updates: TaskUpdate.Params[] = [];
      client.onTaskUpdate((update) => {
        updates.push(update);
      });
      return updates;
    };
    const submitterSaw = seenBy(submitter);
    const bystanderSaw = seenBy(bystander);
    const { taskId } = await submitter.request(SubmitTask.type, { kind: 'echo', payload: { message: 'mine' } });
    assert.equal((await submitter.request(GetResult.type, { taskId, waitMs: 10_000 })).result?.status, 'ok');
    // The bystander's own task ends after the other one did, and one connection's messages
    // arrive in order: once its own `done` is in, any update of the other task would be too.
    const own = await bystander.request(SubmitTask.type, { kind: 'echo', payload: { message: 'theirs' } });
    await bystander.request(GetResult.type, { taskId: own.taskId, waitMs: 10_000 });
    for (let i = 0; i < 200 && !bystanderSaw.some((u) => u.taskId === own.taskId && u.state === 'done'); i++) await delay(50);
    for (let i = 0; i < 200 && !submitterSaw.some((u) => u.taskId === taskId && u.state === 'done'); i++) await delay(50);
    assert.deepEqual(
      bystanderSaw.map((update) => [update.taskId, update.state]),
      [own.taskId, own.taskId, own.taskId].map((id, i) => [id, ['queued', 'running', 'done'][i]]),
      'the bystander sees its own task only',
    );
    assert.deepEqual(
      submitterSaw.map((update) => [update.taskId, update.state]),
      [[taskId, 'queued'], [taskId, 'running'], [taskId, 'done']],
    );
    submitter.close();
    bystander.close();
  });

  it('refuses a task no worker here can run, saying why', async () => {
    const client = await connect();
    await assert.rejects(client.request(SubmitTask.type, { kind: 'echo', requires: ['gpu'] }), /no worker here can run/);
    client.close();
  });

  it('cancels a queued or running task', async () => {
    const client = await connect();
    const { taskId } = await client.request(SubmitTask.type, { kind: 'sleep', payload: { ms: 60_000 } });
    await delay(200);
    assert.deepEqual(await client.request(CancelTask.type, { taskId }), { cancelled: true });
    const { result } = await client.request(GetResult.type, { taskId, waitMs: 5_000 });
    assert.equal(result?.error?.code, 'cancelled');
    client.close();
  });

  it('serves nothing to a client without the token', async () => {
    await assert.rejects(DaemonClient.connect(address, 'wrong-token', 'test'), (error: { code?: number }) => error.code === PeagenErrorCodes.Unauthorized);
    const replies = await rawExchange(address, [JSON.stringify({ jsonrpc: '2.0', id: 1, method: Status.method })], 1);
    assert.equal((replies[0]?.error as { code: number }).code, PeagenErrorCodes.Unauthorized);
  });

  it('refuses a client of another protocol version', async () => {
    const replies = await rawExchange(
      address,
      [JSON.stringify({ jsonrpc: '2.0', id: 1, method: Handshake.method, params: { protocolVersion: 999, client: 'old', token: daemon.token } })],
      1,
    );
    const error = replies[0]?.error as { code: number; message: string };
    assert.equal(error.code, PeagenErrorCodes.ProtocolMismatch);
    assert.match(error.message, /protocol mismatch/);
  });

  it('answers malformed messages with JSON-RPC errors and keeps serving', async () => {
    const handshake = JSON.stringify({ jsonrpc: '2.0', id: 7, method: Handshake.method, params: { protocolVersion: PROTOCOL_VERSION, client: 'raw', token: daemon.token } });
    const replies = await rawExchange(
      address,
      [
        '{"jsonrpc": "2.0", "id": 1, "method": ', // cut-off JSON
        '[1, 2, 3]', // JSON, but not JSON-RPC
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: SubmitTask.method, params: { kind: 'echo' } }), // before the handshake
        handshake,
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: SubmitTask.method, params: { payload: 'no kind' } }), // invalid params
        JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'peagen/noSuchMethod', params: {} }),
        JSON.stringify({ jsonrpc: '2.0', id: 5, method: Status.method }),
      ],
      7,
    );
    const codeOf = (id: number | null): number | undefined =>
      (replies.find((reply) => reply.id === id && reply.error)?.error as { code: number } | undefined)?.code;
    const nullIdCodes = replies.filter((reply) => reply.id === null).map((reply) => (reply.error as { code: number }).code);
    assert.ok(nullIdCodes.includes(-32700), `a parse error must be answered: ${JSON.stringify(replies)}`);
    assert.ok(nullIdCodes.includes(-32600), 'a non-JSON-RPC value must be answered as an invalid request');
    assert.equal(codeOf(2), PeagenErrorCodes.Unauthorized);
    assert.equal(codeOf(3), -32602, 'invalid params');
    assert.equal(codeOf(4), -32601, 'method not found');
    assert.equal((replies.find((reply) => reply.id === 5)?.result as Status.Response | undefined)?.queue.backend, 'memory');
    assert.ok(daemon.alive, 'the daemon is still running');
    const client = await connect();
    assert.equal((await client.request(Status.type)).queue.backend, 'memory');
    client.close();
  });

  it('stops on request and removes its address file', async () => {
    const client = await connect();
    const exited = new Promise((resolve) => daemon.child?.once('exit', resolve));
    await client.request(Shutdown.type, { drain: true });
    assert.equal(await exited, 0);
    assert.equal(fs.existsSync(path.join(daemon.home, 'daemon.json')), false);
  });
});

describe('daemon over stdio, as an editor spawns it', function () {
  this.timeout(20_000);

  it('speaks the LSP lifecycle, serves requests without a token, survives garbage and exits with its editor', async () => {
    const daemon = new DaemonProcess();
    const child = spawn(process.execPath, [DAEMON, '--stdio', '--no-listen'], {
      env: { ...process.env, PEAGEN_HOME: daemon.home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    connection.listen();
    const init = await connection.sendRequest<{ serverInfo: { name: string } }>('initialize', { processId: process.pid, capabilities: {}, rootUri: null });
    assert.equal(init.serverInfo.name, 'peagen-daemon');
    child.stdin.write('Content-Length: 5\r\n\r\n{oops');
    const status = await connection.sendRequest<Status.Response>(Status.method);
    assert.equal(status.queue.backend, 'memory');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    assert.equal(await exited, 0);
    connection.dispose();
    await daemon.stop();
  });
});

describe('daemon spawned over IPC', function () {
  this.timeout(20_000);

  it('stops by itself when the editor that spawned it dies without a goodbye', async () => {
    const home = new DaemonProcess();
    // A short-lived "editor" forks the daemon the way vscode-languageclient does, then dies.
    const editor = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('child_process').fork(${JSON.stringify(DAEMON)}, ['--node-ipc', '--no-listen'], { stdio: ['pipe', 'pipe', 'pipe', 'ipc'] });
         console.log(c.pid); setTimeout(() => process.exit(0), 1000);`,
      ],
      { env: { ...process.env, PEAGEN_HOME: home.home }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    editor.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => editor.once('exit', resolve));
    const daemonPid = Number(out.trim());
    assert.ok(daemonPid > 0);
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      await delay(100);
      try {
        process.kill(daemonPid, 0);
      } catch {
        alive = false;
      }
    }
    if (alive) process.kill(daemonPid, 'SIGKILL');
    assert.equal(alive, false, 'an orphaned daemon must not keep running');
    await home.stop();
  });
});
