/**
 * The daemon's half of discovery: it writes `daemon.json` and `daemon.token` into the state
 * directory, where clients read them (shared/discovery.ts), and removes them when it stops.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type DaemonRecord, RECORD_FILE, TOKEN_FILE } from '../../shared/discovery';

export function ensureStateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** Only the holder of the state directory's lock (stateLock.ts) may call this. */
export function writeToken(dir: string, token: string): void {
  ensureStateDir(dir);
  const file = path.join(dir, TOKEN_FILE);
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, token, { mode: 0o600, flag: 'wx' });
}

export function writeRecord(dir: string, record: DaemonRecord): void {
  const file = path.join(dir, RECORD_FILE);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(record, null, 2), { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
}

/** Removes what this daemon wrote, unless another daemon has taken over since. */
export function removeRecord(dir: string, pid: number): void {
  try {
    const record = JSON.parse(fs.readFileSync(path.join(dir, RECORD_FILE), 'utf8')) as DaemonRecord;
    if (record.pid !== pid) return;
  } catch {
    return;
  }
  fs.rmSync(path.join(dir, RECORD_FILE), { force: true });
  fs.rmSync(path.join(dir, TOKEN_FILE), { force: true });
}

