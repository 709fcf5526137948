import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CHECKPOINT_VERSION, CheckpointError, readCheckpoint, writeCheckpoint } from '../../daemon/evolution/evodb/checkpoint';
import { tempDir } from '../fixtures/paths';

describe('checkpoint files', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir('checkpoint');
    file = path.join(dir, 'checkpoint.json');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const problem = (expected: CheckpointError['problem'], message: RegExp) => (error: unknown) =>
    error instanceof CheckpointError && error.problem === expected && message.test(error.message);

  it('round-trips data in a versioned envelope, leaving no temp file', () => {
    const data = { generation: 3, rng: { s: [1, 2, 3, 4] }, note: 'ünïcode' };
    writeCheckpoint(file, data);
    assert.deepEqual(readCheckpoint(file), data);
    const envelope = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(envelope.version, CHECKPOINT_VERSION);
    assert.ok(!Number.isNaN(Date.parse(envelope.writtenAt)));
    writeCheckpoint(file, { generation: 4 });
    assert.deepEqual(readCheckpoint(file), { generation: 4 });
    assert.deepEqual(fs.readdirSync(dir), ['checkpoint.json']);
  });

  it('survives a crash between writing the temp file and the rename', () => {
    writeCheckpoint(file, { generation: 1 });
    // What a writer killed before its rename leaves: a half-written temp file beside the target.
    const leftover = path.join(dir, `checkpoint.json.tmp-99999-1`);
    fs.writeFileSync(leftover, '{"version":1,"writtenAt":"2025-01-01T00:00:00Z","data":{"generation":2,"pro');
    assert.deepEqual(readCheckpoint(file), { generation: 1 }, 'the previous checkpoint is intact and the temp ignored');

    writeCheckpoint(file, { generation: 3 });
    assert.deepEqual(readCheckpoint(file), { generation: 3 });
    assert.deepEqual(fs.readdirSync(dir), ['checkpoint.json'], 'the next write cleans up the leftover');
  });

  it('keeps the previous checkpoint when a write fails', () => {
    writeCheckpoint(file, { generation: 1 });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(() => writeCheckpoint(file, cyclic), /circular/);
    assert.throws(() => writeCheckpoint(file, undefined), problem('invalid', /no data/));

    // The rename itself fails (here: the target became a non-empty directory).
    const blocked = path.join(dir, 'blocked.json');
    fs.mkdirSync(blocked);
    fs.writeFileSync(path.join(blocked, 'inside'), 'x');
    assert.throws(() => writeCheckpoint(blocked, { generation: 2 }));
    assert.deepEqual(readCheckpoint(file), { generation: 1 });
    assert.deepEqual(fs.readdirSync(dir).sort(), ['blocked.json', 'checkpoint.json'], 'no temp file left behind');
  });

  it('explains a missing, corrupt, foreign or newer checkpoint', () => {
    assert.throws(() => readCheckpoint(file), problem('missing', /no checkpoint at .*checkpoint\.json/));
    fs.writeFileSync(file, '{"version":1,"writtenAt":"x","data":{"cut');
    assert.throws(() => readCheckpoint(file), problem('corrupt', /is corrupt \(not valid JSON/));
    fs.writeFileSync(file, '{"some":"other file"}');
    assert.throws(() => readCheckpoint(file), problem('invalid', /not a Peagen checkpoint/));
    fs.writeFileSync(file, '{"version":1,"writtenAt":"x"}');
    assert.throws(() => readCheckpoint(file), problem('invalid', /not a Peagen checkpoint/));
    fs.writeFileSync(file, JSON.stringify({ version: CHECKPOINT_VERSION + 1, writtenAt: 'x', data: {} }));
    assert.throws(() => readCheckpoint(file), problem('newer', /written by a newer Peagen.*upgrade/));
  });

  it('reads a checkpoint whose data is null or a plain value', () => {
    writeCheckpoint(file, null);
    assert.equal(readCheckpoint(file), null);
    writeCheckpoint(file, [1, 'two']);
    assert.deepEqual(readCheckpoint(file), [1, 'two']);
  });
});
