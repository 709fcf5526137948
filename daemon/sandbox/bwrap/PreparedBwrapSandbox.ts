import { type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { SandboxCgroup } from '../cgroup';
import { type ExecutionRequest, type ExecutionResult, resolveLimits, WORKSPACE_PATH } from '../Executor';
import { sandboxOwner } from '../owner';
import { SandboxDir } from '../sandboxDir';
import { goScript, STUB_PRELUDE } from '../warm/goScript';
import { mirrorTree } from '../warm/mirrorTree';
import { mountIndex, type PreparedShape } from '../warm/preparedShape';
import { SingleUseSandbox } from '../warm/SingleUseSandbox';
import { removeOnExit } from './exitCleanup';
import { bwrapArgs, checkMount, commandEnv } from './rootFs';
import { killGroup, limitSandbox, releaseSandbox, SETUP_FAILED, spawnSandbox, superviseSandbox } from './sandboxProcess';
import type { Setup } from './setup';

/**
 * A bwrap sandbox made before its task: namespaces, mounts and cgroup are set up, and a
 * shell stub waits inside (as the process a cold run's command would be) for one line on
 * fd 4, the go signal (goScript.ts). When the task arrives, its workspace is copied into the
 * bound workspace directory, each read-only mount directory (bound empty) is filled
 * (mirrorTree.ts), and the go line makes the stub exec the command: the task costs a few
 * file operations, a socket write and two execs.
 */
export class PreparedBwrapSandbox extends SingleUseSandbox {
  readonly executor = 'bwrap' as const;
  private exited = false;
  private released: Promise<void> | undefined;

  private constructor(
    private readonly hooks: PreparedHooks,
    private readonly setup: Setup,
    protected readonly shape: PreparedShape,
    private readonly dir: SandboxDir,
    private readonly mountDirs: readonly string[],
    private readonly cgroup: SandboxCgroup | undefined,
    private readonly child: ChildProcess,
  ) {
    super();
    child.once('exit', () => (this.exited = true));
  }

  /** Resolves once the stub waits inside the finished sandbox; throws when it cannot be made. */
  static async start(hooks: PreparedHooks, setup: Setup, shape: PreparedShape): Promise<PreparedBwrapSandbox> {
    const owner = sandboxOwner();
    const dir = SandboxDir.create(undefined, { owner });
    removeOnExit.add(dir.root);
    let cgroup: SandboxCgroup | undefined;
    try {
      const mounts = shape.mountPoints.map((sandboxPath, index) => {
        const hostPath = path.join(dir.root, 'ro', String(index));
        fs.mkdirSync(hostPath, { recursive: true });
        return { hostPath, sandboxPath: checkMount(hostPath, sandboxPath) };
      });
      const args = bwrapArgs(setup, shape.limits, { dir, env: {}, mounts, cwd: WORKSPACE_PATH, command: ['/bin/sh', '-c', BWRAP_STUB] });
      const limited = limitSandbox(setup, shape.limits, owner);
      cgroup = limited.cgroup;
      const child = spawnSandbox(dir, [...limited.wrapperArgs, '--', setup.bwrap, ...args], {}, true);
      await waitUntilReady(child);
      return new PreparedBwrapSandbox(
        hooks,
        setup,
        shape,
        dir,
        mounts.map((mount) => mount.hostPath),
        cgroup,
        child,
      );
    } catch (error) {
      await releaseSandbox(dir, cgroup);
      throw error;
    }
  }

  protected ended(): boolean {
    // A reclaim kills the sandbox and removes its directory at once; Node hears of the exit only
    // when it reaps the child, which can come after the task arrives. No directory: it ended.
    return this.exited || !fs.existsSync(this.dir.root);
  }

  protected runCold(request: ExecutionRequest): Promise<ExecutionResult> {
    return this.hooks.runCold(request);
  }

  /** Tracked as a run in progress, release included: close() waits for both. */
  protected runWarm(request: ExecutionRequest): Promise<ExecutionResult> {
    return this.hooks.track(this.handOver(request));
  }

  private async handOver(request: ExecutionRequest): Promise<ExecutionResult> {
    try {
      const limits = resolveLimits(request.limits);
      // The hand-over: what a cold run puts in place before bwrap starts.
      this.dir.fill(request.workspace, { files: request.files });
      for (const mount of request.mounts ?? []) mirrorTree(mount.hostPath, this.mountDirs[mountIndex(this.shape, mount.sandboxPath)] as string);
      const go = goScript({ command: request.command, env: commandEnv(this.setup, request), cwd: request.cwd ?? WORKSPACE_PATH });
      (this.child.stdio[GO_FD] as Writable).end(go);
      return await superviseSandbox(this.setup, this.child, request, limits, this.cgroup, true);
    } finally {
      await this.release();
    }
  }

  protected release(): Promise<void> {
    this.released ??= (async () => {
      killGroup(this.child);
      this.cgroup?.kill();
      if (!this.cgroup && !this.exited) await new Promise((resolve) => this.child.once('exit', resolve));
      await releaseSandbox(this.dir, this.cgroup);
      this.hooks.forget(this);
    })();
    return this.released;
  }
}

/** What a prepared sandbox needs of its executor. */
export interface PreparedHooks {
  runCold(request: ExecutionRequest): Promise<ExecutionResult>;
  /** Counts the run as in progress (close() waits for it). */
  track<T>(run: Promise<T>): Promise<T>;
  forget(sandbox: PreparedBwrapSandbox): void;
}

/** The fd of the stub's go line (and of its readiness byte). */
const GO_FD = 4;
/** Says it is ready, waits for the go line, closes the channel so the command cannot reach it, runs the line. */
const BWRAP_STUB = `${STUB_PRELUDE}; printf r >&${GO_FD}; IFS= read -r go <&${GO_FD} || exit ${SETUP_FAILED}; exec ${GO_FD}<&-; eval "$go"`;
/** How long a prepared sandbox may take to be ready. */
const READY_TIMEOUT_MS = 30_000;

async function waitUntilReady(child: ChildProcess): Promise<void> {
  const channel = child.stdio[GO_FD] as Readable;
  let stderr = '';
  let setupError = '';
  const onStderr = (chunk: Buffer): void => void (stderr += chunk.toString());
  const onSetup = (chunk: Buffer): void => void (setupError += chunk.toString());
  child.stderr?.on('data', onStderr);
  (child.stdio[3] as Readable | null)?.on('data', onSetup);
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      channel.once('data', () => resolve());
      child.once('exit', (code, signal) => {
        // Give the pipes a moment: what bwrap said is the error.
        setTimeout(() => reject(new Error(`the prepared sandbox did not start (${code ?? signal}): ${(setupError || stderr).trim()}`)), 20);
      });
      timer = setTimeout(() => reject(new Error(`the prepared sandbox was not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
  } catch (error) {
    killGroup(child);
    throw error;
  } finally {
    clearTimeout(timer);
    child.stderr?.off('data', onStderr);
    child.stderr?.pause();
    channel.pause();
  }
}
