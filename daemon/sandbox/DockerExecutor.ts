/**
 * The `docker` executor: one fresh container per run, through the engine's API (dockerode).
 *
 * The container: the sandbox image (default `peagen-sandbox:latest`, built offline by
 * `peagen sandbox image build`), no network (`NetworkMode: none`) unless `limits.network`,
 * a read-only root filesystem, user 65534, every capability dropped, no-new-privileges,
 * memory = memory+swap = `memoryMb`, a pids limit, tmpfs at /tmp and at HOME
 * (/home/sandbox), the workspace copy bind-mounted read-write at /workspace, the request's
 * mounts read-only at their sandbox paths, and exactly `sandboxEnv(...)` as the environment
 * (Docker adds HOSTNAME, the container's own name: `sandbox`).
 *
 * How one run goes, and why:
 *   1. create the container; its main process is a holder (`sleep` under the engine's
 *      `docker-init`, which also reaps orphans) that does nothing until the container goes;
 *   2. start it, and subscribe to its events (exec_die, die, oom);
 *   3. run the command with `exec` (stdin, stdout and stderr attached: stdin is written and
 *      closed, the output is demultiplexed into OutputCapture);
 *   4. when the command exits — or the deadline, the abort signal, an output flood, the pids
 *      or memory limit stops it — read the container's cgroup counters (pids.events `max`,
 *      memory `oom_kill`, peak memory) on the host, then remove the container (`force`: a
 *      SIGKILL to everything in it) and the sandbox directory.
 * The holder is what makes the counters readable: the engine deletes a container's cgroup as
 * soon as its main process exits, so with the command as the main process a fork failure
 * just before a quick exit could not be seen. Background processes the command left die with
 * the container, before `run` returns.
 *
 * The pids limit is `pids` + 2 (docker-init and the holder). Hitting it, or an OOM kill in
 * the container, stops the run at once (stop reason `pids` / `memory`). The counters are
 * read from the host's cgroup filesystem (v1 or v2, cgroupfs or systemd driver); where the
 * engine's cgroups are not visible (a remote engine, Docker Desktop's VM) `memory` still comes
 * from the engine's oom event, `pids` cannot be reported and peak memory is absent.
 *
 * The engine must see this machine's files (a local engine): the workspace copy and the
 * mounts are bind mounts of host paths. A read-only mount whose top directory uid 65534
 * cannot read (not world-readable) is copied into the sandbox directory first.
 *
 * `wallMs` is the command's own time (exec start to exit), without the container's setup.
 * Exit codes are the engine's: a command that dies of a signal on its own reports 128+n
 * (the engine cannot tell it from `exit 128+n`); when the executor killed it, exitCode is
 * null and signal SIGKILL. A program that is not on PATH exits 127, as in a shell.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import { Writable } from 'node:stream';
import Docker from 'dockerode';
import {
  type Availability,
  type ExecutionLimits,
  type ExecutionRequest,
  type ExecutionResult,
  type Executor,
  type ReadOnlyMount,
  resolveLimits,
  type StopReason,
  WORKSPACE_PATH,
} from './Executor';
import { isAlive } from '../platform/processes';
import { type CgroupStats, statsV1, statsV2 } from './cgroup';
import { OutputCapture } from './outputCapture';
import { SandboxDir, sandboxEnv } from './sandboxDir';

export const DEFAULT_DOCKER_IMAGE = 'peagen-sandbox:latest';
export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';
export const SANDBOX_HOME = '/home/sandbox';
export const SANDBOX_TMP = '/tmp';
/** Label on every container this executor makes; its value is {@link containerOwner}. */
export const CONTAINER_LABEL = 'org.peagen.sandbox.run';

/** Who made a container: `<hostname>:<pid>` of the process running the executor. */
export function containerOwner(pid = process.pid): string {
  return `${os.hostname()}:${pid}`;
}
const SANDBOX_USER = '65534:65534';
/** Processes besides the command: docker-init and the holder. */
const HOLDER_PIDS = 2;
/** How often the cgroup counters are polled while the command runs. */
const LIMIT_POLL_MS = 100;
/** How often the command's host process is checked for having exited. */
const PID_WATCH_MS = 20;
/** After a kill, how long to wait for the engine to report the command's end. */
const ABANDON_MS = 5_000;
/** After the container is gone, how long the output stream may take to end. */
const OUTPUT_DRAIN_MS = 2_000;

export interface DockerExecutorOptions {
  /** Sandbox image; default `peagen-sandbox:latest`. Needs sh, python3, node and sleep on PATH. */
  image?: string;
  /**
   * Engine address: `unix:///path/docker.sock`, a socket path, or `tcp://host:port`.
   * Default: DOCKER_HOST, else /var/run/docker.sock.
   */
  dockerHost?: string | undefined;
  /** A ready client (tests); overrides dockerHost. */
  docker?: Docker;
  /** Network mode when a run asks for the network (`limits.network`); default `bridge`. */
  networkMode?: string;
}

/** dockerode options for an engine address (see {@link DockerExecutorOptions.dockerHost}). */
export function dockerEndpoint(dockerHost: string | undefined = process.env.DOCKER_HOST): { options: Docker.DockerOptions; display: string } {
  const host = dockerHost?.trim() || `unix://${DEFAULT_DOCKER_SOCKET}`;
  if (host.startsWith('unix://')) return { options: { socketPath: host.slice('unix://'.length) }, display: host };
  if (host.startsWith('/')) return { options: { socketPath: host }, display: `unix://${host}` };
  const url = new URL(host.replace(/^tcp:/, process.env.DOCKER_TLS_VERIFY ? 'https:' : 'http:'));
  if (url.protocol === 'ssh:') return { options: { protocol: 'ssh', host: url.hostname, port: url.port || 22, ...(url.username && { username: url.username }) }, display: host };
  return {
    options: {
      protocol: url.protocol === 'https:' ? 'https' : 'http',
      host: url.hostname,
      port: url.port || (url.protocol === 'https:' ? 2376 : 2375),
      ...(url.protocol === 'https:' && process.env.DOCKER_CERT_PATH && tlsFiles(process.env.DOCKER_CERT_PATH)),
    },
    display: host,
  };
}

function tlsFiles(dir: string): Pick<Docker.DockerOptions, 'ca' | 'cert' | 'key'> {
  const read = (name: string): Buffer => fs.readFileSync(path.join(dir, name));
  return { ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') };
}

/** One engine client for an address (default DOCKER_HOST or /var/run/docker.sock). */
export function dockerClient(dockerHost?: string): Docker {
  return new Docker(dockerEndpoint(dockerHost).options);
}

/** What an engine error means for the user, with what to do. */
export function explainEngineError(error: unknown, display: string): string {
  const err = error as NodeJS.ErrnoException & { statusCode?: number; json?: { message?: string } };
  if (err?.code === 'ENOENT' || err?.code === 'ECONNREFUSED') {
    return `cannot reach the Docker engine at ${display} (${err.code}): start Docker, or set DOCKER_HOST (or sandbox.dockerHost in peagen.json) to a running engine`;
  }
  if (err?.code === 'EACCES' || err?.code === 'EPERM') {
    return `permission denied on the Docker engine at ${display}: add your user to the \`docker\` group (then log in again), or set DOCKER_HOST to an engine you may use`;
  }
  if (err?.code === 'ETIMEDOUT') return `the Docker engine at ${display} does not answer (timed out): is it hung? restart it`;
  return `the Docker engine at ${display} failed: ${err?.json?.message ?? err?.message ?? String(error)}`;
}

export class DockerExecutor implements Executor {
  readonly name = 'docker' as const;
  readonly isolates = true;
  readonly image: string;
  private readonly docker: Docker;
  private readonly display: string;
  private readonly networkMode: string;

  constructor(options: DockerExecutorOptions = {}) {
    this.image = options.image ?? DEFAULT_DOCKER_IMAGE;
    const endpoint = dockerEndpoint(options.dockerHost);
    this.display = options.docker ? 'the given client' : endpoint.display;
    this.docker = options.docker ?? new Docker(endpoint.options);
    this.networkMode = options.networkMode ?? 'bridge';
  }

  async available(): Promise<Availability> {
    let version: string;
    try {
      await withTimeout(this.docker.ping(), 5_000, 'ETIMEDOUT');
      version = (await withTimeout(this.docker.version(), 5_000, 'ETIMEDOUT')).Version;
    } catch (error) {
      return { ok: false, reason: explainEngineError(error, this.display) };
    }
    await this.sweepOrphans();
    try {
      const image = await this.docker.getImage(this.image).inspect();
      return { ok: true, detail: `Docker ${version} at ${this.display}, image ${this.image} (${image.Id.slice(7, 19)})` };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) {
        return { ok: false, reason: `the sandbox image ${this.image} is missing from the Docker engine at ${this.display}: run \`peagen sandbox image build\`` };
      }
      return { ok: false, reason: explainEngineError(error, this.display) };
    }
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    if (request.command.length === 0 || !request.command[0]) throw new Error('the command is empty');
    const limits = resolveLimits(request.limits);
    const dir = SandboxDir.create(request.workspace, { ...(request.files && { files: request.files }), worldWritable: true });
    let container: Docker.Container | undefined;
    let removed = false;
    let events: Readable | undefined;
    let poll: NodeJS.Timeout | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const mounts = this.mounts(dir, request.mounts);
      try {
        container = await this.docker.createContainer(this.containerSpec(dir, mounts, limits, request));
      } catch (error) {
        throw new Error(this.createError(error));
      }
      const created = container;

      let stoppedBy: StopReason | undefined;
      let started = false;
      let abandon: (() => void) | undefined;
      const abandoned = new Promise<void>((resolve) => (abandon = resolve));
      const stop = (reason: StopReason): void => {
        if (stoppedBy) return;
        stoppedBy = reason;
        if (started) created.kill().catch(() => undefined);
        // An engine that does not answer must not hold the run past its deadline for long.
        setTimeout(() => abandon?.(), ABANDON_MS).unref();
      };
      onAbort = () => stop('cancelled');
      request.signal?.addEventListener('abort', onAbort, { once: true });
      if (request.signal?.aborted) onAbort();

      const watcher = new ContainerEvents();
      const stdout = new OutputCapture(limits.outputBytes, () => stop('output'));
      const stderr = new OutputCapture(limits.outputBytes, () => stop('output'));
      let cgroup: ContainerCgroup | undefined;
      let exitCode: number | null = null;
      let execStarted: number | undefined;
      let execEnded: number | undefined;
      let streamEnded: Promise<void> = Promise.resolve();
      if (!stoppedBy) {
        // The event subscription must be live before the exec starts; it is made while the
        // container starts.
        const [subscribed, start] = await Promise.allSettled([
          this.docker.getEvents({ filters: { type: ['container'], container: [created.id], event: ['exec_die', 'die', 'oom'] } }) as Promise<Readable>,
          created.start(),
        ]);
        if (subscribed.status === 'fulfilled') events = subscribed.value;
        if (start.status === 'rejected') {
          const message = engineMessage(start.reason);
          const hint = /docker-init/.test(message) ? ' (the engine needs its docker-init binary: Debian package tini, part of Docker CE)' : '';
          throw new Error(`cannot start the sandbox container: ${message}${hint}`);
        }
        if (subscribed.status === 'rejected') throw new Error(`cannot follow the sandbox container's events: ${engineMessage(subscribed.reason)}`);
        watcher.attach(subscribed.value);
        started = true;
        watcher.onOom = () => stop('memory');
        if (stoppedBy) await created.kill().catch(() => undefined);
        cgroup = locateCgroup(created.id) ?? locateCgroup(created.id, await this.hostPid(created));
        const found = cgroup;
        if (found) {
          poll = setInterval(() => {
            const stats = found.stats();
            if (stats.pidsLimitHits > 0) stop('pids');
            else if (stats.oomKills > 0) stop('memory');
          }, LIMIT_POLL_MS);
        }
      }
      if (!stoppedBy) {
        execStarted = Date.now();
        timer = setTimeout(() => stop('timeout'), limits.timeoutMs);
        let exec: Docker.Exec | undefined;
        let stream: Duplex | undefined;
        try {
          exec = await created.exec({
            Cmd: request.command,
            AttachStdin: true,
            AttachStdout: true,
            AttachStderr: true,
            Tty: false,
            WorkingDir: request.cwd ?? WORKSPACE_PATH,
          });
          stream = (await exec.start({ hijack: true, stdin: true })) as Duplex;
        } catch (error) {
          // Stopped meanwhile (the container is gone): a result, not an error.
          if (!stoppedBy) throw new Error(`cannot run the command in the sandbox container: ${engineMessage(error)}`);
        }
        if (exec && stream) {
          const output = stream;
          streamEnded = new Promise<void>((resolve) => {
            output.once('end', resolve);
            output.once('close', resolve);
            output.once('error', () => resolve());
          });
          this.docker.modem.demuxStream(output, sink(stdout), sink(stderr));
          output.end(request.stdin ?? '');
          exitCode = await this.waitForExit(exec, created.id, cgroup !== undefined, watcher, streamEnded, abandoned);
        }
        execEnded = Date.now();
      }
      clearTimeout(timer);
      clearInterval(poll);

      // The counters, while the container (and so its cgroup) still exists.
      const stats = cgroup?.stats();
      if (stats && stats.pidsLimitHits > 0) stoppedBy ??= 'pids';
      if ((stats && stats.oomKills > 0) || watcher.oom) stoppedBy ??= 'memory';

      // Everything left in the container dies with it; then the output is complete.
      await created.remove({ force: true }).then(
        () => (removed = true),
        () => undefined,
      );
      await Promise.race([streamEnded, delay(OUTPUT_DRAIN_MS)]);

      const killed = stoppedBy !== undefined && (exitCode === null || exitCode === 137);
      let out = stdout.text();
      let err = stderr.text();
      // The engine reports a command it could not start on stdout with exit 126; say it like
      // a shell does (127 when the program is not there, the message on stderr).
      if (exitCode === 126 && out.startsWith('OCI runtime exec failed')) {
        err = `${out.trimEnd()}\n${err}`;
        out = '';
        if (/executable file not found|no such file or directory/.test(err)) exitCode = 127;
      }
      return {
        executor: this.name,
        exitCode: killed ? null : exitCode,
        signal: killed && execStarted !== undefined ? 'SIGKILL' : null,
        stdout: out,
        stderr: err,
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        wallMs: execStarted !== undefined ? (execEnded ?? Date.now()) - execStarted : 0,
        ...(stats?.peakMemoryBytes !== undefined && { peakMemoryKb: Math.round(stats.peakMemoryBytes / 1024) }),
        ...(stoppedBy && { stoppedBy }),
      };
    } finally {
      clearTimeout(timer);
      clearInterval(poll);
      if (onAbort) request.signal?.removeEventListener('abort', onAbort);
      events?.destroy();
      if (container && !removed) await container.remove({ force: true }).catch(() => undefined);
      await this.dispose(dir);
    }
  }

  async close(): Promise<void> {}

  /** Removes containers left by executors on this machine whose process died mid-run. */
  private async sweepOrphans(): Promise<void> {
    try {
      const prefix = `${os.hostname()}:`;
      for (const info of await this.docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL] } })) {
        const owner = info.Labels?.[CONTAINER_LABEL] ?? '';
        const pid = Number(owner.slice(prefix.length));
        if (!owner.startsWith(prefix) || !Number.isInteger(pid) || pid <= 0 || isAlive(pid)) continue;
        await this.docker
          .getContainer(info.Id)
          .remove({ force: true })
          .catch(() => undefined);
      }
    } catch {
      // best effort
    }
  }

  /**
   * The command has ended when the engine says so (exec_die), or when the container died or
   * the output closed and the exec no longer runs. The engine sends exec_die only once the
   * command's output is closed (or 2 s after it exited), which is late when a background
   * process holds stdout; so, with a local engine (its cgroups visible: `local`), the
   * command's host process is watched too. A slow poll backs up the event stream.
   * Resolves the exit code (null when the engine cannot tell, or when `abandoned` resolves:
   * the container was killed and still nothing came back).
   */
  private waitForExit(
    exec: Docker.Exec,
    containerId: string,
    local: boolean,
    watcher: ContainerEvents,
    outputEnded: Promise<void>,
    abandoned: Promise<void>,
  ): Promise<number | null> {
    return new Promise<number | null>((resolve) => {
      let done = false;
      let pidWatch: NodeJS.Timeout | undefined;
      const finish = (code: number | null): void => {
        if (done) return;
        done = true;
        clearInterval(slowPoll);
        clearInterval(pidWatch);
        watcher.onExecDie = watcher.onDie = watcher.onClose = undefined;
        resolve(code);
      };
      let inspecting = false;
      let containerDied = false;
      const inspect = (): void => {
        if (done || inspecting) return;
        inspecting = true;
        exec.inspect().then(
          (info) => {
            inspecting = false;
            if (!info.Running && (info.ExitCode !== null || containerDied)) {
              finish(info.ExitCode);
            } else if (!info.Running) {
              // Not started yet: the engine answers the exec start before it runs the process.
              if (local) setTimeout(inspect, PID_WATCH_MS);
            } else if (local && (info.Pid <= 0 || !processRunning(info.Pid))) {
              // Not started yet, or gone and the engine has not noticed: ask again shortly.
              setTimeout(inspect, PID_WATCH_MS);
            } else if (local && pidWatch === undefined && processInContainer(info.Pid, containerId)) {
              const pid = info.Pid;
              pidWatch = setInterval(() => {
                if (!processRunning(pid)) inspect();
              }, PID_WATCH_MS);
            }
          },
          (error: { statusCode?: number }) => {
            inspecting = false;
            // The exec is gone, or the engine is: nothing more to learn. Otherwise retry.
            if (error?.statusCode === 404 || containerDied) finish(null);
          },
        );
      };
      watcher.onExecDie = (execId, code) => {
        if (execId === exec.id) finish(code);
      };
      watcher.onDie = () => {
        containerDied = true;
        inspect();
      };
      watcher.onClose = inspect;
      void abandoned.then(() => finish(null));
      const slowPoll = setInterval(inspect, 1_000);
      void outputEnded.then(inspect);
      if (watcher.execDied.has(exec.id)) finish(watcher.execDied.get(exec.id) ?? null);
      else inspect();
    });
  }

  private containerSpec(dir: SandboxDir, mounts: Docker.MountSettings[], limits: ExecutionLimits, request: ExecutionRequest): Docker.ContainerCreateOptions {
    const env = sandboxEnv(request.env, SANDBOX_HOME, SANDBOX_TMP);
    for (const key of Object.keys(env)) if (!key || key.includes('=') || key.includes('\0')) throw new Error(`invalid environment variable name "${key}"`);
    const memoryBytes = limits.memoryMb * 1024 * 1024;
    // exec: like TMPDIR and HOME of the other executors (Docker's default is noexec).
    const tmpfs = `rw,exec,nosuid,nodev,size=${limits.memoryMb}m`;
    return {
      Image: this.image,
      Entrypoint: ['sleep'],
      Cmd: ['2147483647'],
      User: SANDBOX_USER,
      Hostname: 'sandbox',
      WorkingDir: WORKSPACE_PATH,
      Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
      Labels: { [CONTAINER_LABEL]: containerOwner() },
      NetworkDisabled: !limits.network,
      HostConfig: {
        Init: true,
        NetworkMode: limits.network ? this.networkMode : 'none',
        ReadonlyRootfs: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        Memory: memoryBytes,
        MemorySwap: memoryBytes,
        PidsLimit: limits.pids + HOLDER_PIDS,
        Tmpfs: { [SANDBOX_TMP]: `${tmpfs},mode=1777`, [SANDBOX_HOME]: `${tmpfs},uid=65534,gid=65534` },
        Mounts: [{ Type: 'bind', Source: dir.workspace, Target: WORKSPACE_PATH, ReadOnly: false }, ...mounts],
        LogConfig: { Type: 'none', Config: {} },
        IpcMode: 'private',
        AutoRemove: false,
      },
    };
  }

  /** Read-only binds; a mount uid 65534 cannot read is copied into the sandbox directory. */
  private mounts(dir: SandboxDir, mounts: readonly ReadOnlyMount[] = []): Docker.MountSettings[] {
    return mounts.map((mount, index) => {
      const target = path.posix.normalize(mount.sandboxPath);
      if (!path.posix.isAbsolute(target) || target === '/') throw new Error(`mount path "${mount.sandboxPath}" must be an absolute path other than /`);
      if (target === WORKSPACE_PATH || target.startsWith(`${WORKSPACE_PATH}/`)) throw new Error(`mount path "${mount.sandboxPath}" is inside ${WORKSPACE_PATH}`);
      const stat = fs.statSync(mount.hostPath);
      const needed = stat.isDirectory() ? 0o005 : 0o004;
      let source = path.resolve(mount.hostPath);
      if ((stat.mode & needed) !== needed) {
        source = path.join(dir.root, 'mounts', String(index));
        fs.mkdirSync(path.dirname(source), { recursive: true, mode: 0o755 });
        fs.cpSync(mount.hostPath, source, { recursive: true, dereference: true });
        for (const file of [source, ...(stat.isDirectory() ? fs.readdirSync(source, { recursive: true }).map((entry) => path.join(source, String(entry))) : [])]) {
          const mode = fs.statSync(file).mode;
          fs.chmodSync(file, mode | (fs.statSync(file).isDirectory() || mode & 0o111 ? 0o555 : 0o444));
        }
        fs.chmodSync(path.dirname(source), 0o755);
      }
      return { Type: 'bind', Source: source, Target: target, ReadOnly: true };
    });
  }

  private createError(error: unknown): string {
    const err = error as { statusCode?: number; json?: { message?: string }; message?: string };
    if (err.statusCode === 404 && /image/i.test(err.json?.message ?? err.message ?? '')) {
      return `the sandbox image ${this.image} is missing: run \`peagen sandbox image build\``;
    }
    if (err.statusCode === undefined) return explainEngineError(error, this.display);
    return `cannot create the sandbox container: ${err.json?.message ?? err.message}`;
  }

  private async hostPid(container: Docker.Container): Promise<number | undefined> {
    try {
      return (await container.inspect()).State.Pid || undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Removes the sandbox directory. Files the command made belong to uid 65534; a daemon that
   * is neither root nor 65534 cannot delete them, so a short container as 65534 does it first.
   */
  private async dispose(dir: SandboxDir): Promise<void> {
    try {
      dir.dispose();
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EACCES' && code !== 'EPERM' && code !== 'ENOTEMPTY') throw error;
    }
    const cleaner = await this.docker.createContainer({
      Image: this.image,
      Entrypoint: ['rm'],
      Cmd: ['-rf', '/sandbox/workspace', '/sandbox/home', '/sandbox/tmp', '/sandbox/mounts'],
      User: SANDBOX_USER,
      NetworkDisabled: true,
      HostConfig: { NetworkMode: 'none', CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], ReadonlyRootfs: true, Mounts: [{ Type: 'bind', Source: dir.root, Target: '/sandbox' }] },
    });
    try {
      await cleaner.start();
      await cleaner.wait();
    } finally {
      await cleaner.remove({ force: true }).catch(() => undefined);
    }
    dir.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// The container's events

interface EngineEvent {
  Action?: string;
  status?: string;
  Actor?: { Attributes?: Record<string, string> };
}

class ContainerEvents {
  oom = false;
  /** exec ids that died before anyone waited for them, with their exit codes. */
  readonly execDied = new Map<string, number | null>();
  onExecDie: ((execId: string, exitCode: number | null) => void) | undefined;
  onDie: (() => void) | undefined;
  onOom: (() => void) | undefined;
  onClose: (() => void) | undefined;
  private buffer = '';

  attach(stream: Readable): void {
    stream.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline).trim();
        this.buffer = this.buffer.slice(newline + 1);
        if (line) this.handle(line);
      }
    });
    stream.on('error', () => undefined);
    stream.on('close', () => this.onClose?.());
  }

  private handle(line: string): void {
    let event: EngineEvent;
    try {
      event = JSON.parse(line) as EngineEvent;
    } catch {
      return;
    }
    const action = event.Action ?? event.status ?? '';
    const attributes = event.Actor?.Attributes ?? {};
    if (action === 'exec_die') {
      const execId = attributes.execID ?? '';
      const code = attributes.exitCode !== undefined && attributes.exitCode !== '' ? Number(attributes.exitCode) : null;
      this.execDied.set(execId, Number.isFinite(code) ? code : null);
      this.onExecDie?.(execId, Number.isFinite(code) ? code : null);
    } else if (action === 'oom') {
      this.oom = true;
      this.onOom?.();
    } else if (action === 'die') {
      this.onDie?.();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The container's cgroup, read from the host

interface ContainerCgroup {
  stats(): CgroupStats;
}

const CGROUP_ROOT = '/sys/fs/cgroup';

/**
 * The host directories of a container's cgroup: by the engine's usual layouts (cgroupfs:
 * `docker/<id>`, systemd: `system.slice/docker-<id>.scope`), or, given the container's main
 * pid, from /proc/<pid>/cgroup. Undefined when they are not visible from here.
 */
function locateCgroup(id: string, pid?: number): ContainerCgroup | undefined {
  const unified = fs.existsSync(path.join(CGROUP_ROOT, 'cgroup.controllers'));
  const relative = [`docker/${id}`, `system.slice/docker-${id}.scope`];
  // A pid from another pid namespace (an engine outside this container) may name some other
  // process here: only a cgroup path that names the container counts.
  const memberships = pid ? readMemberships(pid).filter((entry) => entry.path.includes(id)) : [];
  if (unified) {
    const fromProc = memberships.find((entry) => entry.controllers.length === 0)?.path;
    const dir = [...(fromProc ? [fromProc] : []), ...relative].map((rel) => path.join(CGROUP_ROOT, rel)).find(isDirectory);
    if (!dir) return undefined;
    return { stats: () => statsV2(dir) };
  }
  const find = (controller: string): string | undefined => {
    const fromProc = memberships.find((entry) => entry.controllers.includes(controller))?.path;
    return [...(fromProc ? [fromProc] : []), ...relative].map((rel) => path.join(CGROUP_ROOT, controller, rel)).find(isDirectory);
  };
  const pids = find('pids');
  const memory = find('memory');
  if (!pids && !memory) return undefined;
  return { stats: () => statsV1(memory, pids) };
}

function readMemberships(pid: number): Array<{ controllers: string[]; path: string }> {
  try {
    return fs
      .readFileSync(`/proc/${pid}/cgroup`, 'utf8')
      .split('\n')
      .map((line) => /^\d+:([^:]*):(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ controllers: match[1] ? match[1].split(',') : [], path: match[2] ?? '/' }));
  } catch {
    return [];
  }
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}



// ---------------------------------------------------------------------------------------------

function sink(capture: OutputCapture): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      capture.push(chunk);
      callback();
    },
  });
}

/** Whether host process `pid` belongs to the container (its cgroup path names it). */
function processInContainer(pid: number, containerId: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').includes(containerId);
  } catch {
    return false;
  }
}

/** Host process `pid` exists and is not a zombie. */
function processRunning(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}


function engineMessage(error: unknown): string {
  return (error as { json?: { message?: string } })?.json?.message ?? (error as Error)?.message ?? String(error);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function withTimeout<T>(promise: Promise<T>, ms: number, code: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`timed out after ${ms} ms`), { code })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
