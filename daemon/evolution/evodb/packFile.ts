/**
 * An append-only file of content-addressed records: one line each, `<key> <text>\n`, the key
 * being 64 hex digits (a sha256) and the text one line of JSON. A run keeps its programs and
 * its LLM exchanges in two such files instead of a file per record: creating a file costs the
 * file system far more than appending a line (on ext4, 0.6-0.8 ms of system CPU against 0.02
 * ms), and at 64 workers those creates were a fifth of the controller's CPU.
 *
 * Crash guarantees are the journal's: a record is one append, made before the journal event
 * that names it, so a kill -9 leaves at worst a torn last line, which no event names. Readers
 * skip it; the first append of a writer cuts it off. A line that is not `<key> <text>` anywhere
 * else is damage, not a crash: reading that key reports it (the caller checks each record's
 * content against its key, so a modified record is refused too).
 *
 * A record is located through an index of key -> byte range built by reading the file once,
 * then kept current by this object's own appends and by reading what others appended since.
 */
import * as fs from 'node:fs';

const KEY_LENGTH = 64;
const NEWLINE = 0x0a;
const SPACE = 0x20;

interface Span {
  offset: number;
  length: number;
}

export class PackFile {
  private readonly index = new Map<string, Span>();
  /** Bytes of the file indexed so far: complete lines only. */
  private indexed = 0;
  /** The first append checks the tail for a torn line (a crash of an earlier writer). */
  private tailChecked = false;

  constructor(readonly file: string) {}

  /** Whether the file holds a record of `key` (reading what was appended since the last look). */
  has(key: string): boolean {
    if (this.index.has(key)) return true;
    this.catchUp();
    return this.index.has(key);
  }

  /** The text stored under `key`, or undefined when there is none. */
  get(key: string): string | undefined {
    if (!this.has(key)) return undefined;
    const span = this.index.get(key)!;
    const buffer = Buffer.alloc(span.length);
    const fd = fs.openSync(this.file, 'r');
    try {
      fs.readSync(fd, buffer, 0, span.length, span.offset);
    } finally {
      fs.closeSync(fd);
    }
    return buffer.toString('utf8');
  }

  /**
   * Stores `text` under `key` unless a record of `key` is there already (records never change,
   * so the first one stands). `text` must be one line.
   */
  put(key: string, text: string): void {
    if (key.length !== KEY_LENGTH || !/^[0-9a-f]+$/.test(key)) throw new Error(`a pack key is 64 hex digits, not "${key.slice(0, 80)}"`);
    if (text.includes('\n')) throw new Error('a pack record is one line');
    if (this.has(key)) return;
    if (!this.tailChecked) this.cutTornTail();
    const line = Buffer.from(`${key} ${text}\n`, 'utf8');
    fs.appendFileSync(this.file, line);
    // Appends by this object follow what it has indexed: the file held nothing unindexed after catchUp.
    this.index.set(key, { offset: this.indexed + KEY_LENGTH + 1, length: line.length - KEY_LENGTH - 2 });
    this.indexed += line.length;
  }

  /** Reads the lines appended since the last look into the index. */
  private catchUp(): void {
    let size: number;
    try {
      size = fs.statSync(this.file).size;
    } catch {
      return;
    }
    if (size <= this.indexed) return;
    const buffer = Buffer.alloc(size - this.indexed);
    const fd = fs.openSync(this.file, 'r');
    try {
      fs.readSync(fd, buffer, 0, buffer.length, this.indexed);
    } finally {
      fs.closeSync(fd);
    }
    let start = 0;
    for (let end = buffer.indexOf(NEWLINE, start); end >= 0; end = buffer.indexOf(NEWLINE, start)) {
      // A line that is not `<key> <text>` is indexed under nothing: reading any key it should have held finds no record.
      if (end - start > KEY_LENGTH + 1 && buffer[start + KEY_LENGTH] === SPACE) {
        const key = buffer.toString('latin1', start, start + KEY_LENGTH);
        if (!this.index.has(key)) this.index.set(key, { offset: this.indexed + start + KEY_LENGTH + 1, length: end - start - KEY_LENGTH - 1 });
      }
      start = end + 1;
    }
    // A last line without its newline is torn (or still being written by another process): left for a later look.
    this.indexed += start;
  }

  /** Cuts off a last line without its newline (a writer killed mid-append), so the next record starts on a line of its own. */
  private cutTornTail(): void {
    this.tailChecked = true;
    this.catchUp();
    let size = 0;
    try {
      size = fs.statSync(this.file).size;
    } catch {
      return;
    }
    if (size > this.indexed) fs.truncateSync(this.file, this.indexed);
  }
}
