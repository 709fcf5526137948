/**
 * `peagen init FILE --function NAME`: a ready example for a function of the user's own code,
 * made beside it (default `.peagen/examples/<name>/`): the file with EVOLVE-BLOCK markers
 * around the function as the program, the file as it is as the reference every answer is
 * compared with, an evaluator built on the harness and peagen.example.json. The same scaffold
 * as the editor's "Scaffold an evaluator" (daemon/evaluation/scaffold/).
 *
 * With `--tests CMD`: the sandbox sees only the example directory, so init copies the
 * project's files (what CMD needs, less .git, node_modules, caches and .peagen) into the
 * example's `project/`; the evaluator runs CMD in a scratch copy of it with the candidate in
 * place of the file. Before that, init runs CMD once here, in a scratch copy with the function
 * traced (traceCalls.ts), and keeps the arguments it was called with (peagen_inputs.json): the
 * inputs the original's answers are compared with the candidates' on.
 *
 * Like an Evolve Selection job, the example records where its program came from
 * (selection.json, base.txt): `peagen evolve apply` and the editor's Accept put the evolved
 * function back into the user's file without the markers init added. init also gives the
 * project's `.peagen/` a .gitignore of its own (peagenFolder.ts).
 */
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CapturedCalls } from '../../shared/capturedCalls';
import { isExportedMemberAt, unservedFunctionReason } from '../../shared/functionScan';
import { toDocument } from '../../shared/lines';
import {
  CAPTURED_CALLS_FILE,
  exampleName,
  functionLines,
  type InitObjective,
  PROJECT_COPY_DIR,
  scaffoldFiles,
  type ScaffoldLanguage,
} from '../evaluation/scaffold/scaffoldExample';
import { CAPTURE_FILE_ENV, tracedSource } from '../evaluation/scaffold/traceCalls';
import { withoutTextChecks } from './testCommandTextChecks';
import type { SelectionRecord } from '../../shared/selection';
import { ProjectEnvironmentSchema } from '../../shared/evaluation';
import { ensurePeagenFolder } from './peagenFolder';
import { linkDependencies, projectEnvironment } from './projectEnvironment';
import { runTestCommand } from './runTestCommand';
import { BASE_TEXT_FILE, SELECTION_FILE, sha256 } from './selectionJob';
import { selectionProgram } from './selectionProgram';

export const EXAMPLES_DIR = path.join('.peagen', 'examples');
/**
 * Left in an example whose seed failed init's check (`peagen init` writes it): init may make
 * that example again in its place (with other flags, as its message advises), while an example
 * that evaluated is never overwritten.
 */
export const NOT_READY_MARKER = '.peagen-not-ready';

/** The request cannot make an example; the message says what to write by hand instead. */
export class InitError extends Error {
  override name = 'InitError';
}

export interface InitRequest {
  file: string;
  functionName: string;
  /** Default: `<projectDir>/.peagen/examples/<example name>`. */
  outDir?: string;
  /** The project's root: the tests run there, the copy in the example is of it. */
  projectDir: string;
  /** The project's test command (a shell command line run in the project's root). */
  tests?: string;
  /** Default `speed`; `tests` needs `tests`. */
  objective?: InitObjective;
  /** Bound on the one test run at init time. */
  testTimeoutMs?: number;
}

export interface InitResult {
  dir: string;
  name: string;
  objective: InitObjective;
  /** The lines of the file the program evolves (0-based, end exclusive). */
  region: { startLine: number; endLine: number };
  files: string[];
  /** Where the evaluator's inputs come from: the calls the tests made, or the function's signature (and why). */
  inputs: { from: 'tests'; calls: number } | { from: 'signature'; why: string };
  /** The test command the evaluation runs, when it is not the one given: its linters and coverage gates left out (testCommandTextChecks.ts). */
  testCommand?: { command: string; leftOut: string[] };
}

const LANGUAGES: Record<string, ScaffoldLanguage> = { '.py': 'python', '.js': 'javascript', '.cjs': 'javascript', '.mjs': 'javascript', '.ts': 'javascript', '.mts': 'javascript', '.cts': 'javascript' };
const BY_HAND = 'put EVOLVE-BLOCK-START / EVOLVE-BLOCK-END comment lines around the code and write a peagen.example.json and an evaluator by hand (see examples/bad_sort and harness/README.md)';
const NOT_COPIED = new Set(['.git', '.peagen', 'node_modules', '__pycache__', '.venv', 'venv', '.mypy_cache', '.pytest_cache', '.tox']);
/** A project larger than this is not copied into every example: run init from a smaller folder. */
const MAX_PROJECT_FILES = 2_000;
const MAX_PROJECT_BYTES = 50 * 1024 * 1024;

export async function initExample(request: InitRequest): Promise<InitResult> {
  const objective = request.objective ?? 'speed';
  const file = path.resolve(request.file);
  const projectDir = path.resolve(request.projectDir);
  const extension = path.extname(file).toLowerCase();
  const language = LANGUAGES[extension];
  if (extension === '.tsx' || /\.d\.(c|m)?ts$/i.test(file)) {
    throw new InitError(`${path.basename(file)}: peagen init runs TypeScript (.ts, .mts, .cts) by stripping its types, not TSX or declaration files; evolve a .ts file, or ${BY_HAND}`);
  }
  if (extension.endsWith('ts') && typeof (Module as unknown as { stripTypeScriptTypes?: unknown }).stripTypeScriptTypes !== 'function') {
    throw new InitError(`${path.basename(file)}: TypeScript needs Node.js 22.13 or later (this is ${process.version}), whose module.stripTypeScriptTypes runs it`);
  }
  if (!language) throw new InitError(`${file}: peagen init handles Python (.py), JavaScript (.js, .cjs, .mjs) and TypeScript (.ts, .mts, .cts) functions; for other languages ${BY_HAND}`);
  if (objective === 'tests' && !request.tests) throw new InitError('--objective tests counts the tests that pass: name the test command with --tests "CMD"');
  const inProject = path.relative(projectDir, file);
  if (request.tests && (inProject.startsWith('..') || path.isAbsolute(inProject))) {
    throw new InitError(`${file} is outside the project ${projectDir}: run peagen init from the project's root (where "${request.tests}" runs)`);
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new InitError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const lines = toDocument(text).lines;
  const region = functionLines(lines, request.functionName, language);
  if (!region) {
    throw new InitError(
      `${path.basename(file)} defines no ${language === 'python' ? 'def' : 'function'} ${request.functionName} that peagen init can find (a top-level def, function, const ${request.functionName} = (...) =>, exports.${request.functionName} = function, or a member of an exported object): name another function, or ${BY_HAND}`,
    );
  }
  refuseUnhandled(lines.slice(region.startLine, region.endLine), request.functionName, language, isExportedMemberAt(lines, region.startLine, language));

  const fileName = path.basename(file);
  const program = selectionProgram(text, region, language);
  // Without the linters and coverage gates, which would fail on Peagen's stand-in.
  const testPlan = request.tests ? withoutTextChecks(request.tests, projectDir) : undefined;
  const tests = testPlan ? { command: testPlan.command, programInProject: inProject.split(path.sep).join('/') } : undefined;
  const dir = path.resolve(request.outDir ?? path.join(projectDir, EXAMPLES_DIR, exampleName(fileName, request.functionName)));
  const environment = tests ? projectEnvironment(projectDir, dir, process.env) : undefined;
  // An example outside the project cannot name the project's folders (only an ancestor's).
  const project = environment && ProjectEnvironmentSchema.safeParse(environment).success ? environment : undefined;
  const scaffold = scaffoldFiles({ fileName, text, functionName: request.functionName, language, objective, ...(tests && { tests }), ...(project && { project }) });
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
    if (!fs.existsSync(path.join(dir, NOT_READY_MARKER))) {
      throw new InitError(`${dir} already holds files: evolve that example (peagen evolve run ${dir}), or name another with --out`);
    }
    fs.rmSync(dir, { recursive: true, force: true }); // what an init that was NOT READY left
  }

  // Where the program goes back (`peagen evolve apply`, the editor's Accept): the user's file,
  // the lines the evolved block's inner lines replace, and the text it was made from (which a
  // file changed since then must still be), as an Evolve Selection job records it.
  const record: SelectionRecord = {
    version: 1,
    sourceFile: file,
    languageId: language,
    region,
    replaceRange: program.replaceRange,
    blockIndex: program.blockIndex,
    markersAdded: program.markersAdded,
    baseTextHash: sha256(text),
    exampleDir: dir,
    program: fileName,
    createdAt: new Date().toISOString(),
  };
  const files: Record<string, string> = { ...scaffold.files, [fileName]: program.code, [SELECTION_FILE]: `${JSON.stringify(record, null, 2)}\n`, [BASE_TEXT_FILE]: text };
  let inputs: InitResult['inputs'] = { from: 'signature', why: 'no --tests command was given' };
  if (request.tests) {
    const copy = projectFiles(projectDir, dir);
    if (objective !== 'tests') {
      // The dependencies the tests need here, even for an example outside the project (which cannot name them for the sandbox).
      const captured = await captureCalls(copy, inProject, text, { ...request, tests: testPlan!.command }, language, environment?.dependencies ?? []);
      inputs = captured.calls.length > 0 ? { from: 'tests', calls: captured.calls.length } : { from: 'signature', why: captured.why };
      if (captured.calls.length > 0) {
        const record: CapturedCalls = {
          source: 'tests',
          command: testPlan!.command,
          calls: captured.calls.map((call) => call.args),
          answers: captured.calls.map((call) => ('answer' in call ? { value: call.answer } : null)),
        };
        files[CAPTURED_CALLS_FILE] = `${JSON.stringify(record)}\n`;
      }
    } else {
      inputs = { from: 'signature', why: 'objective tests compares no answers' };
    }
    ensurePeagenFolder(projectDir);
    fs.mkdirSync(dir, { recursive: true });
    writeProjectFiles(copy, path.join(dir, PROJECT_COPY_DIR));
  }
  ensurePeagenFolder(projectDir);
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return {
    dir,
    name: scaffold.config.name,
    objective,
    region,
    files: [...Object.keys(files), ...(request.tests ? [`${PROJECT_COPY_DIR}/`] : [])].sort(),
    inputs,
    ...(testPlan && testPlan.leftOut.length > 0 && { testCommand: testPlan }),
  };
}

/** Functions the generated evaluators cannot call as a plain function: say what to do instead. */
function refuseUnhandled(definition: readonly string[], name: string, language: ScaffoldLanguage, exportedMember: boolean): void {
  const reason = unservedFunctionReason(definition, name, language, exportedMember);
  if (reason) throw new InitError(`${reason}, or ${BY_HAND}`);
}

/** One file of the project's copy: its bytes and mode (a script the tests run stays executable), or a symlink's target. */
type ProjectFile = { content: Buffer; mode: number } | { link: string };

/** The project's files the tests may need (relative path → file), refusing one too large to copy into an example. */
function projectFiles(projectDir: string, exampleDir: string): Map<string, ProjectFile> {
  const files = new Map<string, ProjectFile>();
  let bytes = 0;
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (NOT_COPIED.has(entry.name) || full === exampleDir) continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isSymbolicLink()) {
        // Kept as a link when it stays inside the project (the copy has its target too).
        const target = fs.readlinkSync(full);
        const inside = path.relative(projectDir, path.resolve(dir, target));
        if (!path.isAbsolute(target) && !inside.startsWith('..')) files.set(path.relative(projectDir, full), { link: target });
      } else if (entry.isFile()) {
        const content = fs.readFileSync(full);
        bytes += content.length;
        files.set(path.relative(projectDir, full), { content, mode: fs.statSync(full).mode & 0o777 });
        if (files.size > MAX_PROJECT_FILES || bytes > MAX_PROJECT_BYTES) {
          throw new InitError(`${projectDir} has more than ${MAX_PROJECT_FILES} files or ${MAX_PROJECT_BYTES / 1024 / 1024} MB (without .git, node_modules, caches): the example keeps a copy of it for the tests; run peagen init from the smallest folder the tests need`);
        }
      }
    }
  };
  walk(projectDir);
  return files;
}

/**
 * Runs the tests once in a scratch copy of the project with the function traced: the
 * arguments of its calls, or why there are none. Tests that fail on the original are refused.
 */
async function captureCalls(
  copy: Map<string, ProjectFile>,
  inProject: string,
  text: string,
  request: InitRequest,
  language: ScaffoldLanguage,
  dependencies: readonly string[],
): Promise<{ calls: RecordedCall[]; why: string }> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-init-'));
  try {
    writeProjectFiles(copy, path.join(scratch, 'project'));
    // The project's installed dependencies, as the evaluation links them (never copied).
    for (const name of dependencies) linkDependencies(path.join(path.resolve(request.projectDir), name), path.join(scratch, 'project', name));
    fs.writeFileSync(path.join(scratch, 'project', inProject), tracedSource(text, request.functionName, language));
    const captureFile = path.join(scratch, 'calls.jsonl');
    const timeoutMs = request.testTimeoutMs ?? 300_000;
    // A Python project installed in editable mode (`pip install -e .`) would import the user's own
    // files: the copy's package folder goes first on PYTHONPATH (as peagen_harness.project_tests does).
    const sourceRoot = language === 'python' ? path.join(scratch, 'project', pythonSourceRoot(request.projectDir, inProject)) : undefined;
    const env = sourceRoot ? { ...process.env, PYTHONPATH: [sourceRoot, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter) } : process.env;
    const run = await runTestCommand(request.tests!, path.join(scratch, 'project'), { ...env, [CAPTURE_FILE_ENV]: captureFile }, timeoutMs);
    if (!run.timedOut && run.status !== 0) {
      // Failing with the tracing wrapper only (a linter or a check of the file's own text in the
      // test command): the tests pass on the code as it is, its calls are just not recorded.
      writeProjectFiles(new Map([[inProject, { content: Buffer.from(text), mode: fs.statSync(path.join(scratch, 'project', inProject)).mode & 0o777 }]]), path.join(scratch, 'project'));
      const plain = await runTestCommand(request.tests!, path.join(scratch, 'project'), env, timeoutMs);
      if (!plain.timedOut && plain.status === 0) return { calls: [], why: `the tests fail with ${request.functionName}() traced (a linter, or a check of the file's text, in "${request.tests}"), so its calls were not recorded` };
    }
    if (run.timedOut || run.status !== 0) {
      throw new InitError(
        `the tests ("${request.tests}") ${run.timedOut ? 'did not finish in time' : `failed (exit status ${run.status})`} on the original code, so they cannot tell a right candidate from a wrong one: make them pass (or name a command that passes), or use --objective tests to evolve towards passing them\n${run.output.slice(-2000)}`,
      );
    }
    const recorded = fs.existsSync(captureFile) ? fs.readFileSync(captureFile, 'utf8').split('\n').filter(Boolean) : [];
    // The same call made twice is checked once; a few hundred calls say what the tests say.
    const calls = [...new Set(recorded)].slice(0, 200).map((line) => JSON.parse(line, exactIntegers) as RecordedCall);
    return { calls, why: calls.length > 0 ? '' : whyNoCalls(request.functionName, language, inProject, text) };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * A JSON.parse reviver that keeps an integer beyond a double's exact range as its digits
 * (written back as they were by JSON.stringify): Python's calls pass them (python-rsa's
 * inverse of 77-digit numbers), and as doubles they were other numbers, which the evaluator
 * then replayed and found the original answering differently.
 */
function exactIntegers(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  const { rawJSON } = JSON as JSON & { rawJSON?: (text: string) => unknown }; // Node 22 and later
  return rawJSON && typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined && /^-?\d+$/.test(context.source) ? rawJSON(context.source) : value;
}

/** The folder (relative to the project) a Python file's package is imported from: the one above its topmost __init__.py. */
function pythonSourceRoot(projectDir: string, inProject: string): string {
  let dir = path.dirname(inProject);
  while (dir !== '.' && fs.existsSync(path.join(projectDir, dir, '__init__.py'))) dir = path.dirname(dir);
  return dir;
}

function writeProjectFiles(files: Map<string, ProjectFile>, into: string): void {
  for (const [relative, file] of files) {
    const target = path.join(into, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if ('link' in file) fs.symlinkSync(file.link, target);
    else {
      fs.writeFileSync(target, file.content);
      fs.chmodSync(target, file.mode);
    }
  }
}

/** One line the tracing wrapper wrote (traceCalls.ts). */
interface RecordedCall {
  args: unknown[];
  answer?: unknown;
}

/** Why the tests' run recorded no call: what the user can change. */
function whyNoCalls(functionName: string, language: ScaffoldLanguage, inProject: string, text: string): string {
  if (language === 'python') return `the tests made no call of ${functionName}() with plain JSON arguments`;
  if (inProject.endsWith('.mjs') || /^\s*export\s/m.test(text)) return `the tests made no call of ${functionName}() that could be recorded (an ES module's calls are captured for a function declaration, not a const)`;
  return `the tests made no call through the module's exports (module.exports = { ${functionName} }) that could be recorded`;
}
