/**
 * `peagen init FILE --function NAME [--out DIR]`: an example for a function of your code, with
 * an evaluator built on the harness (daemon/usecases/initExample.ts); prints the command that
 * evolves it.
 */
import * as path from 'node:path';
import type { Command } from 'commander';
import { InitError, initExample } from '../../usecases/initExample';
import { CliContext, CliError, ExitCode } from '../context';

interface InitFlags {
  function: string;
  out?: string;
}

export function registerInitCommand(program: Command): void {
  program
    .command('init <file>')
    .description('make an example for a function of your code (EVOLVE-BLOCK markers, an evaluator built on the harness, peagen.example.json) and print the command that evolves it')
    .requiredOption('--function <name>', 'the function to evolve (a top-level def / function / const arrow function of the file)')
    .option('--out <dir>', 'where the example goes (default .peagen/examples/<file>-<function>/)')
    .action((file: string, flags: InitFlags, command: Command) => {
      const ctx = CliContext.of(command);
      let made;
      try {
        made = initExample({ file, functionName: flags.function, projectDir: process.cwd(), ...(flags.out && { outDir: flags.out }) });
      } catch (error) {
        if (error instanceof InitError) throw new CliError(error.message, ExitCode.Usage);
        throw error;
      }
      const where = path.relative(process.cwd(), made.dir) || '.';
      const evolve = `peagen evolve run ${where}`;
      ctx.output({ ...made, command: evolve }, () =>
        [
          `made ${where}/ for ${flags.function}() (lines ${made.region.startLine + 1}-${made.region.endLine} of ${path.basename(file)}): ${made.files.join(', ')}`,
          `review its evaluator (the inputs it times, what it may import), then evolve it with:`,
          `  ${evolve}`,
        ].join('\n'),
      );
    });
}
