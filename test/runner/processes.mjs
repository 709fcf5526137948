// Every process a run of `npm test` starts carries PEAGEN_TEST_RUN=<id> in its environment
// (the lanes get it, and whatever a test spawns inherits it: daemons that detach, workers,
// code-server), so the runner can find and end what is left when it stops, also after Ctrl-C,
// without knowing who started what.
import { readdirSync, readFileSync } from 'node:fs';

export const MARKER = 'PEAGEN_TEST_RUN';

/** The processes whose environment carries MARKER=id, this one excepted. */
export function markedProcesses(id) {
  const needle = `${MARKER}=${id}\0`;
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (`${readFileSync(`/proc/${entry}/environ`, 'latin1')}\0`.includes(needle)) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

function commandOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim().slice(0, 160);
  } catch {
    return '(exited)';
  }
}

/** SIGKILLs every marked process (a stopped one too); returns what each was. */
export function killMarked(id) {
  const killed = [];
  for (const pid of markedProcesses(id)) {
    const command = commandOf(pid);
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(`${pid} ${command}`);
    } catch {
      // exited meanwhile
    }
  }
  return killed;
}
