/**
 * The fallback for machines with neither Docker nor bubblewrap (macOS, Windows, bare CI):
 * a temporary directory, a scrubbed environment, and a kill of the whole process group at
 * the deadline. It does NOT isolate — the code can read and write anything the user can,
 * and reach the network — and it says so once per run.
 */
import { spawn } from 'node:child_process';
import {
  type Availability,
  type ExecutionRequest,
  type ExecutionResult,
  type Executor,
  resolveLimits,
  type StopReason,
  WORKSPACE_PATH,
} from './Executor';
import { OutputCapture } from './outputCapture';
import { SandboxDir, sandboxEnv } from './sandboxDir';
import { pathMap, translate } from './translatePaths';

export class ProcessExecutor implements Executor {
  readonly name = 'process' as const;
  readonly isolates = false;
  private warned = false;

  constructor(private readonly warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`)) {}

  async available(): Promise<Availability> {
    return { ok: true, detail: 'no isolation: a temporary directory, a scrubbed environment and a process-group kill' };
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    if (!this.warned) {
      this.warned = true;
      this.warn(
        'warning: the "process" executor does not isolate candidate code (it can read your files and use the network); install Docker or bubblewrap for real sandboxes',
      );
    }
    const limits = resolveLimits(request.limits);
    const dir = SandboxDir.create(request.workspace, { ...(request.files && { files: request.files }) });
    const map = pathMap(WORKSPACE_PATH, dir.workspace, request.mounts);
    const env = Object.fromEntries(
      Object.entries(sandboxEnv(request.env, dir.home, dir.tmp)).map(([key, value]) => [key, translate(value, map)]),
    );
    const [program, ...args] = request.command.map((arg) => translate(arg, map));
    if (!program) throw new Error('the command is empty');
    const started = Date.now();
    let stoppedBy: StopReason | undefined;
    try {
      const child = spawn(program, args, {
        cwd: translate(request.cwd ?? WORKSPACE_PATH, map),
        env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const killGroup = (reason: StopReason): void => {
        stoppedBy ??= reason;
        if (child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      };
      const stdout = new OutputCapture(limits.outputBytes, () => killGroup('output')).attach(child.stdout);
      const stderr = new OutputCapture(limits.outputBytes, () => killGroup('output')).attach(child.stderr);
      const timer = setTimeout(() => killGroup('timeout'), limits.timeoutMs);
      const onAbort = (): void => killGroup('cancelled');
      request.signal?.addEventListener('abort', onAbort, { once: true });
      if (request.signal?.aborted) onAbort();
      child.stdin.on('error', () => {});
      child.stdin.end(request.stdin ?? '');
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
        child.once('error', () => resolve([127, null]));
        child.once('exit', (code, sig) => resolve([code, sig]));
      });
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      // Whatever the command left running in its group dies with the run; then the pipes
      // it held close and the output is complete.
      if (child.pid !== undefined) await killGroupAndWait(child.pid);
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      return {
        executor: this.name,
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        wallMs: Date.now() - started,
        ...(stoppedBy && { stoppedBy }),
      };
    } finally {
      dir.dispose();
    }
  }

  async close(): Promise<void> {}
}

/** SIGKILL is asynchronous: wait (briefly) until no member of the group is left. */
async function killGroupAndWait(pgid: number): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    try {
      process.kill(-pgid, tries === 0 ? 'SIGKILL' : 0);
    } catch {
      return; // ESRCH: the group is empty
    }
    if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
