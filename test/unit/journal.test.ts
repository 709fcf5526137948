import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Journal, JournalError, readJournal } from '../../daemon/evolution/evodb/journal';
import { tempDir } from '../fixtures/paths';

describe('event journal', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir('journal');
    file = path.join(dir, 'events.jsonl');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('appends one JSON line per event with an increasing seq', () => {
    const journal = new Journal(file);
    assert.equal(journal.path, file);
    assert.equal(journal.append({ type: 'start', run: 'r1' }), 1);
    assert.equal(journal.append({ type: 'child', seq: 999 }), 2, 'the journal assigns seq, not the caller');
    assert.equal(journal.seq, 2);
    assert.equal(fs.readFileSync(file, 'utf8'), '{"seq":1,"type":"start","run":"r1"}\n{"seq":2,"type":"child"}\n');
    assert.deepEqual(readJournal(file), {
      events: [
        { seq: 1, type: 'start', run: 'r1' },
        { seq: 2, type: 'child' },
      ],
      lines: [1, 2],
      tornTail: false,
    });
  });

  it('continues the seq when a run reopens its journal', () => {
    const first = new Journal(file);
    first.append({ type: 'a' });
    first.append({ type: 'b' });
    const reopened = new Journal(file);
    assert.equal(reopened.seq, 2);
    assert.equal(reopened.append({ type: 'c' }), 3);
    assert.deepEqual(
      readJournal(file).events.map((event) => (event as { seq: number }).seq),
      [1, 2, 3],
    );
  });

  it('tolerates a torn last line and cuts it off when reopened', () => {
    const journal = new Journal(file);
    journal.append({ type: 'a' });
    journal.append({ type: 'b' });
    fs.appendFileSync(file, '{"seq":3,"type":"chi'); // killed mid-append
    assert.deepEqual(readJournal(file), { events: [{ seq: 1, type: 'a' }, { seq: 2, type: 'b' }], lines: [1, 2], tornTail: true });

    const reopened = new Journal(file);
    assert.equal(reopened.append({ type: 'c' }), 3, 'the torn event never happened');
    assert.deepEqual(readJournal(file), {
      events: [
        { seq: 1, type: 'a' },
        { seq: 2, type: 'b' },
        { seq: 3, type: 'c' },
      ],
      lines: [1, 2, 3],
      tornTail: false,
    });
  });

  it('keeps a last event whose newline was not written, and appends on a fresh line', () => {
    fs.writeFileSync(file, '{"seq":1,"type":"a"}\n{"seq":2,"type":"b"}');
    assert.deepEqual(readJournal(file), { events: [{ seq: 1, type: 'a' }, { seq: 2, type: 'b' }], lines: [1, 2], tornTail: false });
    new Journal(file).append({ type: 'c' });
    assert.equal(readJournal(file).events.length, 3);
  });

  it('reports a corrupt line in the middle as an error naming the line', () => {
    fs.writeFileSync(file, '{"seq":1,"type":"a"}\n{"seq":2,"ty\n{"seq":3,"type":"c"}\n');
    const atLine2 = (error: unknown) => error instanceof JournalError && error.line === 2 && /line 2 is corrupt/.test(error.message);
    assert.throws(() => readJournal(file), atLine2);
    assert.throws(() => new Journal(file), atLine2, 'a damaged journal is not appended to');
    // A complete last line that is not an event is damage too: a torn append has no newline.
    fs.writeFileSync(file, '{"seq":1,"type":"a"}\n[1,2]\n');
    assert.throws(() => readJournal(file), /line 2 is corrupt/);
  });

  it('explains a missing journal and refuses a non-object event', () => {
    assert.throws(() => readJournal(file), /no journal at .*events\.jsonl/);
    const journal = new Journal(file);
    assert.deepEqual(readJournal(file), { events: [], lines: [], tornTail: false });
    assert.throws(() => journal.append([1, 2]), /must be an object/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(() => journal.append(cyclic), /circular/);
    assert.equal(journal.append({ type: 'ok' }), 1, 'a refused event takes no seq');
  });
});
