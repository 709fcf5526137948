/**
 * One-shot workers: every task runs in a fresh Node process that exits when the task is
 * done, so nothing a task leaves in memory, globals or open handles reaches the next one.
 * The parent keeps the queue claim (and its heartbeat); the child only runs the handler.
 */
import { fork } from 'node:child_process';
import type { Task } from '../../../shared/task';
import type { HandlerRegistry } from './HandlerRegistry';
import { runTask, type TaskOutcome } from './runTask';

/**
 * Why a one-shot process ended; counted per reason (`worker_exit_reason_total`).
 * `lease_lost`: the queue gave the task to another worker, so this run had to stop.
 */
export type ExitReason = 'completed' | 'crashed' | 'timeout' | 'cancelled' | 'shutdown' | 'lease_lost';

export const ONE_SHOT_ENV = 'PEAGEN_ONE_SHOT';

export interface OneShotOptions {
  /** The script that calls {@link runOneShotChild} when ONE_SHOT_ENV is set. */
  entry: string;
  /** The Node binary to run it with; default: this process's. */
  execPath?: string;
  /** The parent's resolved configuration, handed to the child's registry factory. */
  config: unknown;
  env?: Record<string, string>;
  workerId: string;
  /** Aborting kills the process; the abort reason (an ExitReason) is recorded. */
  signal: AbortSignal;
  onLog?: (line: string) => void;
  /** Opens the resources of one child; released once it has exited, however it ended. */
  childScope?: () => ChildScope;
}

/**
 * What a child's work creates outside the child (its sandboxes: directories, containers,
 * cgroups), named through the environment the child gets, and removed by the parent after
 * the child exits: a SIGKILLed child cleans nothing up itself.
 */
export interface ChildScope {
  env: Record<string, string>;
  release(): Promise<void>;
}

interface ChildRequest {
  task: Task;
  workerId: string;
  config: unknown;
}
interface ChildReply {
  outcome: TaskOutcome;
}

export function runOneShot(task: Task, options: OneShotOptions): Promise<{ outcome: TaskOutcome; exitReason: ExitReason }> {
  return new Promise((settle) => {
    const scope = options.childScope?.();
    const resolve = (ended: { outcome: TaskOutcome; exitReason: ExitReason }): void => {
      void (scope?.release() ?? Promise.resolve())
        .catch((error: unknown) => options.onLog?.(`[${options.workerId}] cleaning up after the one-shot process failed: ${(error as Error).message}`))
        .then(() => settle(ended));
    };
    const child = fork(options.entry, [], {
      env: { ...process.env, ...options.env, ...scope?.env, [ONE_SHOT_ENV]: '1' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      ...(options.execPath && { execPath: options.execPath }),
    });
    let outcome: TaskOutcome | undefined;
    let killedFor: ExitReason | undefined;
    let stderrTail = '';
    const forward = (chunk: Buffer): void => {
      const text = chunk.toString();
      stderrTail = (stderrTail + text).slice(-4000);
      for (const line of text.split('\n')) if (line.trim()) options.onLog?.(`[${options.workerId}] ${line}`);
    };
    child.stdout?.on('data', forward);
    child.stderr?.on('data', forward);

    const deadlineMs = task.deadline !== undefined ? Math.max(0, task.deadline - Date.now()) : undefined;
    const deadlineTimer = deadlineMs !== undefined ? setTimeout(() => kill('timeout'), deadlineMs) : undefined;
    const onAbort = (): void => kill(isExitReason(options.signal.reason) ? options.signal.reason : 'cancelled');
    options.signal.addEventListener('abort', onAbort, { once: true });
    if (options.signal.aborted) onAbort();

    function kill(reason: ExitReason): void {
      if (killedFor || child.exitCode !== null) return;
      killedFor = reason;
      child.kill('SIGKILL');
    }

    child.on('message', (message: ChildReply) => {
      outcome = message.outcome;
    });
    child.on('error', (error) => {
      stderrTail += `\n${error.message}`;
      // A process that never started (ENOENT, ENOMEM, EAGAIN) has no pid and will never
      // emit `exit`: answer now, or the worker slot waits forever.
      if (child.pid === undefined) onExit(null, null);
    });
    child.on('exit', (code, signal) => onExit(code, signal));
    let settled = false;
    function onExit(code: number | null, signal: NodeJS.Signals | null): void {
      if (settled) return;
      settled = true;
      clearTimeout(deadlineTimer);
      options.signal.removeEventListener('abort', onAbort);
      const now = new Date().toISOString();
      if (outcome && code === 0 && !killedFor) {
        resolve({ outcome, exitReason: 'completed' });
      } else if (killedFor === 'timeout') {
        resolve({
          exitReason: 'timeout',
          outcome: {
            kind: 'result',
            result: {
              taskId: task.id,
              status: 'error',
              error: { code: 'timeout', message: 'the task ran past its deadline; its process was killed', retryable: false },
              attempts: task.attempts + 1,
              finishedAt: now,
              workerId: options.workerId,
            },
          },
        });
      } else if (killedFor) {
        resolve({
          exitReason: killedFor,
          outcome: {
            kind: 'result',
            result: {
              taskId: task.id,
              status: 'skip',
              error: { code: killedFor, message: `the task's process was stopped (${killedFor})`, retryable: false },
              attempts: task.attempts + 1,
              finishedAt: now,
              workerId: options.workerId,
            },
          },
        });
      } else {
        const how = signal ? `exited with signal ${signal}` : code !== null ? `exited with code ${code}` : 'could not be started';
        resolve({
          exitReason: 'crashed',
          outcome: {
            kind: 'retry',
            error: {
              code: 'worker_crashed',
              message: `the one-shot worker process ${how} before answering${stderrTail ? `: ${stderrTail.trim()}` : ''}`,
              retryable: true,
            },
          },
        });
      }
    }
    // A failed send (the child is already gone) is reported here and by its exit.
    child.send({ task, workerId: options.workerId, config: options.config } satisfies ChildRequest, (error) => {
      if (error) stderrTail += `\ncould not hand the task to the process: ${error.message}`;
    });
  });
}

/**
 * The child side: run the one task the parent sends, answer, exit. `createRegistry` receives
 * the parent's resolved configuration (as sent, to be validated by the factory).
 */
export function runOneShotChild(createRegistry: (config: unknown) => Promise<HandlerRegistry>): void {
  const controller = new AbortController();
  // The parent is gone: nobody can use the answer, and an orphan must not linger.
  process.once('disconnect', () => process.exit(1));
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  process.once('message', (request: ChildRequest) => {
    void createRegistry(request.config)
      .then(
        (handlers) => runTask(request.task, handlers, request.workerId, controller.signal, log),
        (error: unknown): TaskOutcome => ({
          kind: 'retry',
          error: {
            code: 'worker_setup_failed',
            message: `the one-shot worker could not set up its handlers: ${error instanceof Error ? error.message : String(error)}`,
            retryable: true,
          },
        }),
      )
      .then((outcome) => process.send?.({ outcome } satisfies ChildReply, () => process.exit(0)));
  });
}

function isExitReason(value: unknown): value is ExitReason {
  return (
    value === 'completed' || value === 'crashed' || value === 'timeout' || value === 'cancelled' || value === 'shutdown' || value === 'lease_lost'
  );
}
