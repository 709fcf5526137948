/**
 * The `docker` executor: one fresh container per run, through the engine's API (dockerode).
 * What the container is: containerSpec.ts; how one run goes: containerRun.ts; where the
 * engine is: endpoint.ts; containers that outlive their owner: orphanSweep.ts.
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
 * prepare() makes the container of a task still to come (preparedContainer.ts): created,
 * started and waiting, so that the task costs a write to its stdin.
 *
 * `wallMs` is the command's own time (exec start to exit), without the container's setup.
 * Exit codes are the engine's: a command that dies of a signal on its own reports 128+n
 * (the engine cannot tell it from `exit 128+n`); when the executor killed it, exitCode is
 * null and signal SIGKILL. A program that is not on PATH exits 127, as in a shell.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import {
  type Availability,
  type ExecutionRequest,
  type ExecutionResult,
  type Executor,
  type PreparedSandbox,
  type PrepareOptions,
  resolveLimits,
} from '../Executor';
import { trackExecutor, untrackExecutor } from '../liveSandboxes';
import { checkSandboxOwner, sandboxOwner } from '../owner';
import { reclaimSandboxDirs, SandboxDir } from '../sandboxDir';
import { runInContainer } from './containerRun';
import { removeSandboxDir } from './dirRemoval';
import { dockerClient, dockerEndpoint, explainEngineError, missingEngineSocket } from './endpoint';
import { removeOwnedContainers, sweepOrphans } from './orphanSweep';
import { PreparedContainer } from './preparedContainer';
import { preparedShape } from '../warm/preparedShape';

export const DEFAULT_DOCKER_IMAGE = 'peagen-sandbox:latest';
/** How long the engine may take to answer available()'s questions. */
const ENGINE_ANSWER_MS = 5_000;

export interface DockerExecutorOptions {
  /** Sandbox image; default `peagen-sandbox:latest`. Needs sh, python3, node and sleep on PATH. */
  image?: string;
  /**
   * Engine address: `unix:///path/docker.sock`, a socket path, `tcp://host:port` or `ssh://...`.
   * Default: DOCKER_HOST, else the default socket.
   */
  dockerHost?: string | undefined;
  /** A ready client (tests); overrides dockerHost. */
  docker?: Docker;
  /** Network mode when a run asks for the network (`limits.network`); default `bridge`. */
  networkMode?: string;
}

export class DockerExecutor implements Executor {
  readonly name = 'docker' as const;
  readonly isolates = true;
  readonly image: string;
  /** The engine client, made (and dockerode loaded) when first needed. */
  private client: Promise<Docker> | undefined;
  private readonly dockerHost: string | undefined;
  private readonly display: string;
  private readonly networkMode: string;
  /** Prepared sandboxes not yet used or discarded. */
  private readonly prepared = new Set<PreparedContainer>();

  constructor(options: DockerExecutorOptions = {}) {
    this.image = options.image ?? DEFAULT_DOCKER_IMAGE;
    this.display = options.docker ? 'the given client' : dockerEndpoint(options.dockerHost).display;
    if (options.docker) this.client = Promise.resolve(options.docker);
    this.dockerHost = options.dockerHost;
    this.networkMode = options.networkMode ?? 'bridge';
  }

  private docker(): Promise<Docker> {
    this.client ??= dockerClient(this.dockerHost);
    return this.client;
  }

  async available(): Promise<Availability> {
    // No engine socket where the client would look: said without loading dockerode (`auto`
    // on a host without Docker then holds none of it).
    const missing = this.client ? undefined : missingEngineSocket(this.dockerHost);
    if (missing) return { ok: false, reason: explainEngineError(missing, this.display) };
    let docker: Docker;
    try {
      docker = await this.docker();
    } catch (error) {
      // A malformed address (DOCKER_HOST), refused by the client as it is made.
      return { ok: false, reason: (error as Error).message };
    }
    let version: string;
    try {
      await withTimeout(docker.ping(), ENGINE_ANSWER_MS);
      version = (await withTimeout(docker.version(), ENGINE_ANSWER_MS)).Version;
    } catch (error) {
      return { ok: false, reason: explainEngineError(error, this.display) };
    }
    await sweepOrphans(docker);
    try {
      const image = await docker.getImage(this.image).inspect();
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
    trackExecutor(this);
    const owner = sandboxOwner();
    const docker = await this.docker();
    const dir = SandboxDir.create(request.workspace, { files: request.files, worldWritable: true, owner });
    try {
      // Returns (or throws) only once the container is gone: nothing binds the directory any more.
      return await runInContainer({ docker, image: this.image, networkMode: this.networkMode, display: this.display, owner }, dir, request, limits);
    } finally {
      await removeSandboxDir(docker, this.image, dir);
    }
  }

  /**
   * Creates and starts the container of a task still to come (see preparedContainer.ts):
   * resolves when it waits, ready, for its command. A request with other mount points,
   * memory, pids or network runs cold.
   */
  async prepare(options: PrepareOptions = {}): Promise<PreparedSandbox> {
    const shape = preparedShape(options);
    trackExecutor(this);
    const context = { docker: await this.docker(), image: this.image, networkMode: this.networkMode, display: this.display, owner: sandboxOwner() };
    const sandbox = await PreparedContainer.start(context, { runCold: (request) => this.run(request), forget: (prepared) => this.prepared.delete(prepared) }, shape);
    this.prepared.add(sandbox);
    return sandbox;
  }

  /** Containers first (their processes die with them), then the directories they bound. */
  async reclaim(owner: string): Promise<void> {
    checkSandboxOwner(owner);
    const docker = await this.docker();
    await removeOwnedContainers(docker, owner);
    await reclaimSandboxDirs(owner, (dir) => removeSandboxDir(docker, this.image, dir).catch(() => undefined));
    // A child killed while dockerd was creating or starting its container leaves that request
    // to finish after the sweep above (or makes its removal fail as a conflict): look again
    // once dockerd has had time to end it.
    setTimeout(() => void removeOwnedContainers(docker, owner), LATE_RECLAIM_MS).unref();
  }

  /** Discards the prepared sandboxes still unused; dockerode holds no connection between requests. Idempotent. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.prepared].map((sandbox) => sandbox.discard()));
    untrackExecutor(this);
  }
}

/** When a reclaimed owner's containers are looked for once more (see reclaim). */
export const LATE_RECLAIM_MS = 2_000;

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  const cancel = new AbortController();
  const timeout = sleep(ms, undefined, { signal: cancel.signal }).then(() => {
    throw Object.assign(new Error(`timed out after ${ms} ms`), { code: 'ETIMEDOUT' });
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    cancel.abort();
    timeout.catch(() => undefined);
  }
}
