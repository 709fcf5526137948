/**
 * How a client finds a running daemon, the half of discovery both sides read: the state
 * directory (PEAGEN_HOME, default ~/.peagen) holds `daemon.json` (pid, address, version) and
 * `daemon.token` (readable by the user only). The daemon writes them (daemon/rpc/discovery.ts);
 * the CLI and the extension read them here.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAlive } from './processes';

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

/** Where the daemon keeps its socket, token and pid (PEAGEN_HOME, default ~/.peagen). */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PEAGEN_HOME ? path.resolve(env.PEAGEN_HOME) : path.join(os.homedir(), '.peagen');
}

export function readToken(dir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dir, TOKEN_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
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
