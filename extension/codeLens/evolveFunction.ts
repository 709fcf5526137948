/**
 * "Evolve this function": what `peagen init FILE --function NAME --objective tests --tests CMD`
 * and `peagen evolve run` do in the CLI, for one function of the editor's file. The daemon
 * makes the example (InitFunction, the CLI's init code) where the CLI would; the run then
 * starts as Evolve Selection starts one with that example (progress notification, the
 * Evolution view, each better version offered as a proposal on the function's lines).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { functionLanguageOfFile, functionLines, isExportedMemberAt, unservedFunctionReason } from '../../shared/functionScan';
import { toDocument } from '../../shared/lines';
import { InitFunction } from '../../shared/protocol';
import type { EvolveApi } from '../evolve/api';
import type { Services } from '../services';
import { workspaceRef } from '../services';
import { functionLensTarget, noTestsMessage } from './functionLenses';

export interface EvolveFunctionOptions {
  /** true: start even above the spend limits; absent: ask, as Evolve Selection does. */
  confirm?: boolean;
}

/** Resolves with the run started, or undefined when the user declined the spend. */
export async function evolveFunction(services: Services, evolve: EvolveApi, uriArg: vscode.Uri | string | undefined, functionName: string | undefined, options: EvolveFunctionOptions = {}): Promise<{ runId: string; exampleDir: string } | undefined> {
  const workspace = workspaceRef();
  if (!workspace) throw new Error('open the folder of your project first: the example and the runs are kept in it');
  const uri = typeof uriArg === 'string' ? vscode.Uri.file(uriArg) : (uriArg ?? vscode.window.activeTextEditor?.document.uri);
  if (!uri) throw new Error('open a Python or JavaScript file and use "Evolve this function" above one of its functions');
  if (uri.scheme !== 'file') throw new Error(`Peagen evolves files on disk; ${uri.toString()} is not one (save it first)`);
  const document = await vscode.workspace.openTextDocument(uri);
  const fileName = path.basename(uri.fsPath);
  const language = functionLanguageOfFile(uri.fsPath);
  if (!language) throw new Error(`${fileName}: "Evolve this function" serves Python (.py), JavaScript (.js, .cjs, .mjs) and TypeScript (.ts, .mts, .cts) functions; for other files use Evolve Selection with an example of your own`);
  if (!functionName) throw new Error('name the function: use "Evolve this function" above it');
  if (document.isDirty) await document.save(); // init copies the project from disk for the tests: they must see this text
  const text = document.getText();
  const lines = toDocument(text).lines;
  const region = functionLines(lines, functionName, language);
  if (!region) throw new Error(`${fileName} defines no top-level function ${functionName} any more (a top-level def, function, const ${functionName} = (...) =>, or a member of an exported object)`);
  const unserved = unservedFunctionReason(lines.slice(region.startLine, region.endLine), functionName, language, isExportedMemberAt(lines, region.startLine, language));
  if (unserved) throw new Error(unserved);
  const testCommand = vscode.workspace.getConfiguration('peagen.codeLens').get<string>('testCommand', '');
  const target = functionLensTarget(uri.fsPath, text, workspace.projectDir, testCommand);
  if (!target) throw new Error(noTestsMessage(fileName, language));

  const { tests } = target;
  services.output.info(`evolve function: ${functionName}() of ${fileName} with the tests "${tests.command}" in ${tests.projectDir} (found by ${tests.foundBy})`);
  const made = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Peagen: making an example for ${functionName}() from your tests (${tests.command})…` },
    () =>
      services.daemon.request(InitFunction.type, {
        ...workspace,
        testsDir: tests.projectDir,
        sourceFile: uri.fsPath,
        functionName,
        tests: tests.command,
      }),
  );
  services.output.info(`evolve function: ${made.reused ? 'using the example made before' : 'made the example'} ${made.exampleDir}${made.reused ? ' (delete it to make it again from the current tests)' : ''}`);
  if (made.leftOut) {
    // As the CLI's init says it: no candidate is checked by these tests, so the user runs them on what is accepted.
    services.output.info(`evolve function: ${made.leftOut}`);
    void vscode.window.showWarningMessage(`Peagen: ${made.leftOut}`);
  }
  const evaluations = vscode.workspace.getConfiguration('peagen').get<number>('evolve.defaultEvaluations', 40);
  try {
    const started = await evolve.evolveSelection({
      uri,
      region,
      exampleConfig: made.exampleDir,
      stop: { evaluations },
      mutator: 'auto',
      ...(options.confirm !== undefined && { confirm: options.confirm }),
    });
    return { ...started, exampleDir: made.exampleDir };
  } catch (error) {
    // The user declining the spend confirmation is no error.
    if (/did not start a run/.test((error as Error).message)) return undefined;
    throw error;
  }
}
