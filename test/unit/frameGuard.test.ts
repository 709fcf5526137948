import * as assert from 'node:assert/strict';
import { DEFAULT_FRAME_LIMITS, FrameGuard, type FrameLimits } from '../../daemon/rpc/frameGuard';

const frame = (body: string, header = `Content-Length: ${Buffer.byteLength(body)}`): Buffer => Buffer.from(`${header}\r\n\r\n${body}`);

/** Feeds `chunks` to a guard; returns what it passed on and why it refused, if it did. */
function feed(chunks: Buffer[], limits: Partial<FrameLimits> = {}, authenticateAfter?: number): { passed: Buffer; refused: string[] } {
  const refused: string[] = [];
  const guard = new FrameGuard({ ...DEFAULT_FRAME_LIMITS, ...limits }, (reason) => refused.push(reason));
  const passed: Buffer[] = [];
  guard.output.on('data', (chunk: Buffer) => passed.push(chunk));
  chunks.forEach((chunk, index) => {
    guard.push(chunk);
    if (index === authenticateAfter) guard.authenticate();
  });
  return { passed: Buffer.concat(passed), refused };
}

describe('FrameGuard', () => {
  it('passes well-framed messages on unchanged, however they are split', () => {
    const stream = Buffer.concat([frame('{"a":1}'), frame('{"b":2}', 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 7'), frame('')]);
    const bytewise = [...stream].map((byte) => Buffer.from([byte]));
    for (const chunks of [[stream], bytewise, [stream.subarray(0, 17), stream.subarray(17, 40), stream.subarray(40)]]) {
      const { passed, refused } = feed(chunks);
      assert.deepEqual(refused, []);
      assert.equal(passed.toString(), stream.toString());
    }
  });

  it('refuses a header that never ends, without holding more than the limit', () => {
    const { passed, refused } = feed([frame('{}'), Buffer.alloc(1024 * 1024, 'a')], { maxHeaderBytes: 4096 });
    assert.match(refused[0] ?? '', /header longer than 4096 bytes/);
    assert.equal(passed.toString(), frame('{}').toString(), 'the message before it still passes');
  });

  it('keeps bodies small until the client is authenticated, then allows the larger limit', () => {
    const limits = { maxUnauthenticatedBody: 100, maxBody: 1000 };
    assert.match(feed([frame('x'.repeat(101))], limits).refused[0] ?? '', /101 bytes exceeds the limit of 100 bytes before the handshake/);
    assert.deepEqual(feed([frame('x'.repeat(100)), frame('y'.repeat(1000))], limits, 0).refused, []);
    assert.match(feed([frame('x'.repeat(10)), frame('y'.repeat(1001))], limits, 0).refused[0] ?? '', /1001 bytes exceeds the limit of 1000 bytes$/);
  });

  it('refuses a header without a usable Content-Length', () => {
    assert.match(feed([frame('{}', 'Content-Type: x')]).refused[0] ?? '', /without Content-Length/);
    assert.match(feed([frame('{}', 'Content-Length: -1')]).refused[0] ?? '', /not a number of bytes/);
    assert.match(feed([frame('{}', 'garbage')]).refused[0] ?? '', /malformed message header line "garbage"/);
  });

  it('limits how many messages a client may send before the handshake', () => {
    const many = Array.from({ length: 4 }, () => frame('{}'));
    assert.match(feed(many, { maxUnauthenticatedMessages: 3 }).refused[0] ?? '', /more than 3 messages before the handshake/);
    assert.deepEqual(feed(many, { maxUnauthenticatedMessages: 3 }, 0).refused, []);
  });

  it('passes nothing after refusing', () => {
    const { passed, refused } = feed([frame('x'.repeat(200)), frame('{}')], { maxUnauthenticatedBody: 100 });
    assert.equal(refused.length, 1);
    assert.equal(passed.length, 0);
  });
});
