/**
 * `peagen init FILE --function NAME [--tests CMD] [--objective speed|score|tests] [--out DIR]`:
 * an example for a function of your code, with an evaluator built on the harness
 * (daemon/usecases/initExample.ts); prints the one command that evolves it.
 */
import * as path from 'node:path';
import { type Command, Option } from 'commander';
import type { InitObjective } from '../../evaluation/scaffold/scaffoldExample';
import { InitError, type InitResult, initExample } from '../../usecases/initExample';
import { CliContext, CliError, ExitCode } from '../context';

interface InitFlags {
  function: string;
  tests?: string;
  objective: InitObjective;
  out?: string;
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
      const inputs = made.inputs.from === 'tests' ? `the ${made.inputs.calls} distinct call(s) your tests made, then inputs drawn like them` : `drawn from its signature (${made.inputs.why})`;
      ctx.output({ ...made, command: evolve }, () =>
        [
          `made ${where}/ for ${flags.function}() (lines ${made.region.startLine + 1}-${made.region.endLine} of ${path.basename(file)}): ${made.files.join(', ')}`,
          `objective: ${OBJECTIVE_HELP[made.objective]}`,
          ...(made.objective === 'tests' ? [] : [`inputs: ${inputs}`]),
          `review its evaluator (the inputs it uses, what the candidate may import), then evolve it with:`,
          `  ${evolve}`,
        ].join('\n'),
      );
    });
}
