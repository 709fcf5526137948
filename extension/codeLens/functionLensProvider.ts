/**
 * The "Evolve this function" lens above each function {@link functionLensTarget} accepts,
 * running `peagen.evolveFunction` with the file and the function's name. Refreshed when a
 * setting of it changes and when files are created or deleted (tests may appear or go).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { functionLensTarget, functionsWithoutTests } from './functionLenses';

export const EVOLVE_FUNCTION_COMMAND = 'peagen.evolveFunction';
export const LENS_TITLE = 'Evolve this function';
/** Above the first function of a file whose tests were not found: clicking it opens peagen.codeLens.testCommand. */
export const NO_TESTS_LENS_TITLE = 'Peagen: no tests found for this file (set the test command)';
const TEST_FILES = '**/{test*.py,*_test.py,tests,test,*.test.{js,cjs,mjs},*-test.{js,cjs,mjs},*_test.{js,cjs,mjs},test-*.{js,cjs,mjs},package.json,pyproject.toml,setup.cfg,pytest.ini,conftest.py}';

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
    if (!target) {
      // Functions it could evolve, but no tests found: one hint, above the first, says why and what to set.
      const hint = functionsWithoutTests(document.uri.fsPath, document.getText());
      if (!hint) return [];
      return [
        new vscode.CodeLens(new vscode.Range(hint.line, 0, hint.line, 0), {
          title: NO_TESTS_LENS_TITLE,
          tooltip: `Peagen: ${hint.message}`,
          command: 'workbench.action.openSettings',
          arguments: ['peagen.codeLens.testCommand'],
        }),
      ];
    }
    return target.functions.map(
      (fn) =>
        new vscode.CodeLens(new vscode.Range(fn.definitionLine, 0, fn.definitionLine, 0), {
          title: LENS_TITLE,
          tooltip: `Peagen: peagen init for ${fn.name}() (tests: ${target.tests.command} in ${path.relative(workspaceDir, target.tests.projectDir) || 'the workspace folder'}): for speed when they pass, for the tests when some fail; then an evolve run; improvements are offered as proposals to accept or reject once measured`,
          command: EVOLVE_FUNCTION_COMMAND,
          arguments: [document.uri, fn.name],
        }),
    );
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}
