/**
 * Checks the framing of what a socket client sends before vscode-jsonrpc's reader sees it.
 *
 * That reader rescans its whole buffer for the end of the header on every chunk, so a peer
 * that sends megabytes without a header costs quadratic time, and the daemon's one event
 * loop serves nobody else meanwhile. The guard scans each byte once, bounds the header and
 * the announced Content-Length (tightly until the client has shown the token), and passes
 * on only bytes within those bounds. Bodies are counted, never parsed here.
 */
import { PassThrough } from 'node:stream';

export interface FrameLimits {
  /** The header block (`Content-Length: N\r\n...\r\n\r\n`) of any message. */
  maxHeaderBytes: number;
  /** A message body before the handshake has succeeded: only a handshake is served then. */
  maxUnauthenticatedBody: number;
  /** A message body once authenticated. */
  maxBody: number;
  /** Messages before the handshake has succeeded: each is answered, so they cost output. */
  maxUnauthenticatedMessages: number;
}

export const DEFAULT_FRAME_LIMITS: FrameLimits = {
  maxHeaderBytes: 4 * 1024,
  maxUnauthenticatedBody: 64 * 1024,
  maxBody: 16 * 1024 * 1024,
  maxUnauthenticatedMessages: 100,
};

const HEADER_END = Buffer.from('\r\n\r\n');

export class FrameGuard {
  /** What passed the checks, to be read by a StreamMessageReader. */
  readonly output = new PassThrough();
  private authenticated = false;
  private refused = false;
  private header = Buffer.alloc(0);
  private bodyRemaining = 0;
  private messages = 0;

  constructor(
    private readonly limits: FrameLimits,
    /** Called once, with the reason, when the peer breaks a limit; nothing passes after it. */
    private readonly onRefuse: (reason: string) => void,
  ) {}

  /** The client has shown the token: the larger limits apply from the next message on. */
  authenticate(): void {
    this.authenticated = true;
  }

  push(chunk: Buffer): void {
    if (this.refused) return;
    let offset = 0;
    while (offset < chunk.length) {
      if (this.bodyRemaining > 0) {
        const taken = Math.min(this.bodyRemaining, chunk.length - offset);
        this.bodyRemaining -= taken;
        offset += taken;
        continue;
      }
      const consumed = this.readHeader(chunk.subarray(offset));
      if (consumed === undefined) {
        if (offset > 0) this.output.write(chunk.subarray(0, offset));
        return;
      }
      offset += consumed;
    }
    this.output.write(chunk);
  }

  /** Reads header bytes from `rest`; returns how many it used, or undefined after refusing. */
  private readHeader(rest: Buffer): number | undefined {
    const before = this.header.length;
    // Never hold more than the limit (plus the terminator) however much the peer sends.
    const window = Buffer.concat([this.header, rest.subarray(0, this.limits.maxHeaderBytes + HEADER_END.length - before)]);
    const end = window.indexOf(HEADER_END, Math.max(0, before - (HEADER_END.length - 1)));
    if (end < 0) {
      if (window.length > this.limits.maxHeaderBytes) {
        return this.refuse(`message header longer than ${this.limits.maxHeaderBytes} bytes (expected "Content-Length: N" and an empty line)`);
      }
      this.header = window;
      return rest.length;
    }
    const problem = this.checkHeader(window.subarray(0, end).toString('latin1'));
    if (problem !== undefined) return this.refuse(problem);
    this.header = Buffer.alloc(0);
    return end + HEADER_END.length - before;
  }

  /** Sets up the body that follows a header; returns why the header is refused, if it is. */
  private checkHeader(text: string): string | undefined {
    let length: number | undefined;
    for (const line of text.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) return `malformed message header line "${line.slice(0, 80)}"`;
      if (line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
      const value = line.slice(colon + 1).trim();
      if (!/^\d{1,15}$/.test(value)) return `Content-Length "${value.slice(0, 20)}" is not a number of bytes`;
      length = Number(value);
    }
    if (length === undefined) return 'message header without Content-Length';
    const limit = this.authenticated ? this.limits.maxBody : this.limits.maxUnauthenticatedBody;
    if (length > limit) {
      return `message of ${length} bytes exceeds the limit of ${limit} bytes${this.authenticated ? '' : ' before the handshake'}`;
    }
    if (!this.authenticated && ++this.messages > this.limits.maxUnauthenticatedMessages) {
      return `more than ${this.limits.maxUnauthenticatedMessages} messages before the handshake`;
    }
    this.bodyRemaining = length;
    return undefined;
  }

  private refuse(reason: string): undefined {
    this.refused = true;
    this.onRefuse(reason);
    return undefined;
  }
}
