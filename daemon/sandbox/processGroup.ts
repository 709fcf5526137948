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

/** A process as /proc shows it: enough to find a group's members and what they started. */
interface HostProcess {
  pid: number;
  ppid: number;
  pgid: number;
  /** Start time (clock ticks since boot): tells a process from a later one with its number. */
  start: number;
  zombie: boolean;
}

function hostProcesses(): HostProcess[] {
  const found: HostProcess[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid: names of /proc's own files start with letters
    const fields = statFields(entry);
    if (fields) found.push({ pid: Number(entry), ppid: Number(fields[1]), pgid: Number(fields[2]), start: Number(fields[19]), zombie: fields[0] === 'Z' });
  }
  return found;
}

/**
 * The members of group `pgid` and every process below them, also those that left the group:
 * bwrap's command runs in a session of its own (--new-session), and a candidate may call
 * setsid. Such a process dies with its sandbox (bwrap's pid namespace ends with its reaper),
 * but only some time after the group does.
 */
function groupTree(pgid: number): HostProcess[] {
  const processes = hostProcesses();
  const children = new Map<number, HostProcess[]>();
  for (const host of processes) children.set(host.ppid, [...(children.get(host.ppid) ?? []), host]);
  const tree: HostProcess[] = [];
  const visit = (member: HostProcess): void => {
    tree.push(member);
    for (const child of children.get(member.pid) ?? []) if (child.pgid !== pgid) visit(child);
  };
  for (const host of processes) if (host.pgid === pgid) visit(host);
  return tree;
}

/**
 * Whether a member of group `pgid` or any of `tree` still runs. A killed process is a zombie until its parent reaps it, and
 * one whose parent died first is reaped by pid 1, which can take more than a second (measured:
 * 1.4 s under the VM init of these machines); a zombie holds no memory, files or CPU, so
 * waiting for it would only delay every run that left a background process.
 */
function anyRunning(pgid: number, tree: HostProcess[]): boolean {
  const now = hostProcesses().filter((host) => !host.zombie);
  if (now.some((host) => host.pgid === pgid)) return true;
  const running = new Map(now.map((host) => [host.pid, host.start]));
  return tree.some((host) => running.get(host.pid) === host.start);
}

/** Whether any process, a zombie included, is in group `pgid` (signal 0 tests, sends nothing). */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    // EPERM: a member this user may not signal is still a member.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * SIGKILL is asynchronous: kills group `pgid` and whatever its members started outside it,
 * then waits (briefly) until none of them is left running.
 */
export async function killGroupAndWait(pgid: number): Promise<void> {
  // The common end of a run: its leader exited and was reaped, and nothing was left behind.
  // An empty group has no members, so none whose children could be found below: the scans of
  // every host process (milliseconds each with hundreds of processes, twice per run at least)
  // are skipped. (A process that left the group and whose parent in it has exited is not
  // found by the scan either: its parent is then pid 1.)
  if (!groupExists(pgid)) return;
  const tree = groupTree(pgid);
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: the group is empty; what left it may still run
  }
  for (const stray of tree) {
    if (stray.pgid === pgid || stray.zombie) continue;
    // The number is still the process seen a moment ago unless it started at another time.
    if (processStartTime(stray.pid) === stray.start) {
      try {
        process.kill(stray.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
  for (let tries = 0; tries < 100 && anyRunning(pgid, tree); tries++) await delay(10);
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
