/**
 * One run's container, from creation to removal:
 *   1. create the container (containerSpec.ts); its main process is a holder that does
 *      nothing until the container goes;
 *   2. start it, and subscribe to its events (exec_die, die, oom);
 *   3. run the command with `exec` (stdin, stdout and stderr attached: stdin is written and
 *      closed, the output is demultiplexed into OutputCapture);
 *   4. when the command exits — or the deadline, the abort signal, an output flood, the pids
 *      or memory limit stops it — read the container's cgroup counters on the host, then
 *      remove the container (`force`: a SIGKILL to everything in it).
 * The holder is what makes the counters readable: the engine deletes a container's cgroup as
 * soon as its main process exits, so with the command as the main process a fork failure
 * just before a quick exit could not be seen. Background processes the command left die with
 * the container, before this returns; the container is gone whenever this returns or throws.
 */
import type { Duplex, Readable } from 'node:stream';
import { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type Docker from 'dockerode';
import { type ExecutionLimits, type ExecutionRequest, type ExecutionResult, type StopReason, WORKSPACE_PATH } from '../Executor';
import { OutputCapture } from '../outputCapture';
import type { SandboxDir } from '../sandboxDir';
import { type ContainerCgroup, locateCgroup, processInContainer } from './containerCgroup';
import { processRunning } from '../processGroup';
import { containerSpec, openWritableMount, readOnlyMounts } from './containerSpec';
import { explainEngineError, engineMessage } from './endpoint';
import { ContainerEvents, WATCHED_EVENTS } from './events';
import { noteProgramStarted } from '../runTiming';

/** How often the cgroup counters are polled while the command runs. */
const LIMIT_POLL_MS = 100;
/** How often the command's host process is checked for having exited. */
const PID_WATCH_MS = 20;
/** After a kill, how long to wait for the engine to report the command's end. */
const ABANDON_MS = 5_000;
/** After the container is gone, how long the output stream may take to end. */
const OUTPUT_DRAIN_MS = 2_000;

export interface ContainerRunContext {
  docker: Docker;
  image: string;
  /** Network mode when a run asks for the network. */
  networkMode: string;
  /** The engine's address as the user knows it (errors). */
  display: string;
  /** The owner tag the container carries (owner.ts). */
  owner: string;
}

export async function runInContainer(context: ContainerRunContext, dir: SandboxDir, request: ExecutionRequest, limits: ExecutionLimits): Promise<ExecutionResult> {
  const { docker } = context;
  let container: Docker.Container | undefined;
  let removed = false;
  let events: Readable | undefined;
  let poll: NodeJS.Timeout | undefined;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let closeWritableMount = (): void => undefined;
  try {
    const mounts = readOnlyMounts(dir, request.mounts);
    closeWritableMount = openWritableMount(request);
    try {
      container = await docker.createContainer(containerSpec(context, dir, mounts, limits, request));
    } catch (error) {
      throw new Error(createError(context, error));
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
        docker.getEvents({ filters: { type: ['container'], container: [created.id], event: WATCHED_EVENTS } }) as Promise<Readable>,
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
      cgroup = locateCgroup(created.id) ?? locateCgroup(created.id, await hostPid(created));
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
      noteProgramStarted();
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
        stream = (await exec.start({ hijack: true, stdin: true }));
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
        docker.modem.demuxStream(output, sink(stdout), sink(stderr));
        output.end(request.stdin ?? '');
        exitCode = await waitForExit(exec, created.id, cgroup !== undefined, watcher, streamEnded, abandoned);
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
    await Promise.race([streamEnded, delay(OUTPUT_DRAIN_MS, undefined, { ref: false })]);

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
      executor: 'docker',
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
    closeWritableMount();
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
function waitForExit(
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

export function createError(context: ContainerRunContext, error: unknown): string {
  const err = error as { statusCode?: number; json?: { message?: string }; message?: string };
  if (err.statusCode === 404 && /image/i.test(err.json?.message ?? err.message ?? '')) {
    return `the sandbox image ${context.image} is missing: run \`peagen sandbox image build\``;
  }
  if (err.statusCode === undefined) return explainEngineError(error, context.display);
  return `cannot create the sandbox container: ${err.json?.message ?? err.message}`;
}

export async function hostPid(container: Docker.Container): Promise<number | undefined> {
  try {
    return (await container.inspect()).State.Pid || undefined;
  } catch {
    return undefined;
  }
}

function sink(capture: OutputCapture): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      capture.push(chunk);
      callback();
    },
  });
}
