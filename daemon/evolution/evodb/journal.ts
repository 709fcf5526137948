/**
 * The run's event journal: one JSON object per line, appended synchronously, never rewritten.
 * Each event carries a `seq` the journal assigns (1, 2, ...), continuing after the last one
 * when a run reopens its journal, so replay can order events and spot gaps.
 *
 * A kill -9 in the middle of an append can leave a last line without its newline and cut
 * short: a torn tail. Readers skip it and say so; reopening the journal cuts it off before
 * appending. A line that is corrupt anywhere else is damage, not a crash, and is an error.
 */
import * as fs from 'node:fs';

export class JournalError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = 'JournalError';
  }
}

export interface JournalContents {
  events: unknown[];
  /** The line (1-based) each event is on, for messages about it. */
  lines: number[];
  /** The last line was cut short (and is not among the events). */
  tornTail: boolean;
}

interface Scan extends JournalContents {
  /** Bytes of the file that hold complete events: where the next append belongs. */
  intactBytes: number;
  endsWithNewline: boolean;
}

function parseEvent(line: string): object | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function scan(file: string): Scan {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new JournalError(code === 'ENOENT' ? `no journal at ${file}` : `cannot read journal ${file}: ${(error as Error).message}`);
  }
  const lines = bytes.toString('utf8').split('\n');
  // After a final newline split() yields one empty string; anything else there is an unfinished line.
  const unfinished = lines.pop()!;
  const events: unknown[] = [];
  const eventLines: number[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const event = parseEvent(line);
    if (!event) throw new JournalError(`journal ${file}: line ${index + 1} is corrupt (not a JSON object)`, index + 1);
    events.push(event);
    eventLines.push(index + 1);
  });
  const lastNewline = bytes.lastIndexOf(0x0a);
  const intactBytes = lastNewline + 1;
  if (unfinished.trim() === '') return { events, lines: eventLines, tornTail: false, intactBytes: bytes.length, endsWithNewline: unfinished === '' };
  // Only an object's full text parses as an object, so an unfinished line that parses is a
  // complete event whose newline was not written.
  const event = parseEvent(unfinished);
  if (event) {
    events.push(event);
    eventLines.push(lines.length + 1);
    return { events, lines: eventLines, tornTail: false, intactBytes: bytes.length, endsWithNewline: false };
  }
  return { events, lines: eventLines, tornTail: true, intactBytes, endsWithNewline: true };
}

/**
 * Every event of a journal, in order.
 * @throws JournalError when the file is missing or unreadable, or a line other than the last
 * is corrupt (the error names the line).
 */
export function readJournal(file: string): JournalContents {
  const { events, lines, tornTail } = scan(file);
  return { events, lines, tornTail };
}

export class Journal {
  private readonly file: string;
  private lastSeq = 0;

  /**
   * Open (or create) a journal. An existing one is read to continue its seq; its torn tail,
   * if any, is cut off so the next event starts on a line of its own.
   * @throws JournalError when an existing journal is corrupt before its last line.
   */
  constructor(file: string) {
    this.file = file;
    if (!fs.existsSync(file)) {
      fs.writeFileSync(file, '', { flag: 'a' });
      return;
    }
    const contents = scan(file);
    if (contents.tornTail) fs.truncateSync(file, contents.intactBytes);
    else if (!contents.endsWithNewline) fs.appendFileSync(file, '\n');
    for (const event of contents.events) {
      const seq = (event as { seq?: unknown }).seq;
      if (typeof seq === 'number' && Number.isFinite(seq) && seq > this.lastSeq) this.lastSeq = seq;
    }
  }

  get path(): string {
    return this.file;
  }

  /** The seq of the last event appended (0 for an empty journal). */
  get seq(): number {
    return this.lastSeq;
  }

  /**
   * Append one event as one line, with the next seq (any `seq` of its own is replaced).
   * Returns that seq. @throws when the event is not a JSON-serialisable object.
   */
  append(event: object): number {
    if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new JournalError('a journal event must be an object');
    const seq = this.lastSeq + 1;
    // seq first, so a reader sees the order at a glance; the event's own seq (if any) is overwritten.
    const line = `${JSON.stringify(Object.assign({ seq }, event, { seq }))}\n`;
    fs.appendFileSync(this.file, line);
    this.lastSeq = seq;
    return seq;
  }
}
