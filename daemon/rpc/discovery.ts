/**
 * How clients find a running daemon: `daemon.json` (pid, address, version) and
 * `daemon.token` (readable by the user only) in the state directory.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isAlive } from '../platform/processes';

export interface DaemonRecord {
  pid: number;
  address: string;
  version: string;
  startedAt: string;
}

export const RECORD_FILE = 'daemon.json';
export const TOKEN_FILE = 'daemon.token';
export const LOG_FILE = 'daemon.log';
export const SOCKET_FILE = 'daemon.sock';

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

export function readToken(dir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dir, TOKEN_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
}

export function writeRecord(dir: string, record: DaemonRecord): void {
  const file = path.join(dir, RECORD_FILE);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(record, null, 2), { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
}

/** The record of a daemon whose process is alive; a stale record is removed. */
export function readLiveRecord(dir: string): DaemonRecord | undefined {
  const file = path.join(dir, RECORD_FILE);
  let record: DaemonRecord;
  try {
    record = JSON.parse(fs.readFileSync(file, 'utf8')) as DaemonRecord;
  } catch {
    return undefined;
  }
  // A record naming this very process is stale: a restarted container gets the same pid
  // (often 1) that its previous daemon had, and must not take that record for a live daemon.
  if (typeof record.pid === 'number' && record.pid !== process.pid && isAlive(record.pid)) return record;
  fs.rmSync(file, { force: true });
  return undefined;
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

