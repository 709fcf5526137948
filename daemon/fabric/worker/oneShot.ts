/**
 * One-shot workers: every task runs in a fresh Node process that exits when the task is
 * done, so nothing a task leaves in memory, globals or open handles reaches the next one.
 * The parent keeps the queue claim (and its heartbeat); the child only runs the handler.
 */
import { fork } from 'node:child_process';
import type { Task } from '../../../shared/task';
import { newSandboxOwner, SANDBOX_OWNER_ENV } from '../../sandbox/owner';
import type { HandlerRegistry } from './HandlerRegistry';
import { runTask, type TaskOutcome } from './runTask';

/** Why a one-shot process ended; counted per reason (`worker_exit_reason_total`). */
export type ExitReason = 'completed' | 'crashed' | 'timeout' | 'cancelled' | 'shutdown';

export const ONE_SHOT_ENV = 'PEAGEN_ONE_SHOT';

export interface OneShotOptions {
  /** The script that calls {@link runOneShotChild} when ONE_SHOT_ENV is set. */
  entry: string;
  plugins: readonly string[];
  env?: Record<string, string>;
  workerId: string;
  /** Aborting kills the process; the abort reason (an ExitReason) is recorded. */
  signal: AbortSignal;
  onLog?: (line: string) => void;
  /**
   * Called once the process has exited, for any reason, before the outcome is resolved, with
   * the owner tag its sandboxes carry (given to it in SANDBOX_OWNER_ENV). A SIGKILLed child
   * cleans nothing up: pass `(owner) => executor.reclaim(owner)`.
   */
  onExit?: (sandboxOwner: string) => Promise<void>;
}

interface ChildRequest {
  task: Task;
  workerId: string;
}
interface ChildReply {
  outcome: TaskOutcome;
}

export function runOneShot(task: Task, options: OneShotOptions): Promise<{ outcome: TaskOutcome; exitReason: ExitReason }> {
  return new Promise((settle) => {
    const sandboxOwner = newSandboxOwner();
    const resolve = (ended: { outcome: TaskOutcome; exitReason: ExitReason }): void => {
      void (options.onExit?.(sandboxOwner) ?? Promise.resolve())
        .catch((error: unknown) => options.onLog?.(`[${options.workerId}] cleaning up after the one-shot process failed: ${(error as Error).message}`))
        .then(() => settle(ended));
    };
    const child = fork(options.entry, [], {
      env: { ...process.env, ...options.env, [ONE_SHOT_ENV]: '1', [SANDBOX_OWNER_ENV]: sandboxOwner, WORKER_PLUGINS: options.plugins.join(',') },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
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
    });
    child.on('exit', (code, signal) => {
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
        const how = signal ? `signal ${signal}` : `code ${code}`;
        resolve({
          exitReason: 'crashed',
          outcome: {
            kind: 'retry',
            error: {
              code: 'worker_crashed',
              message: `the one-shot worker process exited with ${how} before answering${stderrTail ? `: ${stderrTail.trim()}` : ''}`,
              retryable: true,
            },
          },
        });
      }
    });
    child.send({ task, workerId: options.workerId } satisfies ChildRequest);
  });
}

/** The child side: run the one task the parent sends, answer, exit. */
export function runOneShotChild(createRegistry: () => Promise<HandlerRegistry>): void {
  const controller = new AbortController();
  // The parent is gone: nobody can use the answer, and an orphan must not linger.
  process.once('disconnect', () => process.exit(1));
  const registry = createRegistry();
  process.once('message', (request: ChildRequest) => {
    void registry
      .then((handlers) => runTask(request.task, handlers, request.workerId, controller.signal, (line) => process.stderr.write(`${line}\n`)))
      .then((outcome) => process.send?.({ outcome } satisfies ChildReply, () => process.exit(0)));
  });
}

function isExitReason(value: unknown): value is ExitReason {
  return value === 'completed' || value === 'crashed' || value === 'timeout' || value === 'cancelled' || value === 'shutdown';
}
