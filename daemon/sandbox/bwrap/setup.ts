/**
 * What the bwrap executor learns once, when it first probes the host, and every run then
 * uses: the binary and the options it supports, the root file system's arguments, and how
 * the limits are enforced here.
 */
import type { CgroupManager } from '../cgroup';

/** How each limit is enforced, once available() has run. */
export interface BwrapEnforcement {
  memory: 'cgroup' | 'rlimit';
  pids: 'cgroup' | 'rlimit' | 'none';
  detail: string;
}

export interface Setup {
  bwrap: string;
  version: string;
  /** The host directory mounted as /etc (see prepareEtc). */
  etc: string;
  /** bwrap's system-directory and /etc arguments, the same for every run. */
  systemArgs: string[];
  networkArgs: string[];
  /** Added to the default PATH when node lives outside the system directories. */
  extraPath: string | undefined;
  userns: boolean;
  disableUserns: boolean;
  clearenv: boolean;
  tmpfsSize: boolean;
  cgroups: CgroupManager | undefined;
  enforcement: BwrapEnforcement;
}
