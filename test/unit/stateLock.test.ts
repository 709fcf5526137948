import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { acquireStateLock, LOCK_FILE, lockHolder } from '../../daemon/rpc/stateLock';
import { tempDir } from '../fixtures/paths';

describe('state directory lock', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir('lock')));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const lockFile = (): string => path.join(dir, LOCK_FILE);

  it('is held by one owner at a time and released by it', () => {
    const first = acquireStateLock(dir);
    assert.ok(first.acquired);
    assert.equal(fs.readFileSync(lockFile(), 'utf8').trim(), String(process.pid));
    assert.deepEqual(acquireStateLock(dir), { acquired: false, holder: process.pid });
    assert.equal(lockHolder(dir), process.pid);
    first.lock.release();
    assert.equal(fs.existsSync(lockFile()), false);
    assert.equal(lockHolder(dir), undefined);
    const again = acquireStateLock(dir);
    assert.ok(again.acquired);
    again.lock.release();
    assert.deepEqual(fs.readdirSync(dir), [], 'no drafts left behind');
  });

  it('is not taken from a live process', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(lockFile(), `${other.pid}\n`);
      assert.deepEqual(acquireStateLock(dir), { acquired: false, holder: other.pid });
      assert.equal(lockHolder(dir), other.pid);
    } finally {
      const exited = new Promise((resolve) => other.once('exit', resolve));
      other.kill('SIGKILL');
      await exited;
    }
  });

  it('takes over a lock whose owner is dead, or that is unreadable, or that names this pid but is not held here', () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    for (const content of [`${dead}\n`, 'not a pid', '', `${process.pid}\n`]) {
      fs.writeFileSync(lockFile(), content);
      assert.equal(lockHolder(dir), undefined, JSON.stringify(content));
      const attempt = acquireStateLock(dir);
      assert.ok(attempt.acquired, JSON.stringify(content));
      attempt.lock.release();
    }
  });

  it('release leaves a lock alone that another process has taken since', () => {
    const attempt = acquireStateLock(dir);
    assert.ok(attempt.acquired);
    fs.writeFileSync(lockFile(), '1\n');
    attempt.lock.release();
    assert.equal(fs.readFileSync(lockFile(), 'utf8'), '1\n');
  });
});
