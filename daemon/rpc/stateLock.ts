/**
 * One daemon per state directory: the process that holds `daemon.lock` (a file naming its
 * pid) is the only one that writes the token, the record and the default socket there.
 *
 * The lock file is created by hard-linking a fully written draft to its final name: link()
 * fails if the name exists, so creation is atomic and nobody ever reads a half-written pid.
 * A lock whose pid is dead (a daemon killed with SIGKILL, a reboot) is stale and taken over.
 *
 * The same kind of lock, under another name, marks a run directory as in use (RUN_LOCK_FILE in
 * evolution/controller/runLock.ts): the process running a run, or merging into it, holds it.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isAlive } from '../../shared/processes';

export const LOCK_FILE = 'daemon.lock';

export interface StateLock {
  /** Gives the state directory up (only if the lock file is still this process's). */
  release(): void;
}

export type LockAttempt = { acquired: true; lock: StateLock } | { acquired: false; holder: number };

/** Lock files this process holds: the same pid in a lock file is only ours if listed here. */
const heldHere = new Set<string>();

/** `name`: the lock file's name in `dir` (the daemon's by default). */
export function acquireStateLock(dir: string, name = LOCK_FILE): LockAttempt {
  const file = path.join(dir, name);
  // Each round either takes the lock, finds a live holder, or clears one stale lock.
  for (let round = 0; round < 10; round++) {
    if (createExclusively(file)) {
      heldHere.add(file);
      return { acquired: true, lock: { release: () => release(file) } };
    }
    const content = readContent(file);
    if (content === undefined) continue; // released in between: try again
    const holder = parsePid(content);
    if (holder !== undefined && (holder === process.pid ? heldHere.has(file) : isAlive(holder))) return { acquired: false, holder };
    removeStale(file, content);
  }
  throw new Error(`cannot take the lock ${file}: it keeps changing hands`);
}

/** The pid of the live process that holds the state directory, if any. */
export function lockHolder(dir: string, name = LOCK_FILE): number | undefined {
  const file = path.join(dir, name);
  const holder = parsePid(readContent(file) ?? '');
  if (holder === undefined) return undefined;
  return (holder === process.pid ? heldHere.has(file) : isAlive(holder)) ? holder : undefined;
}

function createExclusively(file: string): boolean {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(draft, `${process.pid}\n`, { mode: 0o600 });
  try {
    fs.linkSync(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(draft, { force: true });
  }
}

/**
 * Removes a stale lock without removing a fresh one that replaced it since it was read: the
 * lock is first moved aside (atomic), then checked. If what was moved is not the stale lock
 * (another starter took over the stale lock first), it is put back where it was.
 */
function removeStale(file: string, staleContent: string): void {
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return; // someone else moved it first
  }
  try {
    if (readContent(aside) !== staleContent) fs.linkSync(aside, file);
  } catch {
    // A third starter created a lock in the instant it was away; that one stands.
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

function release(file: string): void {
  if (!heldHere.delete(file)) return;
  if (parsePid(readContent(file) ?? '') === process.pid) fs.rmSync(file, { force: true });
}

function readContent(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function parsePid(content: string): number | undefined {
  const pid = Number(content.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}
