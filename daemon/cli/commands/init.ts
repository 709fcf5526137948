/**
 * `peagen init FILE --function NAME [--tests CMD] [--objective speed|score|tests] [--out DIR]`:
 * an example for a function of your code, with an evaluator built on the harness
 * (daemon/usecases/initExample.ts); prints the one command that evolves it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Command, Option } from 'commander';
import type { InitObjective } from '../../evaluation/scaffold/scaffoldExample';
import { InitError, type InitResult, initExample, NOT_READY_MARKER } from '../../usecases/initExample';
import { evaluateSeedListingTests, leftOutTestsText } from '../../usecases/listedTests';
import { loadExample } from '../../evaluation/example';
import { CliContext, CliError, ExitCode } from '../context';
import { evaluateExample } from './eval';

interface InitFlags {
  function: string;
  tests?: string;
  objective: InitObjective;
  out?: string;
  /** false with --no-check: the seed is not evaluated before init says OK. */
  check: boolean;
}

const OBJECTIVE_HELP = {
  speed: 'the speedup over the original, every answer equal to the original\'s (default)',
  score: 'the number the function returns, averaged over the inputs (keep the scoring outside the evolved function)',
  tests: 'the share of the --tests command\'s tests that pass, speed as the tie break',
};

export function registerInitCommand(program: Command): void {
  program
    .command('init <file>')
    .description('make an example for a function of your code (EVOLVE-BLOCK markers, an evaluator built on the harness, peagen.example.json) and print the command that evolves it')
    .requiredOption('--function <name>', 'the function to evolve: a top-level def, function, or const NAME = (...) => of the file')
    .option('--tests <cmd>', 'your tests\' shell command, run from the current directory (the project root): run once now to record the function\'s inputs, then against every candidate in the sandbox; a failing test rejects it')
    .addOption(
      new Option('--objective <objective>', Object.entries(OBJECTIVE_HELP).map(([name, help]) => `${name}: ${help}`).join('; '))
        .choices(Object.keys(OBJECTIVE_HELP))
        .default('speed'),
    )
    .option('--out <dir>', 'where the example goes (default .peagen/examples/<file>-<function>/)')
    .option('--no-check', 'do not evaluate your code as it is (the seed) with the new example before saying it is ready')
    .addHelpText('after', '\nExample:\n  peagen init src/stats.py --function moving_average --tests "python3 -m unittest"\n  peagen evolve run .peagen/examples/stats-moving_average --mutator offline --evaluations 20')
    .action(async (file: string, flags: InitFlags, command: Command) => {
      const ctx = CliContext.of(command);
      let made: InitResult;
      try {
        made = await initExample({
          file,
          functionName: flags.function,
          projectDir: process.cwd(),
          objective: flags.objective,
          ...(flags.tests && { tests: flags.tests }),
          ...(flags.out && { outDir: flags.out }),
        });
      } catch (error) {
        if (error instanceof InitError) throw new CliError(error.message, ExitCode.Usage);
        throw error;
      }
      const where = path.relative(process.cwd(), made.dir) || '.';
      const evolve = `peagen evolve run ${where}`;
      // "init OK" means the seed evaluates: the same evaluator, sandbox and copy of the project the run will use.
      const check = flags.check ? await checkSeed(ctx, made.dir, where, flags.function, made.inputs) : undefined;
      if (check && !check.correct) fs.writeFileSync(path.join(made.dir, NOT_READY_MARKER), `${check.summary}\n`);
      const inputs = made.inputs.from === 'tests' ? `the ${made.inputs.calls} distinct call(s) your tests made, then inputs drawn like them` : `drawn from its signature (${made.inputs.why})`;
      ctx.output({ ...made, command: evolve, ...(check && { check }) }, () =>
        [
          `made ${where}/ for ${flags.function}() (lines ${made.region.startLine + 1}-${made.region.endLine} of ${path.basename(file)}): ${made.files.join(', ')}`,
          `objective: ${OBJECTIVE_HELP[made.objective]}`,
          ...(made.objective === 'tests' ? [] : [`inputs: ${inputs}`]),
          ...(made.testCommand
            ? [
                `tests: the evaluation leaves out ${leftOutText(made.testCommand.leftOut)} and runs:`,
                `  ${made.testCommand.command}`,
              ]
            : []),
          ...(check ? [check.correct ? `checked: your code as it is evaluates correctly in a ${check.executor} sandbox (${check.summary})` : `NOT READY: ${check.summary}`] : []),
          ...(check?.leftOut ? [leftOutTestsText(check.leftOut, flags.function, check.leftOut.file)] : []),
          ...(check && !check.correct
            ? [`the example is kept: fix what is said above, then check it again with peagen eval ${where} (or init again, which replaces it)`]
            : [`review its evaluator (the inputs it uses, what the candidate may import), then evolve it with:`, `  ${evolve}`]),
        ].join('\n'),
      );
      if (check && !check.correct) process.exitCode = ExitCode.Failed;
    });
}

interface SeedCheck {
  correct: boolean;
  executor: string;
  /** One line: the objective read, or what failed and what to do. */
  summary: string;
  /** The project's tests the evaluation leaves out (they fail on the user's code only in the sandbox). */
  leftOut?: { tests: number; of: number; file: string };
}

/**
 * Evaluates the example's own program (the user's code as it is) once, `--quick`; tests that
 * fail on it only in the sandbox are left out when enough are kept (usecases/listedTests.ts).
 */
async function checkSeed(ctx: CliContext, dir: string, where: string, functionName: string, inputs: InitResult['inputs']): Promise<SeedCheck> {
  const example = loadExample(dir);
  let executor = '';
  const { evaluation, leftOut } = await evaluateSeedListingTests(dir, functionName, async (label) => {
    const done = await evaluateExample(ctx, example, { quick: true, label });
    executor = done.sandbox.executor;
    return done.evaluation;
  }, `checking ${where} on your code as it is`);
  if (evaluation.correct) {
    const value = evaluation.objective === null ? 'no objective' : `${example.config.objective.name} ${evaluation.objective.toFixed(3)}${intervalText(evaluation.metrics)} against itself`;
    return { correct: true, executor, summary: value + selfTimingWarning(evaluation.metrics) + noTestPasses(evaluation), ...(leftOut && { leftOut: { tests: leftOut.tests, of: leftOut.of, file: path.relative(process.cwd(), leftOut.file) } }) };
  }
  const text = `${evaluation.failure?.message ?? ''}\n${evaluation.errorText ?? ''}`;
  return { correct: false, executor, summary: `your code as it is fails its own evaluation in the ${executor} sandbox, so no candidate could pass it: ${(evaluation.failure?.message ?? 'no reason given').split('\n')[0]}${missingHint(text) || textCheckHint(text, inputs) || boundaryHint(text) || firstErrorHint(text)}` };
}

/** The error the output names first (`SyntaxError: ...`, not a stack trace's source line), or undefined. */
function firstError(text: string): string | undefined {
  return text.split('\n').find((line) => /^\s*\w*(?:Error|Exception): \S/.test(line))?.trim().slice(0, 400);
}

/**
 * The last resort for a seed whose tests fail: the first error their output names, and, when
 * the test command builds first, that a build reading the file's text gets Peagen's stand-in.
 */
export function firstErrorHint(text: string): string {
  if (!/the project's tests failed/.test(text)) return '';
  const error = firstError(text);
  // project_tests.TestRun.failure_text names the scripts npm ran (`npm ran: build, test`)
  const builds = /^npm ran: .*\b(?:pre)?build\b/m.test(text);
  return (error ? `; the tests' output says: ${error}` : '')
    + (builds ? ' (the test command builds the project first: a build that reads your file\'s text gets Peagen\'s stand-in there, see "What init cannot handle" in docs/evolve-your-code.md; give --tests a command that runs the tests alone)' : '');
}

/** ` [low–high]`: the 95% interval the evaluator's rounds give the speedup, when it gave one. */
function intervalText(metrics: Record<string, number> | undefined): string {
  const low = metrics?.speedup_low;
  const high = metrics?.speedup_high;
  return low === undefined || high === undefined ? '' : ` [95% CI ${low.toFixed(2)}–${high.toFixed(2)}]`;
}

/**
 * The user's code timed against itself must read 1.0 within its interval: when it does not,
 * this machine's timing favours one side (load that changed between the two, frequency
 * scaling), and a gain of that size would be its error, not the code's.
 */
export function selfTimingWarning(metrics: Record<string, number> | undefined): string {
  const low = metrics?.speedup_low;
  const high = metrics?.speedup_high;
  if (low === undefined || high === undefined || (low <= 1 && high >= 1)) return '';
  const off = low > 1 ? low : 1 / high;
  return `; timing here is off by at least ${off.toFixed(2)}x on your code against itself (the machine is busy, or its clock speed changes): a gain that small is not measurable here until it is idle (evolve run confirms every gain by measuring it again before it is offered)`;
}

/**
 * The test command checks the program's text besides running the tests (a formatter or linter
 * inside a script init cannot take apart: path-to-regexp's `ts-scripts test` runs prettier
 * --check): init's traced copy failed it already, and the evaluation's stand-in fails it too.
 */
export function textCheckHint(text: string, inputs: InitResult['inputs']): string {
  if (inputs.from !== 'signature' || !/ traced \(a linter/.test(inputs.why)) return '';
  const tool = /\b(prettier|eslint|xo|standard|biome|dprint|size-limit|tslint)\b/i.exec(text)?.[1];
  return ` (the test command checks the program's text as well${tool ? ` (${tool} failed)` : ''}, and the file evaluated there is Peagen's stand-in, not your code: give --tests a command that runs the tests alone, e.g. the runner your test script ends with (npx vitest run, npx jest, npx mocha), and run the checks yourself on what you apply)`;
}

/**
 * Why some of the project's tests fail on the user's own code: init ran them and they passed
 * in their own process, so they fail only behind the process boundary.
 */
export function boundaryHint(text: string): string {
  const counted = /the project's tests failed \(tests passed (\d+)\/(\d+)\)/.exec(text);
  if (!counted || Number(counted[1]) === 0) return '';
  return " (they pass on your code in the tests' own process, so they fail only with the function in a process of its own: they read state the tests set in theirs (an activated language, a global option) or pass objects of their own classes; leave them out of the test command (pytest -k 'not NAME', node --test --test-name-pattern) or use --objective tests, which then runs the candidate in the tests' process and says so)";
}

/**
 * objective tests: a seed that passes none of the tests may be where the user starts (tests
 * written first), or may not be judged at all; the error the tests' output names first
 * (`Error: ...`, not a stack trace's source line) says which.
 */
function noTestPasses(evaluation: { metrics?: Record<string, number> | undefined; failure?: { message: string } | null | undefined; errorText?: string | null | undefined }): string {
  const metrics = evaluation.metrics;
  if (metrics?.tests_total === undefined || metrics.tests_total === 0 || metrics.tests_passed !== 0) return '';
  const why = firstError(`${evaluation.failure?.message ?? ''}\n${evaluation.errorText ?? ''}`);
  return `; no test passes on your code as it is${why ? `: ${why}` : ''}`;
}

/** What is missing from the sandbox's copy of the project, when the failure names it. */
export function missingHint(text: string): string {
  const python = /No module named '?([\w.]+)'?/.exec(text);
  if (python) return ` (the Python module ${python[1]} is missing where the tests run: the sandbox runs them with the python3 your PATH had when init ran and the project's .venv or venv; install ${python[1]} there, or name the interpreter that has it in --tests, e.g. ".venv/bin/python -m pytest")`;
  const node = /Cannot find (?:module|package) '([^']+)'|([\w@./-]+): not found/.exec(text);
  const missing = node?.[1] ?? node?.[2];
  if (missing && /^[./]/.test(missing)) {
    // A file of the project, not a package: npm install would not bring it.
    return ` (the file ${missing} is missing where the tests run: if the test command builds the project first, the build did not make it; check that the build passes on a fresh checkout)`;
  }
  if (missing) return ` (${missing} is missing where the tests run: the sandbox sees the project's node_modules read-only; run npm install in the project, then init again)`;
  const download = /request to (https?:\/\/[^\s]+) failed|(?:EAI_AGAIN|ENOTFOUND) ([\w.-]+)/.exec(text);
  if (download) {
    return ` (the test command downloads something (${download[1] ?? download[2]}) where the tests run, which has no network: npx -y or pnpm dlx fetching a tool, say; install that tool in the project or on your PATH, or name a command that runs the project's own test runner, e.g. "npm run test:unit" or "npx jest")`;
  }
  return '';
}

/** What init's plan of the test command left out, each kind with its reason. */
function leftOutText(leftOut: string[]): string {
  const fetched = leftOut.filter((part) => part.startsWith('npx '));
  const checks = leftOut.filter((part) => !part.startsWith('npx '));
  const quoted = (parts: string[]): string => parts.map((part) => `"${part}"`).join(', ');
  return [
    ...(fetched.length > 0 ? [`${quoted(fetched)} (the sandbox has no network to fetch it)`] : []),
    // A linter of `.` reads .peagen/ too (unjs/ufo's `eslint .` failed on the examples' evaluators).
    ...(checks.length > 0 ? [`${quoted(checks)} (they read files' text or count covered lines, and the evaluated file is Peagen's stand-in; run them yourself on what you apply, with .peagen/ in their ignores: it holds Peagen's examples and runs)`] : []),
  ].join(' and ');
}
