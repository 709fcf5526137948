/** The document and lines an Evolve/Mutate Selection command works on, from its options or the active editor. */
import * as vscode from 'vscode';
import { type LineRegion, RegionError, resolveRegion } from './region';

export interface SelectionTarget {
  document: vscode.TextDocument;
  /** The document's text when the command started (what proposals are made against). */
  text: string;
  languageId: string;
  region: LineRegion;
}

export interface TargetOptions {
  /** The file (a URI or an absolute path); default: the active editor's. */
  uri?: vscode.Uri | string;
  /** The lines (0-based, end exclusive); default: the editor's selection, else the EVOLVE-BLOCK at the cursor. */
  region?: LineRegion;
}

export async function selectionTarget(options: TargetOptions): Promise<SelectionTarget> {
  const uri = typeof options.uri === 'string' ? (/^[a-z][\w+.-]+:/i.test(options.uri) && !/^[a-z]:[\\/]/i.test(options.uri) ? vscode.Uri.parse(options.uri) : vscode.Uri.file(options.uri)) : options.uri;
  const editor = uri ? vscode.window.visibleTextEditors.find((candidate) => candidate.document.uri.toString() === uri.toString()) : vscode.window.activeTextEditor;
  const document = uri ? (editor?.document ?? (await vscode.workspace.openTextDocument(uri))) : editor?.document;
  if (!document) throw new RegionError('open the file to evolve and select the code (e.g. a function), then run the command again');
  if (document.uri.scheme !== 'file') throw new RegionError(`Peagen evolves files on disk; ${document.uri.toString()} is not one (save it first)`);
  const text = document.getText();
  let region = options.region;
  if (!region) {
    const selection = editor?.selection;
    if (!selection) throw new RegionError('select the code to evolve in the editor (or put the cursor inside an EVOLVE-BLOCK), then run the command again');
    region = resolveRegion(text, { start: selection.start, end: selection.end });
  }
  const languageId = document.languageId === 'plaintext' ? (languageOfFile(document.fileName) ?? 'plaintext') : document.languageId;
  return { document, text, languageId, region };
}

const EXTENSION_LANGUAGES: Record<string, string> = {
  py: 'python', js: 'javascript', mjs: 'javascript', cjs: 'javascript', ts: 'typescript', mts: 'typescript', cts: 'typescript',
  jsx: 'javascriptreact', tsx: 'typescriptreact', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', cs: 'csharp', java: 'java',
  go: 'go', rs: 'rust', kt: 'kotlin', swift: 'swift', scala: 'scala', rb: 'ruby', sh: 'shellscript', lua: 'lua', sql: 'sql', r: 'r',
  jl: 'julia', php: 'php', dart: 'dart', zig: 'zig', hs: 'haskell', ex: 'elixir', exs: 'elixir', pl: 'perl',
};

/** VS Code's language id for a file name, for files opened without one (e.g. from disk). */
export function languageOfFile(fileName: string): string | undefined {
  const extension = /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase();
  return extension ? EXTENSION_LANGUAGES[extension] : undefined;
}
