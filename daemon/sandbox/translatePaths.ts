/**
 * For executors that run commands on the host's own filesystem view: rewrites sandbox paths
 * (the workspace, mounts, HOME, TMPDIR) in arguments, cwd and env values to host paths.
 */
import type { ReadOnlyMount } from './Executor';

export type PathMap = Array<{ sandboxPath: string; hostPath: string }>;

export function pathMap(workspaceSandbox: string, workspaceHost: string, mounts: readonly ReadOnlyMount[] = []): PathMap {
  // Longest prefix first, so /harness/lib wins over /harness.
  return [{ sandboxPath: workspaceSandbox, hostPath: workspaceHost }, ...mounts.map(({ sandboxPath, hostPath }) => ({ sandboxPath, hostPath }))].sort(
    (a, b) => b.sandboxPath.length - a.sandboxPath.length,
  );
}

export function translate(value: string, map: PathMap): string {
  for (const { sandboxPath, hostPath } of map) {
    if (value === sandboxPath) return hostPath;
    if (value.startsWith(`${sandboxPath}/`)) return hostPath + value.slice(sandboxPath.length);
    // `--flag=/workspace/x` style arguments
    const index = value.indexOf(`=${sandboxPath}`);
    if (index >= 0) return value.slice(0, index + 1) + translate(value.slice(index + 1), map);
  }
  return value;
}

/** A `:`-separated list of paths (PYTHONPATH, NODE_PATH): each entry translated. */
export function translateList(value: string, map: PathMap): string {
  return value
    .split(':')
    .map((entry) => translate(entry, map))
    .join(':');
}
