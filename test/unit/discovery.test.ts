import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readLiveRecord, RECORD_FILE } from '../../shared/discovery';
import { tempDir } from '../fixtures/paths';

describe('finding the running daemon (daemon.json)', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir('discovery')));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (pid: number): void =>
    fs.writeFileSync(path.join(dir, RECORD_FILE), JSON.stringify({ pid, address: 'unix:/tmp/x.sock', version: '0.2.0', startedAt: 0 }));

  it('returns the record of a live daemon process', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await new Promise((resolve) => other.once('spawn', resolve));
      write(other.pid ?? -1);
      assert.equal(readLiveRecord(dir)?.pid, other.pid);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('treats a record naming this very process as stale (a restarted container reuses its pid) and removes it', () => {
    write(process.pid);
    assert.equal(readLiveRecord(dir), undefined);
    assert.equal(fs.existsSync(path.join(dir, RECORD_FILE)), false);
  });
});
