/**
 * Keeps the first `limit` bytes of a stream and counts the rest. A command that writes far
 * past the limit (4x) is flooding: the executor kills it with stop reason `output`.
 */
import type { Readable } from 'node:stream';

export const FLOOD_FACTOR = 4;

export class OutputCapture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private total = 0;

  constructor(
    private readonly limit: number,
    private readonly onFlood: () => void,
  ) {}

  attach(stream: Readable | null | undefined): this {
    stream?.on('data', (chunk: Buffer) => this.push(chunk));
    return this;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.kept < this.limit) {
      const room = this.limit - this.kept;
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(part);
      this.kept += part.length;
    }
    if (this.total > this.limit * FLOOD_FACTOR) this.onFlood();
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  get bytesSeen(): number {
    return this.total;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
