/**
 * Watches one sandboxed child process to its end: output caps, the deadline, cancellation
 * and the executor's own limit checks all stop it the same way, by killing everything the
 * run started; the first reason wins. Shared by the executors that run a host process
 * (bwrap, process); docker supervises its container through the engine instead.
 */
import type { ChildProcess } from 'node:child_process';
import type { ExecutionLimits, StopReason } from './Executor';
import { OutputCapture } from './outputCapture';
import { noteProgramStarted } from './runTiming';

export interface SuperviseOptions {
  limits: ExecutionLimits;
  stdin?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Kills the whole run (process group, cgroup ...). Called on a stop and again after exit. */
  killAll(): void | Promise<void>;
  /** Polled while the command runs; a reason stops it (e.g. a cgroup's OOM counter). */
  check?: () => StopReason | undefined;
  /** Lets the executor add watchers of its own that may stop the run. */
  watch?: (stop: (reason: StopReason) => void) => void;
}

export interface SupervisedExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: OutputCapture;
  stderr: OutputCapture;
  stoppedBy: StopReason | undefined;
  wallMs: number;
}

const CHECK_INTERVAL_MS = 100;
/** After the exit, how long the pipes may stay open before the output counts as complete. */
const PIPE_DRAIN_MS = 2_000;

export async function supervise(child: ChildProcess, options: SuperviseOptions): Promise<SupervisedExit> {
  const started = Date.now();
  noteProgramStarted();
  let stoppedBy: StopReason | undefined;
  const stop = (reason: StopReason): void => {
    stoppedBy ??= reason;
    void options.killAll();
  };
  const stdout = new OutputCapture(options.limits.outputBytes, () => stop('output')).attach(child.stdout);
  const stderr = new OutputCapture(options.limits.outputBytes, () => stop('output')).attach(child.stderr);
  options.watch?.(stop);
  const timer = setTimeout(() => stop('timeout'), options.limits.timeoutMs);
  const { check } = options;
  const poll = check
    ? setInterval(() => {
        const reason = check();
        if (reason) stop(reason);
      }, CHECK_INTERVAL_MS)
    : undefined;
  const onAbort = (): void => stop('cancelled');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  child.stdin?.on('error', () => {});
  child.stdin?.end(options.stdin ?? '');

  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('error', () => resolve([127, null]));
    child.once('exit', (code, sig) => resolve([code, sig]));
  });
  clearTimeout(timer);
  if (poll) clearInterval(poll);
  options.signal?.removeEventListener('abort', onAbort);
  // Whatever the command left running dies with the run; then the pipes it held close and
  // the output is complete.
  await options.killAll();
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, PIPE_DRAIN_MS))]);
  return { exitCode, signal, stdout, stderr, stoppedBy, wallMs: Date.now() - started };
}
