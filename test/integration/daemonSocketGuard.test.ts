import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { DaemonClient } from '../../daemon/rpc/client';
import { GetResult, Status, SubmitTask } from '../../shared/protocol';
import { DaemonProcess } from '../fixtures/daemonProcess';

const AUTH_TIMEOUT_MS = 1_500;
/** Generous: the assertions are about "answers at all" and "is closed at all", not speed. */
const PATIENCE_MS = 20_000;

/** A raw connection to the daemon socket that records what comes back and when it closes. */
class RawPeer {
  readonly socket: net.Socket;
  readonly replies: Array<{ id?: unknown; error?: { code: number; message: string } }> = [];
  readonly closed: Promise<void>;
  private buffer = Buffer.alloc(0);

  constructor(address: string) {
    this.socket = net.connect({ path: address.replace(/^unix:/, '') });
    // The daemon cutting a flooding peer off shows up here as EPIPE or ECONNRESET.
    this.socket.on('error', () => {});
    this.socket.on('data', (chunk: Buffer) => this.collect(chunk));
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  connected(): Promise<void> {
    return new Promise((resolve) => this.socket.once('connect', () => resolve()));
  }

  private collect(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString())?.[1]);
      const start = headerEnd + 4;
      if (this.buffer.length < start + length) return;
      this.replies.push(JSON.parse(this.buffer.subarray(start, start + length).toString()) as RawPeer['replies'][number]);
      this.buffer = this.buffer.subarray(start + length);
    }
  }
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, delay(ms, undefined, { ref: false }).then(() => assert.fail(`${what} within ${ms} ms`))]);
}

describe('daemon socket guard (real process)', function () {
  this.timeout(60_000);
  const daemon = new DaemonProcess();
  let address: string;

  before(async () => {
    ({ address } = await daemon.start([], { PEAGEN_DAEMON_AUTH_TIMEOUT_MS: String(AUTH_TIMEOUT_MS) }));
  });
  after(() => daemon.stop());

  const connect = (): Promise<DaemonClient> => DaemonClient.connect(address, daemon.token, 'test');

  it('cuts off a 50 MB line without a header while other clients keep being served', async () => {
    const bystander = await connect();
    const flooder = new RawPeer(address);
    await flooder.connected();
    flooder.socket.write(Buffer.alloc(50 * 1024 * 1024, 'a'));

    const status = await within(bystander.request(Status.type), 10_000, 'an authenticated client is answered during the flood');
    assert.equal(status.pid, daemon.child?.pid);
    const newcomer = await within(connect(), 10_000, 'a new client can connect during the flood');
    assert.equal((await within(newcomer.request(Status.type), 10_000, 'the new client is answered')).pid, daemon.child?.pid);

    await within(flooder.closed, PATIENCE_MS, 'the flooding connection is closed');
    assert.match(flooder.replies[0]?.error?.message ?? '', /header/, JSON.stringify(flooder.replies));
    assert.ok(daemon.alive);
    bystander.close();
    newcomer.close();
  });

  it('refuses a large Content-Length before the handshake', async () => {
    const peer = new RawPeer(address);
    await peer.connected();
    peer.socket.write('Content-Length: 100000000\r\n\r\n{"jsonrpc":"2.0"');
    await within(peer.closed, PATIENCE_MS, 'the connection is closed');
    assert.equal(peer.replies[0]?.error?.code, -32600);
    assert.match(peer.replies[0]?.error?.message ?? '', /100000000 bytes.*limit.*before the handshake/);
  });

  it('closes a connection that does not authenticate in time, and keeps an authenticated one open', async () => {
    const authenticated = await connect();
    const idle = new RawPeer(address);
    await idle.connected();
    await within(idle.closed, PATIENCE_MS, 'the idle unauthenticated connection is closed');
    assert.match(idle.replies[0]?.error?.message ?? '', /handshake/);
    // Well past the deadline the authenticated connection is still served.
    await delay(AUTH_TIMEOUT_MS);
    assert.equal((await authenticated.request(Status.type)).pid, daemon.child?.pid);
    authenticated.close();
  });

  it('serves large legitimate messages to an authenticated client, and cuts off one beyond the limit', async () => {
    const client = await connect();
    const message = 'x'.repeat(4 * 1024 * 1024);
    const { taskId } = await client.request(SubmitTask.type, { kind: 'echo', payload: { message } });
    const { result } = await client.request(GetResult.type, { taskId, waitMs: 30_000 });
    assert.equal(result?.status, 'ok');
    assert.equal((result?.data as { message: string }).message.length, message.length);

    // Refused and cut off: the request fails instead of waiting (EPIPE or "closed the connection").
    await assert.rejects(client.request(SubmitTask.type, { kind: 'echo', payload: { message: 'x'.repeat(17 * 1024 * 1024) } }));
    client.close();
    const other = await connect();
    assert.equal((await other.request(Status.type)).pid, daemon.child?.pid, 'the daemon serves on');
    other.close();
  });
});
