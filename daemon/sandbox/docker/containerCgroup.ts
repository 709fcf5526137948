/**
 * A container's cgroup and processes, read from the host: the limit counters (pids.events
 * `max`, memory `oom_kill`, peak memory) and whether a host process is still running. Only
 * with a local engine whose cgroups are visible here; otherwise nothing is found.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CgroupStats, statsV1, statsV2 } from '../cgroup';

export interface ContainerCgroup {
  stats(): CgroupStats;
}

const CGROUP_ROOT = '/sys/fs/cgroup';

/**
 * The host directories of a container's cgroup: by the engine's usual layouts (cgroupfs:
 * `docker/<id>`, systemd: `system.slice/docker-<id>.scope`), or, given the container's main
 * pid, from /proc/<pid>/cgroup. Undefined when they are not visible from here.
 */
export function locateCgroup(id: string, pid?: number): ContainerCgroup | undefined {
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

/** Whether host process `pid` belongs to the container (its cgroup path names it). */
export function processInContainer(pid: number, containerId: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').includes(containerId);
  } catch {
    return false;
  }
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
