/**
 * The "Evolve this function" lens above each function {@link functionLensTarget} accepts,
 * running `peagen.evolveFunction` with the file and the function's name. Refreshed when a
 * setting of it changes and when files are created or deleted (tests may appear or go).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { functionLensTarget } from './functionLenses';

export const EVOLVE_FUNCTION_COMMAND = 'peagen.evolveFunction';
export const LENS_TITLE = 'Evolve this function';
const TEST_FILES = '**/{test_*.py,*_test.py,test.py,tests,test,*.test.{js,cjs,mjs},*-test.{js,cjs,mjs},*_test.{js,cjs,mjs},test-*.{js,cjs,mjs},package.json,pyproject.toml,setup.cfg,pytest.ini,conftest.py}';

export class FunctionLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private pending: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly workspaceDir: () => string | undefined) {
    // Only the files that tell where tests are (shared/projectTests.ts), not every file a run writes.
    const watcher = vscode.workspace.createFileSystemWatcher(TEST_FILES, false, true, false);
    const refresh = (uri: vscode.Uri): void => {
      if (uri.path.includes('/.peagen/') || uri.path.includes('/node_modules/')) return;
      clearTimeout(this.pending);
      this.pending = setTimeout(() => this.changed.fire(), 300);
    };
    this.disposables.push(
      watcher,
      watcher.onDidCreate(refresh),
      watcher.onDidDelete(refresh),
      { dispose: () => clearTimeout(this.pending) },
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('peagen.codeLens')) this.changed.fire();
      }),
    );
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const settings = vscode.workspace.getConfiguration('peagen.codeLens');
    const workspaceDir = this.workspaceDir();
    if (!settings.get<boolean>('enabled', true) || !workspaceDir || document.uri.scheme !== 'file') return [];
    const target = functionLensTarget(document.uri.fsPath, document.getText(), workspaceDir, settings.get<string>('testCommand', ''));
    if (!target) return [];
    return target.functions.map(
      (fn) =>
        new vscode.CodeLens(new vscode.Range(fn.definitionLine, 0, fn.definitionLine, 0), {
          title: LENS_TITLE,
          tooltip: `Peagen: peagen init --objective tests for ${fn.name}() (tests: ${target.tests.command} in ${path.relative(workspaceDir, target.tests.projectDir) || 'the workspace folder'}), then an evolve run; improvements are offered as proposals to accept or reject`,
          command: EVOLVE_FUNCTION_COMMAND,
          arguments: [document.uri, fn.name],
        }),
    );
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}
