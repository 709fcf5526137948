/**
 * The editor's "Evolve this function" (InitFunction): `peagen init FILE --function NAME
 * --tests CMD` run from the tests' folder, as the CLI does (initExample.ts): for speed when the
 * tests pass on the code as it is, `--objective tests` when some fail;
 * by a daemon that shares the client's files. The example lands where the CLI puts it; one
 * already there for the same tests is used as it is (the user may have reviewed it), one made
 * for another objective or command is not overwritten.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EXAMPLE_CONFIG_FILE } from '../../shared/evaluation';
import type { InitFunction } from '../../shared/protocol';
import type { Engine } from '../engine/Engine';
import { loadExample } from '../evaluation/example';
import { exampleName } from '../evaluation/scaffold/scaffoldExample';
import { awaitResult } from '../evolution/controller/TaskClient';
import { engineTaskClient } from '../evolution/controller/taskClients';
import { evaluateTaskSpec, evaluationOf } from '../evolution/controller/taskSpecs';
import { EXAMPLES_DIR, InitError, initExample } from './initExample';
import { type EvaluateSeed, evaluateSeedListingTests, leftOutTestsText } from './listedTests';
import { sharesWorkspace } from './workspaceHome';

const inside = (dir: string, file: string): boolean => {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

/**
 * `evaluate`: the daemon's evaluation of an example's seed, when it can run one: a new speed
 * example's seed is checked as `peagen init` checks it, leaving out the tests that fail on it
 * only behind the process boundary (listedTests.ts), so that the run's seed evaluates.
 */
export async function initFunction(params: InitFunction.Params, evaluate?: (exampleDir: string) => EvaluateSeed): Promise<InitFunction.Response> {
  const cli = `peagen init ${path.basename(params.sourceFile)} --function ${params.functionName} --tests "${params.tests}"`;
  if (params.workspaceId !== undefined && !sharesWorkspace(params.projectDir, params.workspaceId)) {
    throw new InitError(
      `this daemon does not see the folder ${params.projectDir} (it runs elsewhere, e.g. peagen.daemon.address names another machine): run \`${cli}\` in ${params.testsDir} where the files are, then Evolve Selection with that example; or clear peagen.daemon.address to use a daemon of this window`,
    );
  }
  const testsDir = path.resolve(params.testsDir);
  const sourceFile = path.resolve(params.sourceFile);
  const workspace = path.resolve(params.projectDir);
  if (!(testsDir === workspace || inside(workspace, testsDir))) throw new InitError(`the tests' folder ${testsDir} is outside the workspace ${workspace}`);
  if (!inside(testsDir, sourceFile)) throw new InitError(`${sourceFile} is outside the tests' folder ${testsDir}: its tests must run from a folder that holds it`);

  const exampleDir = path.join(testsDir, EXAMPLES_DIR, exampleName(path.basename(sourceFile), params.functionName));
  const configFile = path.join(exampleDir, EXAMPLE_CONFIG_FILE);
  if (fs.existsSync(configFile)) {
    const reason = notReusable(configFile, params.tests);
    if (reason) throw new InitError(`${exampleDir} already holds an example of ${params.functionName} ${reason}: delete that folder to make one for the tests, or evolve it with Evolve Selection`);
    return { exampleDir, reused: true };
  }
  // For speed when the tests pass on the code as it is (the gain the README shows); for the
  // tests when some fail (init refuses the speed objective then: wrong answers cannot be sped up).
  const request = { file: sourceFile, functionName: params.functionName, projectDir: testsDir, tests: params.tests, outDir: exampleDir };
  try {
    const made = await initExample({ ...request, objective: 'speed' });
    const checked = evaluate ? await evaluateSeedListingTests(made.dir, params.functionName, evaluate(made.dir), `checking ${made.dir} on your code as it is`) : undefined;
    const leftOut = checked?.leftOut && leftOutTestsText(checked.leftOut, params.functionName, path.relative(testsDir, checked.leftOut.file));
    return { exampleDir: made.dir, reused: false, objective: 'speed', ...(leftOut && { leftOut }) };
  } catch (error) {
    if (!(error instanceof InitError) || !TESTS_FAIL.test(error.message)) throw error;
  }
  const made = await initExample({ ...request, objective: 'tests' });
  return { exampleDir: made.dir, reused: false, objective: 'tests' };
}

/** The seed of an example evaluated once (`--quick`) on the daemon's engine, as `peagen init` checks it. */
export function seedEvaluationOn(engine: Engine): (exampleDir: string) => EvaluateSeed {
  return (exampleDir) => async () => {
    const example = loadExample(exampleDir);
    const client = engineTaskClient(engine);
    const result = await awaitResult(client, await client.submit(evaluateTaskSpec(example, example.seedProgram(), 1, ['--quick'], 'init')));
    const evaluation = evaluationOf(result.data);
    if (!evaluation) throw new InitError(`the check of ${exampleDir} on your code as it is gave no verdict: ${result.error ? `${result.error.code}: ${result.error.message}` : result.status}`);
    return evaluation;
  };
}

/** init's refusal of tests that fail on the original (initExample.ts). */
const TESTS_FAIL = /on the original code, so they cannot tell a right candidate from a wrong one/;

/** Why an existing example is not one for `tests` (undefined: it is), for speed or for the tests. */
function notReusable(configFile: string, tests: string): string | undefined {
  let evaluator: unknown;
  try {
    evaluator = (JSON.parse(fs.readFileSync(configFile, 'utf8')) as { evaluator?: unknown }).evaluator;
  } catch (error) {
    return `that cannot be read (${(error as Error).message})`;
  }
  if (!Array.isArray(evaluator)) return 'whose evaluator cannot be read';
  const command = evaluator.includes('peagen_harness.project_tests') ? evaluator[evaluator.indexOf('--tests') + 1] : scaffoldedTests(path.dirname(configFile), evaluator);
  if (command !== tests) return `for another test command (${typeof command === 'string' ? command : 'none'})`;
  return undefined;
}

/** The test command a scaffolded speed evaluator runs (its TESTS setting), if it is one. */
function scaffoldedTests(dir: string, evaluator: unknown[]): string | undefined {
  const file = evaluator.find((arg): arg is string => typeof arg === 'string' && /^peagen_evaluate\.(py|js)$/.test(arg));
  if (!file) return undefined;
  try {
    const literal = /^(?:const )?TESTS = ("(?:[^"\\\n]|\\.)*")/m.exec(fs.readFileSync(path.join(dir, file), 'utf8'))?.[1];
    return literal ? (JSON.parse(literal) as string) : undefined;
  } catch {
    return undefined;
  }
}
