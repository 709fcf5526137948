/**
 * Who owns a sandbox's resources. Every host directory, container and cgroup an executor makes
 * carries an owner tag, `<pid>-<nonce>`: the pid of the process responsible for cleaning up
 * (so that sweeps of dead owners can tell), and a nonce that makes the tag unique even when
 * pids are reused or live in other pid namespaces.
 *
 * A process owns its own sandboxes, unless its parent gave it a tag in
 * {@link SANDBOX_OWNER_ENV}: a one-shot child killed by SIGKILL cannot clean up, so its
 * parent makes a tag for it ({@link newSandboxOwner}), passes it in the environment, and after
 * the child has exited calls `executor.reclaim(tag)`.
 */
import { randomBytes } from 'node:crypto';

export const SANDBOX_OWNER_ENV = 'PEAGEN_SANDBOX_OWNER';

const TAG = /^(\d+)-[0-9a-f]{8}$/;

let own: string | undefined;

/** A fresh tag owned by this process, for a child whose leftovers this process will reclaim. */
export function newSandboxOwner(): string {
  return `${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** The tag this process's sandboxes carry: the parent's (SANDBOX_OWNER_ENV), else its own. */
export function sandboxOwner(): string {
  const given = process.env[SANDBOX_OWNER_ENV];
  if (given !== undefined && isSandboxOwner(given)) return given;
  own ??= newSandboxOwner();
  return own;
}

export function isSandboxOwner(value: string): boolean {
  return TAG.test(value);
}

/** The pid responsible for a tag's resources; undefined for anything that is not a tag. */
export function ownerPid(tag: string): number | undefined {
  const match = TAG.exec(tag);
  return match ? Number(match[1]) : undefined;
}

/** Refuses anything but a tag: reclaim() builds file names and label filters from it. */
export function checkSandboxOwner(tag: string): string {
  if (!isSandboxOwner(tag)) throw new Error(`"${tag}" is not a sandbox owner tag (<pid>-<8 hex digits>)`);
  return tag;
}
