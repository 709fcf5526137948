/**
 * Containers outliving the process that made them: every sandbox container is labelled
 * {@link CONTAINER_LABEL} = `<hostname>:<owner tag>` (owner.ts), so an owner can remove its
 * own by tag (reclaim) and any executor on this machine can remove those whose responsible
 * process died (the tag starts with its pid).
 */
import * as os from 'node:os';
import type Docker from 'dockerode';
import { isAlive } from '../../../shared/processes';
import { checkSandboxOwner, sandboxOwner } from '../owner';

/** Label on every container this executor makes; its value is {@link containerOwner}. */
export const CONTAINER_LABEL = 'org.peagen.sandbox.run';

/** The label value for containers of `owner` (default: this process's tag) on this machine. */
export function containerOwner(owner = sandboxOwner()): string {
  return `${os.hostname()}:${owner}`;
}

/** Removes (killing them) every container of `owner`; never throws. */
export async function removeOwnedContainers(docker: Docker, owner: string): Promise<void> {
  const label = `${CONTAINER_LABEL}=${containerOwner(checkSandboxOwner(owner))}`;
  let found: Docker.ContainerInfo[];
  try {
    found = await docker.listContainers({ all: true, filters: { label: [label] } });
  } catch {
    return;
  }
  await Promise.all(found.map((info) => docker.getContainer(info.Id).remove({ force: true }).catch(() => undefined)));
}

/** Removes containers left by executors on this machine whose responsible process died. */
export async function sweepOrphans(docker: Docker): Promise<void> {
  try {
    const prefix = `${os.hostname()}:`;
    for (const info of await docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL] } })) {
      const owner = info.Labels?.[CONTAINER_LABEL] ?? '';
      // `<host>:<pid>-<nonce>`, or `<host>:<pid>` from earlier versions.
      const pid = Number(/^(\d+)(?:-|$)/.exec(owner.slice(prefix.length))?.[1]);
      if (!owner.startsWith(prefix) || !Number.isInteger(pid) || pid <= 0 || isAlive(pid)) continue;
      await docker
        .getContainer(info.Id)
        .remove({ force: true })
        .catch(() => undefined);
    }
  } catch {
    // best effort
  }
}
