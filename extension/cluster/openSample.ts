/**
 * "Peagen: Open the Sample (bad_sort)": copies the bundled bad_sort example (a slow, correct
 * sorter, its trusted evaluator and reference) into the workspace, or into a folder the user
 * picks when no folder is open, and opens bad_sort.py. An existing copy is opened, never
 * overwritten: it may hold the user's accepted improvements.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** The files of examples/bad_sort the sample needs (also the .vsix allow-list: .vscodeignore). */
export const SAMPLE_FILES = ['bad_sort.py', 'evaluate.py', 'reference_bad_sort.py', 'peagen.example.json'] as const;
const SAMPLE_NAME = 'bad_sort';

export interface OpenSampleOptions {
  /** The folder to put `bad_sort/` in, instead of the workspace or the folder dialog. */
  folder?: string;
}

/** Where the sample is and whether this call copied it. */
export interface OpenSampleResult {
  directory: string;
  copied: boolean;
}

export function registerOpenSample(context: vscode.ExtensionContext): vscode.Disposable {
  return vscode.commands.registerCommand('peagen.openSample', async (argument?: unknown): Promise<OpenSampleResult | undefined> => {
    const requested = (argument as OpenSampleOptions | undefined)?.folder;
    const parent = typeof requested === 'string' ? requested : await chooseParent();
    if (!parent) return undefined;
    const directory = path.join(parent, SAMPLE_NAME);
    const copied = !fs.existsSync(path.join(directory, 'bad_sort.py'));
    try {
      if (copied) copySample(context.asAbsolutePath(path.join('examples', SAMPLE_NAME)), directory);
    } catch (error) {
      void vscode.window.showErrorMessage(`Peagen: could not copy the sample into ${directory}: ${(error as Error).message}`);
      return undefined;
    }
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(path.join(directory, 'bad_sort.py')));
    revealEvolveBlock(editor);
    const inWorkspace = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(directory)) !== undefined;
    const hint = 'Select the sort function (or keep the cursor in its EVOLVE-BLOCK) and run Peagen: Evolve Selection.';
    void vscode.window
      .showInformationMessage(`Peagen: ${copied ? 'copied' : 'opened'} the bad_sort sample in ${directory}. ${hint}`, ...(inWorkspace ? [] : ['Open Folder']))
      .then((choice) => {
        if (choice === 'Open Folder') void vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(directory));
      });
    return { directory, copied };
  });
}

async function chooseParent(): Promise<string | undefined> {
  const workspace = vscode.workspace.workspaceFolders?.[0];
  if (workspace) return workspace.uri.fsPath;
  const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: 'Put the sample here', title: 'Peagen: where should the bad_sort sample go?' });
  return picked?.[0]?.fsPath;
}

function copySample(source: string, directory: string): void {
  fs.mkdirSync(directory, { recursive: true });
  for (const file of SAMPLE_FILES) {
    const target = path.join(directory, file);
    if (!fs.existsSync(target)) fs.copyFileSync(path.join(source, file), target);
  }
}

/** Puts the cursor at the start of the EVOLVE-BLOCK: what the walkthrough asks to evolve. */
function revealEvolveBlock(editor: vscode.TextEditor): void {
  const text = editor.document.getText();
  const marker = text.indexOf('EVOLVE-BLOCK-START');
  if (marker < 0) return;
  const line = editor.document.positionAt(marker).line + 1;
  const position = new vscode.Position(Math.min(line, editor.document.lineCount - 1), 0);
  editor.selection = new vscode.Selection(position, position);
  editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenter);
}
