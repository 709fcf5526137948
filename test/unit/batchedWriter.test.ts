import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { type Message, SocketMessageReader } from 'vscode-languageserver-protocol/node';
import { BatchedSocketMessageWriter } from '../../daemon/rpc/batchedWriter';

/** A connected pair of loopback sockets. */
async function socketPair(): Promise<{ near: net.Socket; far: net.Socket; close(): void }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const near = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const far = await accepted;
  return {
    near,
    far,
    close: () => {
      near.destroy();
      far.destroy();
      server.close();
    },
  };
}

describe('BatchedSocketMessageWriter', () => {
  it('delivers every message whole and in order, however many are written at once', async () => {
    const { near, far, close } = await socketPair();
    try {
      const writer = new BatchedSocketMessageWriter(near);
      const reader = new SocketMessageReader(far);
      const received: Message[] = [];
      const allIn = new Promise<void>((resolve) =>
        reader.listen((message) => {
          received.push(message);
          if (received.length === 203) resolve();
        }),
      );
      const sent: Message[] = [];
      // Multi-byte text: Content-Length counts bytes, not characters.
      for (let i = 0; i < 200; i++) sent.push({ jsonrpc: '2.0', method: 'note', params: { i, text: `é ✓ 𝄞 ${i}` } } as Message);
      const writes = sent.map((message) => writer.write(message));
      await Promise.all(writes);
      // Later turns, and a large message, still arrive after the first batch.
      const later: Message[] = [
        { jsonrpc: '2.0', id: 1, result: 'x'.repeat(1_000_000) } as Message,
        { jsonrpc: '2.0', id: 2, result: null } as Message,
        { jsonrpc: '2.0', id: 3, result: 'last' } as Message,
      ];
      for (const message of later) await writer.write(message);
      await allIn;
      assert.deepEqual(received, [...sent, ...later]);
      reader.dispose();
    } finally {
      close();
    }
  });

  it('rejects writes once the socket is gone, instead of leaving them pending', async () => {
    const { near, close } = await socketPair();
    try {
      const writer = new BatchedSocketMessageWriter(near);
      near.destroy();
      await assert.rejects(writer.write({ jsonrpc: '2.0', method: 'late' } as Message));
    } finally {
      close();
    }
  });
});
