import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DamagedRunError, RunDir } from '../../daemon/evolution/controller/runDir';
import { PackFile } from '../../daemon/evolution/evodb/packFile';
import type { LlmExchange } from '../../daemon/evolution/mutation/Mutator';
import type { Program } from '../../shared/evolution';
import { programId } from '../../shared/programId';
import { tempDir } from '../fixtures/paths';

const keyOf = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('pack file (a run\'s programs and LLM exchanges, a line each)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir('pack');
    file = path.join(dir, 'records.pack');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('stores each record once, as `<key> <text>` lines, and reads each back by key', () => {
    const pack = new PackFile(file);
    assert.equal(pack.get(keyOf('a')), undefined, 'nothing before the file exists');
    pack.put(keyOf('a'), '{"n":"a"}');
    pack.put(keyOf('b'), '{"n":"bé"}');
    pack.put(keyOf('a'), '{"n":"other"}');
    assert.equal(fs.readFileSync(file, 'utf8'), `${keyOf('a')} {"n":"a"}\n${keyOf('b')} {"n":"bé"}\n`, 'the first record of a key stands');
    assert.equal(pack.get(keyOf('b')), '{"n":"bé"}');
    const reader = new PackFile(file);
    assert.equal(reader.get(keyOf('a')), '{"n":"a"}');
    assert.equal(reader.get(keyOf('b')), '{"n":"bé"}', 'byte offsets hold past multi-byte text');
  });

  it('finds what another writer appended after its first look', () => {
    const reader = new PackFile(file);
    const writer = new PackFile(file);
    writer.put(keyOf('a'), '"a"');
    assert.equal(reader.get(keyOf('a')), '"a"');
    writer.put(keyOf('b'), '"b"');
    assert.equal(reader.has(keyOf('b')), true);
    assert.equal(reader.get(keyOf('b')), '"b"');
  });

  it('skips a torn last line (a writer killed mid-append) and cuts it off before the next record', () => {
    new PackFile(file).put(keyOf('a'), '"a"');
    fs.appendFileSync(file, `${keyOf('b')} {"cut sh`);
    const pack = new PackFile(file);
    assert.equal(pack.get(keyOf('b')), undefined, 'the torn record is not read');
    assert.equal(pack.get(keyOf('a')), '"a"');
    pack.put(keyOf('c'), '"c"');
    assert.equal(fs.readFileSync(file, 'utf8'), `${keyOf('a')} "a"\n${keyOf('c')} "c"\n`);
    assert.equal(new PackFile(file).get(keyOf('c')), '"c"');
  });

  it('refuses a key that is not a sha256 and a text of more than one line', () => {
    const pack = new PackFile(file);
    assert.throws(() => pack.put('../x', '"a"'), /64 hex digits/);
    assert.throws(() => pack.put(keyOf('a'), '"a"\n"b"'), /one line/);
    assert.equal(fs.existsSync(file), false);
  });

  describe('in a run directory', () => {
    const exchange: LlmExchange = {
      backend: 'openai',
      model: 'm',
      request: { messages: [{ role: 'user', content: 'make it\nfaster' }] },
      response: { text: '<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE' },
      usage: { inputTokens: 3, outputTokens: 4 },
      latencyMs: 5,
      costUsd: 0,
    };
    const code = 'def f():\n    return 1\n';
    const program: Program = { id: programId(code), code, lineage: { parents: [], generation: 0, mutator: 'seed', exchanges: [], seed: 1, repairs: 0, island: 0, createdAt: '2026-01-01T00:00:00.000Z' }, objective: 1, correct: true, measurements: [], features: {} };

    it('keeps exchanges and programs in one pack each, and refuses a record changed after it was written', () => {
      const runDir = new RunDir(dir);
      const hash = runDir.putExchange(exchange);
      assert.deepEqual(new RunDir(dir).getExchange(hash), exchange);
      assert.deepEqual(fs.readdirSync(dir).sort(), ['llm.pack']);
      const text = fs.readFileSync(path.join(dir, 'llm.pack'), 'utf8');
      fs.writeFileSync(path.join(dir, 'llm.pack'), text.replace('faster', 'slower'));
      assert.throws(() => new RunDir(dir).getExchange(hash), (error: unknown) => error instanceof DamagedRunError && /was modified/.test(error.message));
      assert.throws(() => new RunDir(dir).getExchange(keyOf('nothing')), (error: unknown) => error instanceof DamagedRunError && /is missing the recorded LLM exchange/.test(error.message));
    });

    it('reads the file per record of a run made before the packs', () => {
      fs.mkdirSync(path.join(dir, 'llm'));
      const text = JSON.stringify(exchange);
      fs.writeFileSync(path.join(dir, 'llm', `${keyOf(text)}.json`), text);
      assert.deepEqual(new RunDir(dir).getExchange(keyOf(text)), exchange);
    });

    it('refuses a program record whose code is not the code its id names', () => {
      const runDir = new RunDir(dir);
      runDir.putProgram(program);
      assert.equal(new RunDir(dir).getProgram(program.id).code, code);
      const packed = path.join(dir, 'programs.pack');
      fs.writeFileSync(packed, fs.readFileSync(packed, 'utf8').replace('return 1', 'return 2'));
      assert.throws(() => new RunDir(dir).getProgram(program.id), (error: unknown) => error instanceof DamagedRunError && /its code was changed/.test(error.message));
    });
  });
});
