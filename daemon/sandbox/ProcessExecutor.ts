/**
 * The fallback for machines with neither Docker nor bubblewrap (macOS, Windows, bare CI):
 * a temporary directory, a scrubbed environment, and a kill of the whole process group at
 * the deadline. It does NOT isolate — the code can read and write anything the user can,
 * and reach the network — and it says so once per run.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import {
  type Availability,
  coldPreparedSandbox,
  type ExecutionRequest,
  type ExecutionResult,
  type Executor,
  type PreparedSandbox,
  resolveLimits,
  WORKSPACE_PATH,
} from './Executor';
import { trackExecutor, untrackExecutor } from './liveSandboxes';
import { killGroupAndWait } from './processGroup';
import { reclaimSandboxDirs, SandboxDir, sandboxEnv } from './sandboxDir';
import { supervise } from './supervise';
import { pathMap, translate, translateList } from './translatePaths';

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
    if (!request.command[0]) throw new Error('the command is empty');
    trackExecutor(this);
    const dir = SandboxDir.create(request.workspace, { files: request.files });
    try {
      // No isolation: the writable mount is the host directory itself, like every other path.
      const map = pathMap(WORKSPACE_PATH, dir.workspace, [...(request.mounts ?? []), ...(request.writableMount ? [request.writableMount] : [])]);
      const env = Object.fromEntries(
        Object.entries(sandboxEnv(request.env, dir.home, dir.tmp)).map(([key, value]) => [key, translateList(value, map)]),
      );
      // `node` is the daemon's own (the one Peagen supports), not an older one in /usr/bin.
      if (!request.env?.PATH) env.PATH = `${path.dirname(process.execPath)}:${env.PATH}`;
      const [program = '', ...args] = request.command.map((arg) => translate(arg, map));
      const child = spawn(program, args, {
        cwd: translate(request.cwd ?? WORKSPACE_PATH, map),
        env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      dir.recordProcessGroup(child.pid);
      const run = await supervise(child, {
        limits,
        stdin: request.stdin,
        signal: request.signal,
        killAll: () => (child.pid === undefined ? undefined : killGroupAndWait(child.pid)),
      });
      return {
        executor: this.name,
        exitCode: run.exitCode,
        signal: run.signal,
        stdout: run.stdout.text(),
        stderr: run.stderr.text(),
        stdoutTruncated: run.stdout.truncated,
        stderrTruncated: run.stderr.truncated,
        wallMs: run.wallMs,
        ...(run.stoppedBy && { stoppedBy: run.stoppedBy }),
      };
    } finally {
      dir.dispose();
    }
  }

  /** Nothing is made ahead yet: the task's sandbox is made when it arrives. */
  async prepare(): Promise<PreparedSandbox> {
    return coldPreparedSandbox(this);
  }

  /** The recorded process groups of `owner`'s runs die, then their directories go. */
  async reclaim(owner: string): Promise<void> {
    await reclaimSandboxDirs(owner);
  }

  /** Nothing to release: each run is self-contained. */
  async close(): Promise<void> {
    untrackExecutor(this);
  }
}
