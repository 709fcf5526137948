/**
 * Killing a sandbox's process group (daemon/sandbox/processGroup.ts). The executors' conformance
 * suite checks that what a run left behind dies, also in a session of its own; this checks the
 * cost of the usual end of a run: a group whose leader exited and left nothing needs no scan of
 * every host process (hundreds of them at 64 workers, two scans per run), while a group with a
 * member left still gets the scan that finds and kills it.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { killGroupAndWait, processRunning, statFields } from '../../daemon/sandbox/processGroup';

/** The real `fs` module (not an import's copy of its bindings): its readdirSync is what the kill calls. */
const realFs = process.getBuiltinModule('node:fs');

/** Runs `work` counting the listings of /proc it makes. */
async function procListings(work: () => Promise<void>): Promise<number> {
  const original = realFs.readdirSync;
  let listings = 0;
  realFs.readdirSync = ((dir: unknown, ...rest: unknown[]) => {
    if (dir === '/proc') listings++;
    return (original as (...args: unknown[]) => unknown)(dir, ...rest);
  }) as typeof realFs.readdirSync;
  try {
    await work();
  } finally {
    realFs.readdirSync = original;
  }
  return listings;
}

/** A shell leading a process group of its own, as a sandboxed run is started. */
function groupLeader(script: string): ChildProcess & { pid: number } {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  assert.ok(child.pid !== undefined, 'sh did not start');
  return child as ChildProcess & { pid: number };
}

describe('killing a process group', () => {
  it('costs no scan of the host processes when the run ended and left nothing', async () => {
    const leader = groupLeader('exit 0');
    await once(leader, 'exit');
    assert.equal(await procListings(() => killGroupAndWait(leader.pid)), 0);
  });

  it('scans for, and kills, a member the run left running after its leader exited', async () => {
    const leader = groupLeader('sleep 30 & exit 0');
    await once(leader, 'exit');
    // The leader is gone; its background sleep is still in the group.
    const sleeper = findGroupMember(leader.pid);
    assert.ok(sleeper !== undefined, 'the background sleep was not found in the group');
    assert.ok((await procListings(() => killGroupAndWait(leader.pid))) > 0, 'a group with a member left was not scanned');
    assert.equal(processRunning(sleeper), false, `the left-behind sleep (pid ${sleeper}) still runs`);
  });
});

/** A running process of group `pgid` other than its leader. */
function findGroupMember(pgid: number): number | undefined {
  for (const entry of realFs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === pgid) continue;
    const fields = statFields(entry);
    if (fields && Number(fields[2]) === pgid && fields[0] !== 'Z') return Number(entry);
  }
  return undefined;
}
