/** "Evolve this function" above the functions of Python and JavaScript files, and its command. */
import * as vscode from 'vscode';
import type { EvolveApi } from '../evolve/api';
import { projectDir, type Services } from '../services';
import { evolveFunction, type EvolveFunctionOptions } from './evolveFunction';
import { EVOLVE_FUNCTION_COMMAND, FunctionLensProvider } from './functionLensProvider';

/** The documents the lens is offered for: init serves .py, .js, .cjs, .mjs and .ts, .mts, .cts files (the provider checks the file name). */
const SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', language: 'python' },
  { scheme: 'file', language: 'javascript' },
  { scheme: 'file', language: 'typescript' },
];

export function registerCodeLens(services: Services, evolve: EvolveApi): vscode.Disposable[] {
  const provider = new FunctionLensProvider(projectDir);
  return [
    provider,
    vscode.languages.registerCodeLensProvider(SELECTOR, provider),
    vscode.commands.registerCommand(EVOLVE_FUNCTION_COMMAND, async (uri?: vscode.Uri | string, functionName?: string, options?: EvolveFunctionOptions) => {
      try {
        return await evolveFunction(services, evolve, uri, functionName, options);
      } catch (error) {
        const message = (error as Error).message;
        services.output.error(`Evolve this function: ${message}`);
        void vscode.window.showErrorMessage(`Peagen: ${message}`);
        return { error: message };
      }
    }),
  ];
}
