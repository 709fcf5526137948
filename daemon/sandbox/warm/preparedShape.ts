/**
 * What a prepared sandbox was made for, and whether a request fits it. A sandbox is built
 * with its mount points, its memory and process limits and its network: a request that
 * differs in any of these runs cold. The deadline and the output caps are enforced from
 * outside, counted from the task's start, so they may differ per request.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ExecutionLimits, type ExecutionRequest, type PrepareOptions, resolveLimits, WORKSPACE_PATH } from '../Executor';

export interface PreparedShape {
  /** Normalized sandbox paths, in the order the sandbox's mount directories are numbered. */
  mountPoints: string[];
  limits: ExecutionLimits;
}

/** The limits that are part of the sandbox itself (cgroup, tmpfs sizes, namespaces). */
const BUILT_IN: ReadonlyArray<keyof ExecutionLimits> = ['memoryMb', 'pids', 'network'];

/** Throws for a mount point a sandbox cannot have (relative, `/`, inside the workspace, twice). */
export function preparedShape(options: PrepareOptions = {}): PreparedShape {
  const mountPoints = (options.mountPoints ?? []).map(normalizeMountPoint);
  const twice = mountPoints.find((point, index) => mountPoints.indexOf(point) !== index);
  if (twice) throw new Error(`mount point "${twice}" is given twice`);
  return { mountPoints, limits: resolveLimits(options.limits) };
}

/**
 * Why `request` cannot run in a sandbox of `shape`, or undefined when it fits: the same
 * mount points (each backed by a directory: a file cannot fill a prepared directory) and
 * the same built-in limits.
 */
export function misfit(shape: PreparedShape, request: ExecutionRequest): string | undefined {
  // `env -i` (see goScript) would take a program named `a=b` for a variable.
  if (request.command[0]?.includes('=')) return `the program name "${request.command[0]}" contains "="`;
  if (request.writableMount) return 'a writable mount (a prepared sandbox has none)';
  const limits = resolveLimits(request.limits);
  for (const key of BUILT_IN) {
    if (limits[key] !== shape.limits[key]) return `${key} is ${String(limits[key])}, prepared for ${String(shape.limits[key])}`;
  }
  const wanted = (request.mounts ?? []).map((mount) => safeNormalize(mount.sandboxPath));
  const same = wanted.length === shape.mountPoints.length && wanted.every((point) => point !== undefined && shape.mountPoints.includes(point));
  if (!same) return `mount points ${JSON.stringify(wanted)}, prepared for ${JSON.stringify(shape.mountPoints)}`;
  for (const mount of request.mounts ?? []) {
    if (!isDirectory(mount.hostPath)) return `mount source "${mount.hostPath}" is not a directory`;
  }
  return undefined;
}

/** The index of the prepared mount directory that `sandboxPath` fills. */
export function mountIndex(shape: PreparedShape, sandboxPath: string): number {
  const index = shape.mountPoints.indexOf(normalizeMountPoint(sandboxPath));
  if (index < 0) throw new Error(`"${sandboxPath}" is no prepared mount point`);
  return index;
}

function normalizeMountPoint(sandboxPath: string): string {
  const clean = path.posix.normalize(sandboxPath).replace(/\/+$/, '');
  if (!path.posix.isAbsolute(sandboxPath) || clean === '') throw new Error(`mount point "${sandboxPath}" must be an absolute path other than /`);
  if (clean === WORKSPACE_PATH || clean.startsWith(`${WORKSPACE_PATH}/`)) throw new Error(`mount point "${sandboxPath}" is inside ${WORKSPACE_PATH}`);
  return clean;
}

function safeNormalize(sandboxPath: string): string | undefined {
  try {
    return normalizeMountPoint(sandboxPath);
  } catch {
    return undefined;
  }
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}
