/**
 * What one sandbox container is: the sandbox image, no network (`NetworkMode: none`) unless
 * `limits.network`, a read-only root filesystem, user 65534, every capability dropped,
 * no-new-privileges, memory = memory+swap = `memoryMb`, a pids limit, tmpfs at /tmp and at
 * HOME (/home/sandbox), the workspace copy bind-mounted read-write at /workspace, the
 * request's mounts read-only at their sandbox paths (its writable mount, if any, read-write), and exactly `sandboxEnv(...)` as the
 * environment (Docker adds HOSTNAME, the container's own name: `sandbox`). Its main process
 * is a holder (`sleep` under the engine's `docker-init`); the command runs by `exec`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type Docker from 'dockerode';
import { type ExecutionLimits, type ExecutionRequest, type ReadOnlyMount, WORKSPACE_PATH } from '../Executor';
import { type SandboxDir, sandboxEnv } from '../sandboxDir';
import { CONTAINER_LABEL, containerOwner } from './orphanSweep';

export const SANDBOX_HOME = '/home/sandbox';
export const SANDBOX_TMP = '/tmp';
export const SANDBOX_USER = '65534:65534';
/** Processes besides the command: docker-init and the holder. */
export const HOLDER_PIDS = 2;

export interface SpecOptions {
  image: string;
  /** Network mode when a run asks for the network. */
  networkMode: string;
  /** The owner tag the container is labelled with (owner.ts). */
  owner: string;
}

export function containerSpec(
  options: SpecOptions,
  dir: SandboxDir,
  mounts: Docker.MountSettings[],
  limits: ExecutionLimits,
  request: ExecutionRequest,
): Docker.ContainerCreateOptions {
  const env = sandboxEnv(request.env, SANDBOX_HOME, SANDBOX_TMP);
  for (const key of Object.keys(env)) if (!key || key.includes('=') || key.includes('\0')) throw new Error(`invalid environment variable name "${key}"`);
  const memoryBytes = limits.memoryMb * 1024 * 1024;
  // exec: like TMPDIR and HOME of the other executors (Docker's default is noexec).
  const tmpfs = `rw,exec,nosuid,nodev,size=${limits.memoryMb}m`;
  return {
    Image: options.image,
    Entrypoint: ['sleep'],
    Cmd: ['2147483647'],
    User: SANDBOX_USER,
    Hostname: 'sandbox',
    WorkingDir: WORKSPACE_PATH,
    Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
    Labels: { [CONTAINER_LABEL]: containerOwner(options.owner) },
    NetworkDisabled: !limits.network,
    HostConfig: {
      Init: true,
      NetworkMode: limits.network ? options.networkMode : 'none',
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Memory: memoryBytes,
      MemorySwap: memoryBytes,
      PidsLimit: limits.pids + HOLDER_PIDS,
      Tmpfs: { [SANDBOX_TMP]: `${tmpfs},mode=1777`, [SANDBOX_HOME]: `${tmpfs},uid=65534,gid=65534` },
      Mounts: [
        { Type: 'bind', Source: dir.workspace, Target: WORKSPACE_PATH, ReadOnly: false },
        ...mounts,
        ...(request.writableMount ? [{ Type: 'bind' as const, Source: path.resolve(request.writableMount.hostPath), Target: checkedTarget(request.writableMount.sandboxPath), ReadOnly: false }] : []),
      ],
      LogConfig: { Type: 'none', Config: {} },
      IpcMode: 'private',
      AutoRemove: false,
    },
  };
}

/** Read-only binds; a mount uid 65534 cannot read is copied into the sandbox directory. */
export function readOnlyMounts(dir: SandboxDir, mounts: readonly ReadOnlyMount[] = []): Docker.MountSettings[] {
  return mounts.map((mount, index) => {
    const target = checkedTarget(mount.sandboxPath);
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

function checkedTarget(sandboxPath: string): string {
  const target = path.posix.normalize(sandboxPath);
  if (!path.posix.isAbsolute(target) || target === '/') throw new Error(`mount path "${sandboxPath}" must be an absolute path other than /`);
  if (target === WORKSPACE_PATH || target.startsWith(`${WORKSPACE_PATH}/`)) throw new Error(`mount path "${sandboxPath}" is inside ${WORKSPACE_PATH}`);
  return target;
}

/**
 * The writable mount's host directory opened to uid 65534 (the container's user) for the run,
 * and closed again after it: returns what restores its mode.
 */
export function openWritableMount(request: ExecutionRequest): () => void {
  const mount = request.writableMount;
  if (!mount) return () => undefined;
  const { mode } = fs.statSync(mount.hostPath);
  fs.chmodSync(mount.hostPath, 0o777);
  return () => fs.chmodSync(mount.hostPath, mode & 0o7777);
}
