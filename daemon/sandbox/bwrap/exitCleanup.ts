/**
 * What a process leaves behind if it exits mid-run: the /etc copies of executors never
 * closed, and the sandbox directories and cgroups of runs still going (their processes die
 * with bwrap's parent). They are registered as they are made and removed by an exit handler,
 * which the first registration installs: importing the executor installs nothing.
 */
import * as fs from 'node:fs';
import type { SandboxCgroup } from '../cgroup';

const directories = new Set<string>();
const cgroups = new Set<SandboxCgroup>();
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  process.once('exit', () => {
    for (const cgroup of cgroups) cgroup.destroySync(200);
    for (const dir of directories) fs.rmSync(dir, { recursive: true, force: true });
  });
}

/** Things handed to the exit handler (the first one installs it), and taken back once released. */
function registry<T>(items: Set<T>): { add(item: T): void; delete(item: T): void } {
  return {
    add(item) {
      install();
      items.add(item);
    },
    delete(item) {
      items.delete(item);
    },
  };
}

/** Directories removed when the process exits, unless taken back first. */
export const removeOnExit = registry(directories);
/** Cgroups destroyed when the process exits, unless taken back first. */
export const cgroupsInUse = registry(cgroups);
