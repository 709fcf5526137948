/**
 * One install of an environment at a time, across every process of this host that shares
 * the cache (the daemon, CLI commands, workers, one-shot children): the installer holds a
 * lock file naming its pid; the others wait until it is released, then find the environment
 * installed. A lock whose process died (killed mid-install) is stale and taken over.
 *
 * The lock file is made by hard-linking a fully written draft to its name: link() fails when
 * the name exists, so taking it is atomic and nobody reads a half-written pid (the technique
 * of the daemon's state lock, daemon/rpc/stateLock.ts, which lives in a layer above this one).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from '../../../shared/processes';

const POLL_MS = 200;

/** Runs `work` while holding the lock `file`, waiting for a live holder to finish first. */
export async function withInstallLock<T>(file: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (;;) {
    signal?.throwIfAborted();
    if (take(file)) break;
    const holder = holderOf(file);
    if (holder === undefined) continue; // released in between
    if (holder !== process.pid && isAlive(holder)) {
      await sleep(POLL_MS, undefined, signal ? { signal } : {});
      continue;
    }
    // Our own pid in a lock we do not hold (this process took no lock without releasing it,
    // see below) is a dead process's whose pid came round again.
    removeStale(file, holder);
  }
  try {
    return await work();
  } finally {
    fs.rmSync(file, { force: true });
  }
}

function take(file: string): boolean {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(draft, `${process.pid}\n`);
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

function holderOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : -1;
  } catch {
    return undefined;
  }
}

/** Moves the stale lock aside first, so that a fresh lock taken meanwhile is not removed. */
function removeStale(file: string, stalePid: number): void {
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return; // someone else moved it first
  }
  const moved = holderOf(aside);
  if (moved !== stalePid) {
    // It was replaced by a live taker between our read and the move: put it back.
    try {
      fs.linkSync(aside, file);
    } catch {
      /* another lock was taken meanwhile; that one is valid */
    }
  }
  fs.rmSync(aside, { force: true });
}
