/**
 * One sandbox process from start to end: the wrapper that sets the limits (the run's cgroup,
 * or rlimits without one) and becomes bwrap, its supervision (deadline, cancel, output and
 * limits, and why it stopped), and what is released after it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { SandboxCgroup } from '../cgroup';
import type { ExecutionLimits, ExecutionRequest, ExecutionResult } from '../Executor';
import type { SandboxDir } from '../sandboxDir';
import { supervise } from '../supervise';
import { cgroupsInUse, removeOnExit } from './exitCleanup';
import type { Setup } from './setup';

/** bwrap's own processes in the sandbox's cgroup: the monitor outside and the reaper (pid 1). */
const BWRAP_PROCESSES = 2;
/** Exit status of the wrapper when it could not set the sandbox's limits up. */
export const SETUP_FAILED = 125;

/**
 * Sets the limits, then becomes bwrap. Arguments up to `--`: `cg=FILE` (join a cgroup by
 * writing 0, i.e. itself, before anything else starts), `data=KB`, `nproc=N` (rlimits).
 * Failures are reported on fd 3, which is closed before bwrap starts so the command cannot
 * write there.
 */
const WRAPPER = `fail() { echo "$1" >&3; exit ${SETUP_FAILED}; }
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
  case "$1" in
    cg=*) { echo 0 > "\${1#cg=}"; } 2>/dev/null || fail "cannot join the cgroup \${1#cg=}" ;;
    data=*) ulimit -d "\${1#data=}" 2>/dev/null || fail "cannot set RLIMIT_DATA" ;;
    nproc=*) ulimit -p "\${1#nproc=}" 2>/dev/null || fail "cannot set RLIMIT_NPROC" ;;
  esac
  shift
done
shift
exec 3>&-
exec "$@"`;

/** Without cgroups: what a process's stderr says when an rlimit struck. */
const MEMORY_FAILURE = /MemoryError|Cannot allocate memory|std::bad_alloc|out of memory|Fatal process out of memory|Allocation failed/;
const FORK_FAILURE = /Cannot fork|can't fork|fork: (retry: )?Resource temporarily unavailable|BlockingIOError: \[Errno 11\]|spawn EAGAIN/;

/** The run's cgroup (joined by the wrapper), or the rlimits that stand in for it. */
export function limitSandbox(setup: Setup, limits: ExecutionLimits, owner: string): { cgroup: SandboxCgroup | undefined; wrapperArgs: string[] } {
  if (setup.cgroups) {
    const cgroup = setup.cgroups.create({ memoryBytes: limits.memoryMb * 1024 * 1024, pids: limits.pids + BWRAP_PROCESSES }, owner);
    cgroupsInUse.add(cgroup);
    return { cgroup, wrapperArgs: cgroup.joinFiles.map((file) => `cg=${file}`) };
  }
  const wrapperArgs = [`data=${limits.memoryMb * 1024}`];
  if (setup.enforcement.pids === 'rlimit') wrapperArgs.push(`nproc=${limits.pids + BWRAP_PROCESSES}`);
  return { cgroup: undefined, wrapperArgs };
}

/** Starts the wrapper (which becomes bwrap) in a process group of its own, recorded for reclaim. */
export function spawnSandbox(dir: SandboxDir, wrapperArgs: string[], env: Record<string, string>, goChannel: boolean): ChildProcess {
  const child = spawn('/bin/sh', ['-c', WRAPPER, 'peagen-sandbox', ...wrapperArgs], {
    cwd: '/',
    env: { PATH: '/usr/bin:/bin', ...env },
    detached: true,
    stdio: goChannel ? ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  dir.recordProcessGroup(child.pid);
  return child;
}

export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export async function releaseSandbox(dir: SandboxDir, cgroup: SandboxCgroup | undefined): Promise<void> {
  if (cgroup) {
    await cgroup.destroy();
    cgroupsInUse.delete(cgroup);
  }
  dir.dispose();
  removeOnExit.delete(dir.root);
}

/**
 * Watches a started sandbox to its end. `warm`: the command was started by the prepared
 * stub (through env, which reports a missing program as 127 itself).
 */
export async function superviseSandbox(
  setup: Setup,
  child: ChildProcess,
  request: ExecutionRequest,
  limits: ExecutionLimits,
  cgroup: SandboxCgroup | undefined,
  warm: boolean,
): Promise<ExecutionResult> {
  let setupError = '';
  (child.stdio[3] as Readable | null)?.on('data', (chunk: Buffer) => (setupError += chunk.toString()));
  const run = await supervise(child, {
    limits,
    stdin: request.stdin,
    signal: request.signal,
    // bwrap's exit ends its pid namespace; whatever escaped into the cgroup dies too.
    killAll: () => {
      killGroup(child);
      cgroup?.kill();
    },
    ...(cgroup && {
      check: () => {
        const stats = cgroup.stats();
        return stats.oomKills > 0 ? 'memory' : stats.pidsLimitHits > 0 ? 'pids' : undefined;
      },
    }),
    watch: (stop) => {
      if (cgroup || setup.enforcement.pids !== 'rlimit') return;
      // Without cgroups a failed fork is the only sign of the process limit.
      let tail = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        tail = (tail + chunk.toString('latin1')).slice(-4096);
        if (FORK_FAILURE.test(tail)) stop('pids');
      });
    },
  });
  const code = run.exitCode;
  let stoppedBy = run.stoppedBy;
  const { stdout, stderr, signal } = run;
  if (code === SETUP_FAILED && setupError) throw new Error(`the sandbox's limits could not be set: ${setupError.trim()}`);

  const stderrText = stderr.text();
  const stats = cgroup?.stats();
  if (stats) {
    if (stats.oomKills > 0) stoppedBy ??= 'memory';
    else if (stats.pidsLimitHits > 0) stoppedBy ??= 'pids';
  } else if (code !== 0 && MEMORY_FAILURE.test(stderrText)) {
    stoppedBy ??= 'memory';
  }
  return {
    executor: 'bwrap',
    exitCode: warm ? code : commandExitCode(code, stderrText),
    signal,
    stdout: stdout.text(),
    stderr: stderrText,
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    wallMs: run.wallMs,
    ...(stats?.peakMemoryBytes !== undefined && { peakMemoryKb: Math.round(stats.peakMemoryBytes / 1024) }),
    ...(stoppedBy && { stoppedBy }),
  };
}

/** bwrap reports a command it could not start as its own exit 1; say 127/126 like a shell. */
function commandExitCode(code: number | null, stderr: string): number | null {
  if (code !== 1) return code;
  const match = /bwrap: execvp [^\n]*: ([^\n]*)\n?$/.exec(stderr);
  if (!match) return code;
  return match[1] === 'No such file or directory' ? 127 : 126;
}
