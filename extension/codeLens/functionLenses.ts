/**
 * Which functions of a document get "Evolve this function", and with which tests: a top-level
 * Python or JavaScript function `peagen init --objective tests` can serve (shared/functionScan.ts,
 * the code init uses) in a file whose tests are found (shared/projectTests.ts), or with the
 * test command the user set. vscode-free, so the unit tests run it directly.
 */
import { type FunctionLanguage, functionLanguageOfFile, type ServableFunction, servableFunctions } from '../../shared/functionScan';
import { findProjectTests, type ProjectTests } from '../../shared/projectTests';

export interface FunctionLensTarget {
  language: FunctionLanguage;
  tests: ProjectTests;
  functions: ServableFunction[];
}

/**
 * The functions of `file` (absolute, with text `text`) that get a lens, and the tests they are
 * evolved against; undefined when none can be served. `testCommand` (peagen.codeLens.testCommand)
 * replaces the detected command; it runs in the folder holding the tests, else the workspace's.
 */
export function functionLensTarget(file: string, text: string, workspaceDir: string, testCommand = ''): FunctionLensTarget | undefined {
  const language = functionLanguageOfFile(file);
  if (!language) return undefined;
  const found = findProjectTests(file, workspaceDir, language);
  const command = testCommand.trim();
  const tests = command ? { projectDir: found?.projectDir ?? workspaceDir, command, foundBy: 'peagen.codeLens.testCommand' } : found;
  if (!tests) return undefined;
  const functions = servableFunctions(text, language);
  return functions.length > 0 ? { language, tests, functions } : undefined;
}

/** What the user reads when the command is run on a file with no tests found: what to add. */
export function noTestsMessage(fileName: string, language: FunctionLanguage): string {
  const add =
    language === 'python'
      ? 'add unittest or pytest tests (test_*.py beside the file, or in tests/)'
      : 'add tests node --test finds (*.test.js beside the file, or in test/) or a "test" script in package.json';
  return `no tests found for ${fileName}: Peagen evolves a function against your project's tests (peagen init --tests); ${add}, or set peagen.codeLens.testCommand to the command that runs them`;
}

/** Where the no-tests hint goes (the first function Peagen could evolve) and what it says; undefined for a file with none. */
export function functionsWithoutTests(file: string, text: string): { line: number; message: string } | undefined {
  const language = functionLanguageOfFile(file);
  if (!language) return undefined;
  const first = servableFunctions(text, language)[0];
  const name = file.split(/[\\/]/).pop() ?? file;
  return first ? { line: first.definitionLine, message: noTestsMessage(name, language) } : undefined;
}
