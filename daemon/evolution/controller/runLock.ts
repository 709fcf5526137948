/**
 * A run directory in use: the process running a run (started or resumed, in the CLI or the
 * daemon), or merging other runs into it, holds `run.lock` (its pid). Without it a resume
 * started beside a live run, or a merge, would append to the same journal and replace the
 * checkpoint under the other. A lock whose process is gone (kill -9, a reboot) is stale and
 * the next run or merge takes it over, so a killed run can always be resumed.
 */
import { acquireStateLock, lockHolder } from '../../rpc/stateLock';
import type { RunDir } from './runDir';

export const RUN_LOCK_FILE = 'run.lock';

export class RunBusyError extends Error {
  override name = 'RunBusyError';

  constructor(
    readonly runId: string,
    readonly holder: number,
  ) {
    super(
      `run ${runId} is in use by process ${holder} (it is running, or being merged into); wait until it stops, or stop it (Ctrl-C where it runs; \`peagen daemon stop\` interrupts the daemon's runs with a checkpoint), then try again`,
    );
  }
}

export interface RunLock {
  release(): void;
}

/** Takes the run's lock. @throws RunBusyError naming the live process that holds it. */
export function lockRun(runDir: RunDir): RunLock {
  const attempt = acquireStateLock(runDir.dir, RUN_LOCK_FILE);
  if (!attempt.acquired) throw new RunBusyError(runDir.id, attempt.holder);
  return attempt.lock;
}

/** The pid of the live process using the run, if any. */
export function runLockHolder(runDir: RunDir): number | undefined {
  return lockHolder(runDir.dir, RUN_LOCK_FILE);
}
