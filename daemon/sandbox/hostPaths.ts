/**
 * The host directories a task may name. Tasks carry host paths (an `execute` task's workspace
 * and mounts, an `evaluate` task's example, a `mutate` task's prompt directory); a worker on a
 * shared queue serves tasks that anyone who can write to the queue could have written, so it
 * takes those paths only inside the directories it was told to serve: without this, one hand-
 * written entry could copy `~/.ssh` into a sandbox and read it back in the result. Tasks this
 * process submitted itself (its own runs, its own user's clients) are trusted: their paths are
 * the user's own choice.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export class HostPathRefused extends Error {
  override name = 'HostPathRefused';
}

export class HostPathPolicy {
  private readonly roots: string[];
  private readonly trusted = new Set<string>();

  /** `roots`: directories (they and everything under them are served); missing or empty ones are ignored. */
  constructor(roots: readonly string[]) {
    // '' would resolve to the current directory: an absent root must serve nothing.
    this.roots = [...new Set(roots.flatMap((root) => (root === '' ? [] : (existingRealPath(path.resolve(root)) ?? []))))];
  }

  /**
   * The real path of `hostPath` when it lies inside a served directory (symbolic links
   * resolved, so a link cannot lead out); otherwise HostPathRefused saying what to do.
   */
  check(hostPath: string, what: string, taskId?: string): string {
    if (taskId !== undefined && this.trusted.has(taskId)) return hostPath;
    const real = path.isAbsolute(hostPath) ? existingRealPath(hostPath) : undefined;
    if (real && this.roots.some((root) => real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep))) return real;
    const shown = hostPath.length > 200 ? `${hostPath.slice(0, 200)}…` : hostPath;
    throw new HostPathRefused(
      `${what} ${JSON.stringify(shown)} is ${path.isAbsolute(hostPath) ? (real ? 'outside the directories this worker serves' : 'not an existing directory or file here') : 'not an absolute path'} (${this.roots.join(', ') || 'none'}); a worker on a shared queue takes host paths only there: add the directory to worker.roots in its peagen.json or to PEAGEN_WORKER_ROOTS`,
    );
  }

  /** A task this process submitted: its paths are taken as they are (until {@link forget}). */
  trust(taskId: string): void {
    this.trusted.add(taskId);
  }

  /** The task finished: nothing will run it again. */
  forget(taskId: string): void {
    this.trusted.delete(taskId);
  }

  get served(): readonly string[] {
    return this.roots;
  }
}

/** Peagen's own examples/ directory, found upwards from this file (dist/ or out/...); '' if absent. */
export function bundledExamplesDir(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'examples', 'bad_sort', 'peagen.example.json'))) return path.join(dir, 'examples');
    if (path.dirname(dir) === dir) return '';
  }
}

function existingRealPath(hostPath: string): string | undefined {
  try {
    return fs.realpathSync(hostPath);
  } catch {
    return undefined;
  }
}
