/**
 * A docker sandbox made before its task: a container with the spec of a cold run (image,
 * user, no network, read-only root, limits, tmpfs, workspace bind, owner label), created,
 * attached and started. Its main process (under docker-init, like the cold holder) is a
 * stub that says it is ready, then reads two lines from the attached stdin: a fresh marker
 * and the go line (warm/goScript.ts). It runs the go line as its child — the command, with
 * the rest of stdin, stdout and stderr of the container — then writes `<marker><status>` to
 * stderr and becomes the holder, so the container and its cgroup counters stay until the
 * executor has read them and removes it. The marker exists only in the stub's memory and on
 * the wire: the command cannot end the run early with an end of its own choosing other
 * than by exiting, which it could do anyway.
 *
 * Read-only mounts are directories of the sandbox directory bound empty at their mount
 * points, filled when the task arrives (warm/mirrorTree.ts; copied and made readable when
 * uid 65534 could not read the source, as in a cold run).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Duplex, type Readable, Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type Docker from 'dockerode';
import { type ExecutionRequest, type ExecutionResult, resolveLimits, type StopReason, WORKSPACE_PATH } from '../Executor';
import { OutputCapture } from '../outputCapture';
import { SandboxDir, sandboxEnv } from '../sandboxDir';
import { goScript, STUB_PRELUDE } from '../warm/goScript';
import { mirrorTree } from '../warm/mirrorTree';
import { mountIndex, type PreparedShape } from '../warm/preparedShape';
import { SingleUseSandbox } from '../warm/SingleUseSandbox';
import { type ContainerCgroup, locateCgroup } from './containerCgroup';
import { type ContainerRunContext, createError, hostPid } from './containerRun';
import { containerSpec, SANDBOX_HOME, SANDBOX_TMP } from './containerSpec';
import { removeSandboxDir } from './dirRemoval';
import { engineMessage } from './endpoint';
import { ContainerEvents, WATCHED_EVENTS } from './events';
import { noteProgramStarted } from '../runTiming';

const STUB = `${STUB_PRELUDE}; printf r; IFS= read -r mark && IFS= read -r go || exit 125; (eval "$go"); s=$?; printf '%s%d\\n' "$mark" "$s" >&2; exec sleep 2147483647`;
const READY_TIMEOUT_MS = 60_000;
const LIMIT_POLL_MS = 100;
/** After a kill, how long to wait for the engine to report the container's end. */
const ABANDON_MS = 5_000;
const OUTPUT_DRAIN_MS = 2_000;

/** What a prepared container needs of its executor. */
export interface PreparedContainerHooks {
  runCold(request: ExecutionRequest): Promise<ExecutionResult>;
  forget(sandbox: PreparedContainer): void;
}

export class PreparedContainer extends SingleUseSandbox {
  readonly executor = 'docker' as const;
  private died = false;
  private released: Promise<void> | undefined;
  /** Where the container's output goes: nowhere until the task starts. */
  private stdoutTarget: ((chunk: Buffer) => void) | undefined;
  private stderrTarget: ((chunk: Buffer) => void) | undefined;
  private onDied: (() => void) | undefined;

  private constructor(
    private readonly context: ContainerRunContext,
    private readonly hooks: PreparedContainerHooks,
    protected readonly shape: PreparedShape,
    private readonly dir: SandboxDir,
    private readonly mountDirs: readonly string[],
    private readonly container: Docker.Container,
    private readonly stream: Duplex,
    private readonly events: Readable,
    private readonly watcher: ContainerEvents,
    private readonly cgroup: ContainerCgroup | undefined,
  ) {
    super();
  }

  /** Resolves once the stub waits in the started container; throws (leaving nothing) when it cannot be made. */
  static async start(context: ContainerRunContext, hooks: PreparedContainerHooks, shape: PreparedShape): Promise<PreparedContainer> {
    const { docker } = context;
    const dir = SandboxDir.create(undefined, { worldWritable: true, owner: context.owner });
    let container: Docker.Container | undefined;
    let stream: Duplex | undefined;
    let events: Readable | undefined;
    try {
      const mountDirs = shape.mountPoints.map((_, index) => {
        const hostPath = path.join(dir.root, 'ro', String(index));
        fs.mkdirSync(hostPath, { recursive: true, mode: 0o755 });
        fs.chmodSync(path.dirname(hostPath), 0o755);
        return hostPath;
      });
      const mounts: Docker.MountSettings[] = mountDirs.map((source, index) => ({ Type: 'bind', Source: source, Target: shape.mountPoints[index] as string, ReadOnly: true }));
      const spec = containerSpec(context, dir, mounts, shape.limits, { command: [] });
      try {
        container = await docker.createContainer({
          ...spec,
          Entrypoint: ['sh', '-c', STUB],
          Cmd: [],
          OpenStdin: true,
          StdinOnce: true,
          AttachStdin: true,
          AttachStdout: true,
          AttachStderr: true,
          Tty: false,
        });
      } catch (error) {
        throw new Error(createError(context, error));
      }
      const created = container;
      stream = (await created.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as Duplex;
      const [subscribed, started] = await Promise.allSettled([
        docker.getEvents({ filters: { type: ['container'], container: [created.id], event: WATCHED_EVENTS } }) as Promise<Readable>,
        created.start(),
      ]);
      if (subscribed.status === 'fulfilled') events = subscribed.value;
      if (started.status === 'rejected') throw new Error(`cannot start the sandbox container: ${engineMessage(started.reason)}`);
      if (subscribed.status === 'rejected') throw new Error(`cannot follow the sandbox container's events: ${engineMessage(subscribed.reason)}`);
      const watcher = new ContainerEvents();
      watcher.attach(subscribed.value);
      const cgroup = locateCgroup(created.id) ?? locateCgroup(created.id, await hostPid(created));
      const sandbox = new PreparedContainer(context, hooks, shape, dir, mountDirs, created, stream, subscribed.value, watcher, cgroup);
      await sandbox.waitUntilReady();
      return sandbox;
    } catch (error) {
      stream?.destroy();
      events?.destroy();
      if (container) await container.remove({ force: true }).catch(() => undefined);
      await removeSandboxDir(context.docker, context.image, dir).catch(() => undefined);
      throw error;
    }
  }

  protected ended(): boolean {
    return this.died;
  }

  protected runCold(request: ExecutionRequest): Promise<ExecutionResult> {
    return this.hooks.runCold(request);
  }

  private waitUntilReady(): Promise<void> {
    this.context.docker.modem.demuxStream(this.stream, sink((chunk) => this.stdoutTarget?.(chunk)), sink((chunk) => this.stderrTarget?.(chunk)));
    const ended = (): void => {
      this.died = true;
      this.onDied?.();
    };
    this.stream.once('end', ended);
    this.stream.once('close', ended);
    this.stream.once('error', ended);
    this.watcher.onDie = ended;
    return new Promise<void>((resolve, reject) => {
      let said = '';
      const timer = setTimeout(() => reject(new Error(`the prepared sandbox container was not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
      this.stderrTarget = (chunk) => void (said += chunk.toString());
      this.stdoutTarget = (chunk) => {
        clearTimeout(timer);
        this.stdoutTarget = this.stderrTarget = undefined;
        if (chunk.toString() === 'r') resolve();
        else reject(new Error(`the prepared sandbox container said ${JSON.stringify(chunk.toString())} instead of being ready`));
      };
      this.onDied = () => {
        clearTimeout(timer);
        reject(new Error(`the prepared sandbox container ended before it was ready: ${said.trim()}`));
      };
    });
  }

  protected async runWarm(request: ExecutionRequest): Promise<ExecutionResult> {
    const limits = resolveLimits(request.limits);
    // The hand-over: what a cold run puts in place before the container starts.
    this.dir.fill(request.workspace, { files: request.files, worldWritable: true });
    for (const mount of request.mounts ?? []) {
      const readable = (fs.statSync(mount.hostPath).mode & 0o005) === 0o005;
      mirrorTree(mount.hostPath, this.mountDirs[mountIndex(this.shape, mount.sandboxPath)] as string, { worldReadable: !readable });
    }
    const env = { ...sandboxEnv(request.env, SANDBOX_HOME, SANDBOX_TMP), HOSTNAME: 'sandbox' };
    const go = goScript({ command: request.command, env, cwd: request.cwd ?? WORKSPACE_PATH });
    const marker = `peagen-exit-${randomBytes(16).toString('hex')}:`;

    let stoppedBy: StopReason | undefined;
    let finish: (status: number | null) => void = () => undefined;
    const ended = new Promise<number | null>((resolve) => (finish = resolve));
    const stop = (reason: StopReason): void => {
      if (stoppedBy) return;
      stoppedBy = reason;
      this.container.kill().catch(() => undefined);
      // An engine that does not answer must not hold the run past its deadline for long.
      setTimeout(() => finish(null), ABANDON_MS).unref();
    };
    const stdout = new OutputCapture(limits.outputBytes, () => stop('output'));
    const stderr = new OutputCapture(limits.outputBytes, () => stop('output'));
    const status = new StatusScanner(marker, (chunk) => stderr.push(chunk), (code) => finish(code));
    this.stdoutTarget = (chunk) => stdout.push(chunk);
    this.stderrTarget = (chunk) => status.push(chunk);
    this.onDied = () => finish(null);
    this.watcher.onDie = this.onDied;
    this.watcher.onOom = () => stop('memory');
    const onAbort = (): void => stop('cancelled');
    request.signal?.addEventListener('abort', onAbort, { once: true });

    const started = Date.now();
    noteProgramStarted();
    this.stream.write(`${marker}\n${go}`);
    this.stream.end(request.stdin ?? '');
    const timer = setTimeout(() => stop('timeout'), limits.timeoutMs);
    const found = this.cgroup;
    const poll = found
      ? setInterval(() => {
          const stats = found.stats();
          if (stats.pidsLimitHits > 0) stop('pids');
          else if (stats.oomKills > 0) stop('memory');
        }, LIMIT_POLL_MS)
      : undefined;
    if (request.signal?.aborted) onAbort();
    if (this.died) finish(null);
    let exitCode: number | null;
    try {
      exitCode = await ended;
    } finally {
      clearTimeout(timer);
      clearInterval(poll);
      request.signal?.removeEventListener('abort', onAbort);
    }
    const wallMs = Date.now() - started;
    // The counters, while the container (and so its cgroup) still exists.
    const stats = this.cgroup?.stats();
    if (stats && stats.pidsLimitHits > 0) stoppedBy ??= 'pids';
    if ((stats && stats.oomKills > 0) || this.watcher.oom) stoppedBy ??= 'memory';
    // Everything left in the container dies with it; then the output is complete.
    const streamEnded = new Promise<void>((resolve) => {
      if (this.stream.readableEnded || this.stream.destroyed) resolve();
      this.stream.once('end', resolve);
      this.stream.once('close', resolve);
    });
    await this.container.remove({ force: true }).catch(() => undefined);
    await Promise.race([streamEnded, delay(OUTPUT_DRAIN_MS, undefined, { ref: false })]);
    if (!status.done) status.flush();

    const killed = stoppedBy !== undefined && (exitCode === null || exitCode === 137);
    return {
      executor: 'docker',
      exitCode: killed ? null : exitCode,
      signal: killed ? 'SIGKILL' : null,
      stdout: stdout.text(),
      stderr: stderr.text(),
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
      wallMs,
      ...(stats?.peakMemoryBytes !== undefined && { peakMemoryKb: Math.round(stats.peakMemoryBytes / 1024) }),
      ...(stoppedBy && { stoppedBy }),
    };
  }

  protected release(): Promise<void> {
    this.released ??= (async () => {
      this.stdoutTarget = this.stderrTarget = this.onDied = undefined;
      this.watcher.onDie = this.watcher.onOom = undefined;
      await this.container.remove({ force: true }).catch(() => undefined);
      this.stream.destroy();
      this.events.destroy();
      await removeSandboxDir(this.context.docker, this.context.image, this.dir);
      this.hooks.forget(this);
    })();
    return this.released;
  }
}

/**
 * Passes the container's stderr on until the stub's `<marker><status>\n`, which it takes out
 * and reports; what follows (background processes after the command's end) is dropped.
 * Holds back as many bytes as could be the start of a marker split across chunks.
 */
class StatusScanner {
  done = false;
  private pending = Buffer.alloc(0);

  constructor(
    private readonly marker: string,
    private readonly pass: (chunk: Buffer) => void,
    private readonly report: (status: number | null) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.done) return;
    this.pending = Buffer.concat([this.pending, chunk]);
    const at = this.pending.indexOf(this.marker);
    if (at >= 0) {
      const end = this.pending.indexOf('\n', at);
      if (end < 0) return; // the status is still coming
      this.done = true;
      if (at > 0) this.pass(this.pending.subarray(0, at));
      const status = Number(this.pending.subarray(at + this.marker.length, end).toString());
      this.pending = Buffer.alloc(0);
      this.report(Number.isInteger(status) ? status : null);
      return;
    }
    const keep = this.marker.length + 8;
    if (this.pending.length > keep) {
      this.pass(this.pending.subarray(0, this.pending.length - keep));
      this.pending = this.pending.subarray(this.pending.length - keep);
    }
  }

  /** The stream ended without a marker: what was held back is the command's. */
  flush(): void {
    if (this.pending.length > 0) this.pass(this.pending);
    this.pending = Buffer.alloc(0);
  }
}

function sink(write: (chunk: Buffer) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      write(chunk);
      callback();
    },
  });
}
