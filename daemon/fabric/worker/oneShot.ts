/**
 * One-shot workers: every task runs in a fresh Node process that exits when the task is
 * done, so nothing a task leaves in memory, globals or open handles reaches the next one.
 * The parent keeps the queue claim (and its heartbeat); the child only runs the handler.
 *
 * A child is either cold (forked for a task it is handed at once) or warm (forked ahead of
 * time: it sets up its handlers, and its sandbox, and says `ready`; the task comes later).
 * Either way it runs exactly one task and exits.
 */
import { type ChildProcess, fork } from 'node:child_process';
import type { Task } from '../../../shared/task';
import type { HandlerRegistry } from './HandlerRegistry';
import { ONE_SHOT_ENV } from './oneShotEnv';
import { TASK_SECRET_ENV } from '../queue/taskSignature';
import { runTask, type TaskOutcome, type TaskTracer } from './runTask';

/**
 * Why a one-shot process ended; counted per reason (`worker_exit_reason_total`).
 * `lease_lost`: the queue gave the task to another worker, so this run had to stop.
 * `idle`: a warm process retired unused (the spawner scaled down). `setup_failed`: a warm
 * process could not set up its handlers or sandbox.
 */
export type ExitReason = 'completed' | 'crashed' | 'timeout' | 'cancelled' | 'shutdown' | 'lease_lost' | 'idle' | 'setup_failed';

const EXIT_REASONS: readonly ExitReason[] = ['completed', 'crashed', 'timeout', 'cancelled', 'shutdown', 'lease_lost', 'idle', 'setup_failed'];
/** How long an exited child's channel may take to deliver its last messages. */
const EXIT_MESSAGE_GRACE_MS = 2000;

export { ONE_SHOT_ENV };

/**
 * What a child's work creates outside the child (its sandboxes: directories, containers,
 * cgroups), named through the environment the child gets, and removed by the parent after
 * the child exits: a SIGKILLed child cleans nothing up itself.
 */
export interface ChildScope {
  env: Record<string, string>;
  release(): Promise<void>;
}

/**
 * What a one-shot child sends its parent beside the outcome, for a layer above the fabric
 * (observability: the sandbox timings of the child's runs, counted by the parent that serves
 * /metrics). Opaque to the fabric; the composition root hands the same hook to both sides.
 */
export interface ChildReport {
  /** In the child, once its task has run: what to send. */
  take(): unknown;
  /** In the parent: what its child sent. */
  receive(report: unknown): void;
}

export interface OneShotProcessOptions {
  /** The script that calls {@link runOneShotChild} when ONE_SHOT_ENV is set. */
  entry: string;
  /** The Node binary to run it with; default: this process's. */
  execPath?: string;
  env?: Record<string, string>;
  /** Prefixes the child's log lines. */
  label: string;
  onLog?: (line: string) => void;
  /** Opens the resources of one child; released once it has exited, however it ended. */
  childScope?: () => ChildScope;
  /** Receives what the child reports beside its outcome. */
  childReport?: ChildReport;
}

export interface OneShotOptions extends Omit<OneShotProcessOptions, 'label'> {
  /** The parent's resolved configuration, handed to the child's registry factory. */
  config: unknown;
  workerId: string;
  /** Aborting kills the process; the abort reason (an ExitReason) is recorded. */
  signal: AbortSignal;
}

export interface OneShotEnd {
  outcome: TaskOutcome;
  exitReason: ExitReason;
}

/** Parent to child. */
type ParentMessage = { type: 'warm'; config: unknown } | { type: 'run'; task: Task; workerId: string; config: unknown };
/** Child to parent. */
type ChildMessage = { type: 'ready' } | { type: 'setup_failed'; message: string } | { type: 'outcome'; outcome: TaskOutcome; report?: unknown };

/** Runs one task in a fresh (cold) child process. */
export function runOneShot(task: Task, options: OneShotOptions): Promise<OneShotEnd> {
  return new OneShotProcess({ ...options, label: options.workerId }).run(task, options);
}

/**
 * One child process, from fork to exit. The exit reason is settled once the child has exited
 * and its scope (its sandboxes) has been released.
 */
export class OneShotProcess {
  /** Settles with the exit reason once the child has exited and its scope is released. */
  readonly exited: Promise<ExitReason>;
  /** Aborted the moment the child exits (before its scope is released). */
  readonly gone: AbortSignal;
  private readonly child: ChildProcess;
  private readonly scope: ChildScope | undefined;
  private readonly goneController = new AbortController();
  private state: 'started' | 'warming' | 'ready' | 'running' | 'exited' = 'started';
  private killedFor: ExitReason | undefined;
  private setupFailure: string | undefined;
  private outcome: TaskOutcome | undefined;
  private stderrTail = '';
  private onReady: ((ready: boolean) => void) | undefined;
  private onEnd: ((end: { code: number | null; signal: NodeJS.Signals | null }) => void) | undefined;
  private settleExit!: (reason: ExitReason) => void;

  constructor(private readonly options: OneShotProcessOptions) {
    this.gone = this.goneController.signal;
    this.exited = new Promise((resolve) => (this.settleExit = resolve));
    this.scope = options.childScope?.();
    this.child = fork(options.entry, [], {
      // The task secret stays in the parent, which checks signatures before a task is handed
      // over: the child never needs it, and a task it runs unisolated cannot read it there.
      env: { ...process.env, [TASK_SECRET_ENV]: undefined, ...options.env, ...this.scope?.env, [ONE_SHOT_ENV]: '1' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      ...(options.execPath && { execPath: options.execPath }),
    });
    const forward = (chunk: Buffer): void => {
      const text = chunk.toString();
      this.stderrTail = (this.stderrTail + text).slice(-4000);
      for (const line of text.split('\n')) if (line.trim()) options.onLog?.(`[${options.label}] ${line}`);
    };
    this.child.stdout?.on('data', forward);
    this.child.stderr?.on('data', forward);
    this.child.on('message', (message: ChildMessage) => this.onMessage(message));
    this.child.on('error', (error) => {
      this.stderrTail += `\n${error.message}`;
      // A process that never started (ENOENT, ENOMEM, EAGAIN) has no pid and will never
      // emit `exit`: answer now, or its caller waits forever.
      if (this.child.pid === undefined) this.onExit(null, null);
    });
    this.child.on('exit', (code, signal) => {
      // The child's last message (its outcome) can still be in flight when it exits: a worker
      // that answered and exited 0 was taken for a crash. Its exit is judged once the channel
      // has closed (bounded: a process it left behind may hold the channel open).
      if (!this.child.connected) return this.onExit(code, signal);
      const late = setTimeout(() => this.onExit(code, signal), EXIT_MESSAGE_GRACE_MS);
      this.child.once('disconnect', () => {
        clearTimeout(late);
        this.onExit(code, signal);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** `ready`: set up and waiting for its task. */
  get phase(): 'starting' | 'ready' | 'running' | 'exited' {
    return this.state === 'started' || this.state === 'warming' ? 'starting' : this.state;
  }

  /**
   * Has the child set up its handlers and sandbox ahead of its task. True once it is ready;
   * false when it exited first (see {@link exited} for why).
   */
  warm(config: unknown): Promise<boolean> {
    if (this.state !== 'started') return Promise.reject(new Error(`warm() on a ${this.state} one-shot process`));
    this.state = 'warming';
    return new Promise((resolve) => {
      this.onReady = resolve;
      this.send({ type: 'warm', config });
    });
  }

  /** Hands the child its one task (a cold child sets up first); settles after it has exited. */
  run(task: Task, { workerId, config, signal }: { workerId: string; config: unknown; signal: AbortSignal }): Promise<OneShotEnd> {
    if (this.state === 'exited') {
      return this.exited.then((exitReason) => ({ exitReason: exitReason === 'completed' ? 'crashed' : exitReason, outcome: this.crashOutcome(null, null) }));
    }
    if (this.state === 'running' || this.state === 'warming') return Promise.reject(new Error(`run() on a ${this.state} one-shot process`));
    this.state = 'running';
    const deadlineMs = task.deadline !== undefined ? Math.max(0, task.deadline - Date.now()) : undefined;
    const deadlineTimer = deadlineMs !== undefined ? setTimeout(() => this.kill('timeout'), deadlineMs) : undefined;
    const onAbort = (): void => this.kill(isExitReason(signal.reason) ? signal.reason : 'cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => (this.onEnd = resolve));
    // A failed send (the child is already gone) is reported here and by its exit.
    this.send({ type: 'run', task, workerId, config });
    return ended.then(async ({ code, signal: exitSignal }) => {
      clearTimeout(deadlineTimer);
      signal.removeEventListener('abort', onAbort);
      const end = this.endOf(task, workerId, code, exitSignal);
      await this.exited;
      return end;
    });
  }

  /** Kills the child (SIGKILL); `reason` is what its exit is recorded as. */
  kill(reason: ExitReason): void {
    if (this.killedFor || this.state === 'exited') return;
    this.killedFor = reason;
    this.child.kill('SIGKILL');
  }

  private send(message: ParentMessage): void {
    if (!this.child.connected) return;
    this.child.send(message, (error) => {
      if (error) this.stderrTail += `\ncould not hand the message to the process: ${error.message}`;
    });
  }

  private onMessage(message: ChildMessage): void {
    if (message.type === 'ready' && this.state === 'warming') {
      this.state = 'ready';
      this.onReady?.(true);
    } else if (message.type === 'setup_failed') {
      this.setupFailure = message.message;
    } else if (message.type === 'outcome') {
      this.outcome = message.outcome;
      if (message.report !== undefined) this.options.childReport?.receive(message.report);
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.state === 'exited') return;
    const wasRunning = this.state === 'running';
    this.state = 'exited';
    this.goneController.abort();
    // Before a task was handed over, the exit says only how the process ended.
    const reasonWithoutTask: ExitReason = this.killedFor ?? (this.setupFailure !== undefined ? 'setup_failed' : 'crashed');
    if (this.setupFailure !== undefined) this.options.onLog?.(`[${this.options.label}] could not set up: ${this.setupFailure}`);
    this.onReady?.(false);
    this.onEnd?.({ code, signal });
    const exitReason = wasRunning ? this.runExitReason(code) : reasonWithoutTask;
    void (this.scope?.release() ?? Promise.resolve())
      .catch((error: unknown) => this.options.onLog?.(`[${this.options.label}] cleaning up after the one-shot process failed: ${(error as Error).message}`))
      .then(() => this.settleExit(exitReason));
  }

  private runExitReason(code: number | null): ExitReason {
    if (this.outcome && code === 0 && !this.killedFor) return 'completed';
    return this.killedFor ?? 'crashed';
  }

  private endOf(task: Task, workerId: string, code: number | null, signal: NodeJS.Signals | null): OneShotEnd {
    const exitReason = this.runExitReason(code);
    const now = new Date().toISOString();
    if (exitReason === 'completed' && this.outcome) return { outcome: this.outcome, exitReason };
    if (exitReason === 'timeout') {
      return {
        exitReason,
        outcome: {
          kind: 'result',
          result: {
            taskId: task.id,
            status: 'error',
            error: { code: 'timeout', message: 'the task ran past its deadline; its process was killed', retryable: false },
            attempts: task.attempts + 1,
            finishedAt: now,
            workerId,
          },
        },
      };
    }
    if (exitReason !== 'crashed') {
      return {
        exitReason,
        outcome: {
          kind: 'result',
          result: {
            taskId: task.id,
            status: 'skip',
            error: { code: exitReason, message: `the task's process was stopped (${exitReason})`, retryable: false },
            attempts: task.attempts + 1,
            finishedAt: now,
            workerId,
          },
        },
      };
    }
    return { exitReason, outcome: this.crashOutcome(code, signal) };
  }

  private crashOutcome(code: number | null, signal: NodeJS.Signals | null): TaskOutcome {
    const how = signal ? `exited with signal ${signal}` : code !== null ? `exited with code ${code}` : 'could not be started';
    return {
      kind: 'retry',
      error: {
        code: 'worker_crashed',
        message: `the one-shot worker process ${how} before answering${this.stderrTail ? `: ${this.stderrTail.trim()}` : ''}`,
        retryable: true,
      },
    };
  }
}

/** What the child's registry factory is asked for. */
export interface ChildSetup {
  /**
   * A warm child: set up everything ahead of the task, the sandbox included (the factory
   * decides what that means; the fabric knows nothing of sandboxes).
   */
  warm: boolean;
}

/**
 * The child side: set up (at once when warm, else when the task arrives), run the one task
 * the parent sends, answer, exit. `createRegistry` receives the parent's resolved
 * configuration (as sent, to be validated by the factory).
 */
export function runOneShotChild(
  createRegistry: (config: unknown, setup: ChildSetup) => Promise<HandlerRegistry>,
  hooks: {
    /** Runs after the outcome is sent and before the child exits (e.g. flushing its trace spans); bound it. */
    beforeExit?: () => Promise<void>;
    tracer?: TaskTracer;
    /** What to send the parent beside the outcome. */
    childReport?: ChildReport;
  } = {},
): void {
  const controller = new AbortController();
  const beforeExit = hooks.beforeExit ?? (async () => {});
  // The parent is gone: nobody can use the answer, and an orphan must not linger.
  process.once('disconnect', () => process.exit(1));
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const reply = (message: ChildMessage, then: () => void = () => {}): void => void process.send?.(message, then);
  let registry: Promise<HandlerRegistry> | undefined;
  let ran = false;
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'warm' && !registry) {
      registry = createRegistry(message.config, { warm: true });
      registry.then(
        () => reply({ type: 'ready' }),
        (error: unknown) => reply({ type: 'setup_failed', message: describe(error) }, () => process.exit(1)),
      );
    } else if (message.type === 'run' && !ran) {
      ran = true;
      registry ??= createRegistry(message.config, { warm: false });
      void registry
        .then(
          (handlers) => runTask(message.task, handlers, message.workerId, controller.signal, log, hooks.tracer),
          (error: unknown): TaskOutcome => ({
            kind: 'retry',
            error: { code: 'worker_setup_failed', message: `the one-shot worker could not set up its handlers: ${describe(error)}`, retryable: true },
          }),
        )
        .then((outcome) => reply({ type: 'outcome', outcome, report: hooks.childReport?.take() }, () => void beforeExit().finally(() => process.exit(0))));
    }
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function isExitReason(value: unknown): value is ExitReason {
  return EXIT_REASONS.includes(value as ExitReason);
}
