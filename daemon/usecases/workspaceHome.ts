/**
 * Where the daemon keeps a client's workspace (its runs and selection jobs): the client's own
 * directory when the daemon shares its files, else a directory of the daemon's state. The
 * proof of sharing is the id the client keeps in `<projectDir>/.peagen/workspace-id`: a path
 * that merely exists on the daemon's machine may be another directory.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WORKSPACE_ID_FILE, type WorkspaceRef } from '../../shared/protocol';

export type { WorkspaceRef };
/** Under the daemon's state directory: one directory per workspace it does not share. */
export const REMOTE_WORKSPACES_DIR = 'workspaces';

/**
 * The directory that stands for the workspace (the `projectDir` RunDir and selection jobs
 * take). Without an id the path is the daemon's own, as the CLI gives it.
 */
export function workspaceHome(ref: WorkspaceRef, stateDir: string): string {
  if (ref.workspaceId === undefined) return path.resolve(ref.projectDir);
  if (sharesWorkspace(ref.projectDir, ref.workspaceId)) return path.resolve(ref.projectDir);
  const home = path.join(stateDir, REMOTE_WORKSPACES_DIR, ref.workspaceId);
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}

/** Whether `projectDir` here is the client's folder: it holds the id the client keeps there (not merely a folder of the same name). */
export function sharesWorkspace(projectDir: string, workspaceId: string): boolean {
  if (!path.isAbsolute(projectDir)) return false;
  try {
    return fs.readFileSync(path.join(projectDir, WORKSPACE_ID_FILE), 'utf8').trim() === workspaceId;
  } catch {
    return false;
  }
}
