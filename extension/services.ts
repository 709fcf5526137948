/** What every feature of the extension is handed when it registers (extension.ts wires them). */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WORKSPACE_ID_FILE, WorkspaceIdSchema, type WorkspaceRef } from '../shared/protocol';
import type { DaemonConnection } from './daemonConnection';
import type { ProposalSink } from './proposals/proposal';

export interface Services {
  context: vscode.ExtensionContext;
  output: vscode.LogOutputChannel;
  daemon: DaemonConnection;
  /** Where proposed edits go: shown as diffs, applied only on Accept. */
  proposals: ProposalSink;
}

/** The project whose `.peagen/runs/` the commands and the Evolution view use: the first workspace folder. */
export function projectDir(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/**
 * The open folder as the daemon's requests name it (shared/protocol.ts WorkspaceParams): its
 * path, and the id kept in its `.peagen/workspace-id` (made on first use). A daemon that reads
 * the same id there shares this folder; any other keeps the folder's runs on its own side.
 */
export type WorkspaceParams = Required<WorkspaceRef>;

export function workspaceRef(): WorkspaceParams | undefined {
  const dir = projectDir();
  return dir === undefined ? undefined : { projectDir: dir, workspaceId: workspaceIdOf(dir) };
}

const validId = (id: string): boolean => WorkspaceIdSchema.safeParse(id).success;
const workspaceIds = new Map<string, string>();

function workspaceIdOf(dir: string): string {
  const known = workspaceIds.get(dir);
  if (known) return known;
  const file = path.join(dir, WORKSPACE_ID_FILE);
  let id: string | undefined;
  try {
    id = fs.readFileSync(file, 'utf8').trim();
  } catch {
    id = undefined;
  }
  if (!id || !validId(id)) {
    id = randomBytes(12).toString('base64url');
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // wx: a window that wrote it first wins, and this one reads theirs.
      fs.writeFileSync(file, `${id}\n`, { flag: 'wx' });
    } catch {
      try {
        const theirs = fs.readFileSync(file, 'utf8').trim();
        if (validId(theirs)) id = theirs;
      } catch {
        // A read-only folder: the id lives for this window only, and the daemon keeps the runs.
      }
    }
  }
  workspaceIds.set(dir, id);
  return id;
}
