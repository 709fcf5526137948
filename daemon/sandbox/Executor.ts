/**
 * An Executor runs one command in a fresh, single-use sandbox and destroys it afterwards.
 * It is the only way Peagen runs code it did not write (LLM candidates, their evaluators).
 *
 * Paths inside the sandbox are fixed: the candidate's workspace is a writable *copy* at
 * {@link WORKSPACE_PATH}; trusted read-only mounts appear at the `sandboxPath` the request
 * names. Executors that cannot remap paths (the `process` fallback) rewrite every argument,
 * the cwd and env values that start with a sandbox path to the matching host path.
 *
 * Every resource a run makes (host directories, containers, cgroups) carries the owner tag
 * of the process responsible for it (see owner.ts), so that whoever survives a SIGKILL of the
 * running process can remove it with {@link Executor.reclaim}.
 *
 * Every implementation passes test/conformance/executor.ts unchanged.
 */

export const WORKSPACE_PATH = '/workspace';

export interface ExecutionLimits {
  /** Wall-clock deadline: at expiry everything the command started is killed. */
  timeoutMs: number;
  /** Memory for the whole sandbox (all its processes). */
  memoryMb: number;
  /** Processes and threads the sandbox may have at once. */
  pids: number;
  /** Bytes kept per stream (stdout, stderr); past 4x this the command is killed. */
  outputBytes: number;
  /** Network access; off by default (no interfaces but loopback, if any). */
  network: boolean;
}

export const DEFAULT_LIMITS: ExecutionLimits = {
  timeoutMs: 60_000,
  memoryMb: 512,
  pids: 64,
  outputBytes: 1 << 20,
  network: false,
};

export interface ReadOnlyMount {
  hostPath: string;
  /** Absolute path inside the sandbox, e.g. `/harness`. Never under {@link WORKSPACE_PATH}. */
  sandboxPath: string;
}

/**
 * The one host directory a command may write into (bound read-write at `sandboxPath`), for a
 * run whose product must outlive its sandbox: an example's environment is installed there.
 */
export interface WritableMount {
  hostPath: string;
  /** Absolute path inside the sandbox. Never under {@link WORKSPACE_PATH}. */
  sandboxPath: string;
}

export interface ExecutionRequest {
  /** argv; `command[0]` is looked up on the sandbox's PATH. */
  command: string[];
  /** Host directory whose contents are copied into the sandbox's writable workspace; none: it starts empty. */
  workspace?: string | undefined;
  /** Files written into the workspace copy (relative path to content), e.g. the candidate. */
  files?: Record<string, string>;
  /** Working directory inside the sandbox; default {@link WORKSPACE_PATH}. */
  cwd?: string;
  mounts?: ReadOnlyMount[];
  /**
   * Bound read-write; the rest of the host stays read-only or absent. A prepared sandbox has
   * none, so such a request runs cold.
   */
  writableMount?: WritableMount;
  /**
   * The sandbox's whole environment besides PATH, HOME (an empty writable directory) and
   * TMPDIR: nothing else from the host leaks in (no API keys, no PEAGEN_* secrets).
   */
  env?: Record<string, string>;
  stdin?: string;
  limits?: LimitOverrides;
  /** Aborting kills the sandbox at once (stop reason `cancelled`). */
  signal?: AbortSignal;
}

/** Why the executor stopped the command before it ended by itself. */
export type StopReason = 'timeout' | 'memory' | 'pids' | 'output' | 'cancelled';

export interface ExecutionResult {
  executor: ExecutorName;
  /** Exit code when the command exited; null when it was killed by a signal. */
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  wallMs: number;
  /** Peak memory of the sandbox in KiB, where the executor can measure it. */
  peakMemoryKb?: number;
  /** Set when the executor (not the command) ended the run. */
  stoppedBy?: StopReason;
  /** Limits the request asked above this worker's ceilings, and what they were lowered to (limitCeilings.ts). */
  limitsLowered?: string[];
}

export type ExecutorName = 'docker' | 'bwrap' | 'process';

export type Availability = { ok: true; detail: string } | { ok: false; reason: string };

export interface Executor {
  readonly name: ExecutorName;
  /** False for the `process` fallback, which only scrubs env and kills process groups. */
  readonly isolates: boolean;
  /** Whether this executor can run here, and if not, what the user should do. */
  available(): Promise<Availability>;
  /** Never throws for anything the command does; throws only when the sandbox cannot be made. */
  run(request: ExecutionRequest): Promise<ExecutionResult>;
  /**
   * Makes one sandbox ahead of its task (docker: a started container; bwrap: a prepared root
   * and namespaces), so that the task starts in it within milliseconds of arriving. The
   * sandbox is as fresh as a cold one: used once, then destroyed. Carries the owner tag of
   * the calling process like run() does, so reclaim() removes an unused one too.
   */
  prepare(options?: PrepareOptions): Promise<PreparedSandbox>;
  /**
   * Kills whatever still runs in sandboxes of `owner` (a tag from owner.ts) and removes every
   * directory, container and cgroup carrying it. For an owner whose runs are over or must end
   * now: a one-shot child that exited (its parent calls this with the tag it gave the child),
   * or this process itself on SIGINT/SIGTERM (see reclaimOwnSandboxes). Never throws for
   * what is already gone; works whether or not this executor has run anything.
   */
  reclaim(owner: string): Promise<void>;
  /**
   * Waits for the runs in progress, then releases clients and caches (sandboxes are already
   * gone after each run). Idempotent; the executor stays usable: a later available() or
   * run() prepares again what close() released.
   */
  close(): Promise<void>;
}

/** What a prepared sandbox must be ready for; requests outside it are run cold instead. */
export interface PrepareOptions {
  /** Sandbox paths where the task's read-only mounts will appear (e.g. `/harness`). */
  mountPoints?: string[];
  limits?: LimitOverrides;
}

/**
 * A single-use sandbox made before its task arrived. `run` consumes it (a second call is
 * refused); a request it was not prepared for (other mount points, other limits) is run
 * cold by the executor, with `warm: false` in the answer so the caller can count misses.
 */
export interface PreparedSandbox {
  readonly executor: ExecutorName;
  run(request: ExecutionRequest): Promise<ExecutionResult & { warm: boolean }>;
  /** Destroys it unused (the spawner scales down). Idempotent. */
  discard(): Promise<void>;
}

/**
 * The fallback for an executor that cannot start anything ahead: nothing is made until the
 * task arrives, so the run is cold. Used by the `process` executor.
 */
export function coldPreparedSandbox(executor: Executor): PreparedSandbox {
  let used = false;
  return {
    executor: executor.name,
    async run(request) {
      if (used) throw new Error('a prepared sandbox runs one task only');
      used = true;
      return { ...(await executor.run(request)), warm: false };
    },
    async discard() {
      used = true;
    },
  };
}

/** Per-run overrides; an undefined value keeps the default. */
export type LimitOverrides = { [K in keyof ExecutionLimits]?: ExecutionLimits[K] | undefined };

/**
 * Capabilities a working executor proves the host has, beyond `cpu`: the handlers that run
 * on it provide them, and the engine adds them to its worker's caps.
 */
export function executorCapabilities(executor: Executor): string[] {
  return executor.name === 'docker' ? ['docker'] : [];
}

export function resolveLimits(limits: LimitOverrides | undefined): ExecutionLimits {
  const given = Object.fromEntries(Object.entries(limits ?? {}).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_LIMITS, ...given };
}

/** A built-in executor, `auto`, or the name of an allowed plugin's executor. */
export type ExecutorChoice = ExecutorName | 'auto' | (string & {});

export interface SandboxSettings {
  executor: ExecutorChoice;
  /** Docker image for the docker executor. */
  image: string;
  /** Docker engine socket; default DOCKER_HOST or /var/run/docker.sock. */
  dockerHost?: string | undefined;
}

export interface ExecutorSelection {
  executor: Executor;
  /** What made the choice, e.g. "auto: docker unavailable (...); bwrap ok". */
  reason: string;
}
