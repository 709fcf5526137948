/**
 * Killing a sandbox's process group, also from another process than the one that started it
 * (a parent reclaiming what its killed one-shot child left), without ever hitting a group that
 * merely reuses the number.
 */
import * as fs from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * The fields of /proc/<pid>/stat after the command name, state first (the name is in
 * parentheses and may itself hold ") "); undefined when the process is gone.
 */
export function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** When the process started (clock ticks since boot); undefined when it is gone. */
export function processStartTime(pid: number): number | undefined {
  const value = Number(statFields(pid)?.[19]);
  return Number.isFinite(value) ? value : undefined;
}

/** Host process `pid` exists and is not a zombie. */
export function processRunning(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

/**
 * Whether any member of group `pgid` still runs. A killed member is a zombie until its parent
 * reaps it, and a member whose parent died first is reaped by pid 1, which can take more than a
 * second (measured: 1.4 s under the VM init of these machines); a zombie holds no memory, files
 * or CPU, so waiting for it would only delay every run that left a background process.
 */
function groupHasLiveMember(pgid: number): boolean {
  for (const entry of fs.readdirSync('/proc')) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid: names of /proc's own files start with letters
    const fields = statFields(entry);
    if (fields && Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

/** SIGKILL is asynchronous: wait (briefly) until no member of the group is left running. */
export async function killGroupAndWait(pgid: number): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    try {
      process.kill(-pgid, tries === 0 ? 'SIGKILL' : 0);
    } catch {
      return; // ESRCH: the group is empty
    }
    if (tries > 0) {
      if (!groupHasLiveMember(pgid)) return;
      await delay(10);
    }
  }
}

/**
 * Kills group `pgid`, led at its start by a process that started at `leaderStart`. The kernel
 * gives no new process a pid that is still some group's id, so the group is ours unless a
 * process `pgid` runs that started at another time (then ours is gone and the number reused).
 */
export async function killRecordedGroup(pgid: number, leaderStart: number | undefined): Promise<void> {
  const start = processStartTime(pgid);
  if (start !== undefined && leaderStart !== undefined && start !== leaderStart) return;
  await killGroupAndWait(pgid);
}
