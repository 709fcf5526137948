/**
 * "Scaffold an evaluator for <function>…": the files of a starting-point example beside the
 * source file (an evaluator, a reference copy of the file as it is now, peagen.example.json).
 * The evaluator follows the contract of examples/bad_sort/evaluate.py: `<evaluator> <program>
 * [--seed N] [--quick]`, one JSON line `{correct, objective, direction, metrics, error}` last.
 * It is built on Peagen's evaluation harness like the bundled examples (the candidate in its
 * own locked-down process, timed from outside, every answer compared with the reference's):
 * evolution optimises whatever the evaluator rewards, so it must not be foolable by the
 * candidate. Correctness: the project's tests (pytest / node --test) when there are any, and
 * the function's answers must equal the reference's; objective: the speedup over the
 * reference. The editor's "Scaffold an evaluator" asks for these files over ScaffoldEvaluator
 * and writes them beside the file for the user to review.
 */
import { EXAMPLE_CONFIG_FILE, type ExampleConfig, type ProjectEnvironment } from '../../../shared/evaluation';
import { entryPathOf, type FunctionLanguage, functionLines, isTypeScriptFile, nameDefinedAt } from '../../../shared/functionScan';
import { toDocument } from '../../../shared/lines';
import type { ScaffoldEvaluator } from '../../../shared/protocol';
import type { LineRegion } from '../../../shared/lines';
import { JS_EVALUATOR } from './jsEvaluator';
import { PYTHON_EVALUATOR } from './pythonEvaluator';

export type ScaffoldLanguage = FunctionLanguage;

export function scaffoldLanguage(languageId: string): ScaffoldLanguage | undefined {
  if (languageId === 'python') return 'python';
  if (languageId === 'javascript' || languageId === 'javascriptreact') return 'javascript';
  return undefined;
}

/**
 * The function the region is about: the first top-level-most definition inside it, else the
 * nearest definition above it with less indentation (the function whose body was selected).
 */
export function functionAt(lines: readonly string[], region: LineRegion, language: ScaffoldLanguage): string | undefined {
  const match = (index: number): string | undefined => nameDefinedAt(lines, index, language);
  const indent = (line: string): number => /^\s*/.exec(line)![0].length;
  const inside = lines
    .slice(region.startLine, region.endLine)
    .map((line, offset) => ({ line, name: match(region.startLine + offset) }))
    .filter((entry) => entry.name !== undefined)
    .sort((a, b) => indent(a.line) - indent(b.line));
  if (inside[0]) return inside[0].name;
  const first = lines.slice(region.startLine, region.endLine).find((line) => line.trim() !== '') ?? '';
  for (let index = region.startLine - 1; index >= 0; index--) {
    const line = lines[index]!;
    const name = match(index);
    if (name && indent(line) < indent(first)) return name;
  }
  return undefined;
}

export { functionLines };

/** What the example's objective is: see docs/evolve-your-code.md. */
export type InitObjective = 'speed' | 'score' | 'tests';

/** Where the example keeps its copy of the project's files (the tests run in a copy of it). */
export const PROJECT_COPY_DIR = 'project';
/** The calls the project's tests made (CapturedCallsSchema), beside the evaluator. */
export const CAPTURED_CALLS_FILE = 'peagen_inputs.json';
/**
 * The project's tests the evaluation goes by, beside the evaluator: written by `peagen init`
 * from the seed's evaluation (usecases/listedTests.ts): those every candidate must pass, and
 * those left out because they fail on the user's code only in the sandbox; read by the harness
 * (peagen_harness/project_tests.py TESTS_FILE, the same name).
 */
export const LISTED_TESTS_FILE = 'peagen_tests.json';

export interface ScaffoldInput {
  /** File name of the source file (the example's program), in its directory. */
  fileName: string;
  /** The file's text now: kept as the reference the candidates are compared with. */
  text: string;
  functionName: string;
  language: ScaffoldLanguage;
  /** Default `speed`. */
  objective?: InitObjective;
  /**
   * The project's test command, run in the example's copy of the project
   * ({@link PROJECT_COPY_DIR}) with the candidate at `programInProject` (a relative path).
   */
  tests?: { command: string; programInProject: string };
  /** What the project's tests need from the user's machine (init found it): the config's `project`. */
  project?: ProjectEnvironment;
}

/** The settings the evaluator templates are filled with (each a JSON literal in the source). */
interface EvaluatorSettings {
  __FUNCTION__: string;
  /** JavaScript: how the function is reached from the module's exports (entryPathOf). */
  __ENTRY__: string;
  __PROGRAM__: string;
  __REFERENCE__: string;
  __TESTS__: string | null;
  __PROJECT__: string | null;
  __PROJECT_PROGRAM__: string | null;
  __OBJECTIVE__: 'speed' | 'score';
}

const OBJECTIVES: Record<InitObjective, ExampleConfig['objective']> = {
  speed: { name: 'speedup', direction: 'maximize', unit: 'x' },
  score: { name: 'score', direction: 'maximize' },
  tests: { name: 'tests passed', direction: 'maximize' },
};

/** The example's name (and its folder's under .peagen/examples/): `<file stem>-<function>`. */
export function exampleName(fileName: string, functionName: string): string {
  return `${fileName.replace(/\.[^.]*$/, '')}-${functionName}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** File name → content of the scaffolded example, relative to the source file's directory. */
export function scaffoldFiles(input: ScaffoldInput): { files: Record<string, string>; evaluator: string; config: ExampleConfig } {
  const objective = input.objective ?? 'speed';
  const reference = `peagen_reference_${input.fileName}`;
  const evaluator = input.language === 'python' ? 'peagen_evaluate.py' : 'peagen_evaluate.js';
  const goal = { speed: 'Speed up', score: 'Raise the score returned by', tests: 'Make the project\'s tests pass with' }[objective];
  const config: ExampleConfig = {
    name: exampleName(input.fileName, input.functionName),
    description: `${goal} ${input.functionName}() of ${input.fileName}${objective === 'speed' ? ' without changing its answers' : ''} (scaffolded by Peagen: review ${objective === 'tests' ? EXAMPLE_CONFIG_FILE : evaluator}).`,
    // TypeScript runs as JavaScript once its types are stripped; its language tells the mutator's checks and prompts.
    language: isTypeScriptFile(input.fileName) ? 'typescript' : input.language,
    program: input.fileName,
    entry: input.functionName,
    evaluator: input.language === 'python' ? ['python3', evaluator, '{program}'] : ['node', evaluator, '{program}'],
    objective: OBJECTIVES[objective],
    // A project's test run is many processes and threads (npm, the runner and its workers, each
    // Node with a dozen threads), and a type-checking runner (ts-jest) holds a TypeScript
    // compiler in each (colord's tests took more than 1 GiB): room for them, still a bound on a
    // fork bomb or a runaway candidate.
    limits: { timeoutMs: 120_000, memoryMb: input.tests ? 4096 : 1024, pids: input.tests ? 512 : 64 },
    ...(input.project && { project: input.project }),
  };
  if (objective === 'tests') {
    // The share of the tests that pass is the whole verdict: the harness's project_tests
    // module is the evaluator (the same one a hand-written peagen.example.json names).
    if (!input.tests) throw new Error('objective tests needs the project\'s test command');
    config.evaluator = ['python3', '-m', 'peagen_harness.project_tests', '--tests', input.tests.command, '--project', PROJECT_COPY_DIR, '--program', input.tests.programInProject, '--evolve', input.functionName, '{program}'];
    return { files: { [EXAMPLE_CONFIG_FILE]: `${JSON.stringify(config, null, 2)}\n` }, evaluator: EXAMPLE_CONFIG_FILE, config };
  }
  const settings: EvaluatorSettings = {
    __FUNCTION__: input.functionName,
    __ENTRY__: input.language === 'javascript' ? entryPathOf(input.text, input.functionName) : input.functionName,
    __PROGRAM__: input.fileName,
    __REFERENCE__: reference,
    __TESTS__: input.tests?.command ?? null,
    __PROJECT__: input.tests ? PROJECT_COPY_DIR : null,
    __PROJECT_PROGRAM__: input.tests?.programInProject ?? null,
    __OBJECTIVE__: objective,
  };
  let source = input.language === 'python' ? PYTHON_EVALUATOR : JS_EVALUATOR;
  for (const [placeholder, value] of Object.entries(settings)) {
    // Python spells null None; every other value is a JSON string, also a Python literal.
    source = source.replaceAll(placeholder, value === null && input.language === 'python' ? 'None' : JSON.stringify(value));
  }
  return {
    files: { [evaluator]: source, [reference]: input.text, [EXAMPLE_CONFIG_FILE]: `${JSON.stringify(config, null, 2)}\n` },
    evaluator,
    config,
  };
}

/** The scaffold for the function `params.region` is about, or what to write by hand instead. */
export function scaffoldFor(params: ScaffoldEvaluator.Params): ScaffoldEvaluator.Response {
  const language = scaffoldLanguage(params.languageId);
  if (!language) return { refused: `evaluators are scaffolded for Python and JavaScript; write a peagen.example.json for ${params.languageId} by hand (see examples/bad_sort)` };
  const functionName = functionAt(toDocument(params.text).lines, params.region, language);
  if (!functionName) return { refused: 'no function definition holds the selection: select a whole function, or write a peagen.example.json by hand (see examples/bad_sort)' };
  const { files, evaluator } = scaffoldFiles({ fileName: params.fileName, text: params.text, functionName, language });
  return { scaffold: { functionName, evaluator, files } };
}
