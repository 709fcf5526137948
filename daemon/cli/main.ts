/** Entry of dist/cli.js: the `peagen` command tree of the brief. */
import { Command, CommanderError, Option } from 'commander';
import { ResponseError } from 'vscode-languageserver-protocol/node';
import { DaemonUnavailableError } from '../rpc/client';
import { isOneShotChild, startOneShotChild } from '../fabric/worker/oneShotEntry';
import { VERSION } from '../version';
import { registerDaemonCommands } from './commands/daemon';
import { registerEvalCommand } from './commands/eval';
import { notImplemented } from './commands/notYet';
import { registerQueueCommands } from './commands/queue';
import { registerSandboxCommands } from './commands/sandbox';
import { registerTaskCommands } from './commands/task';
import { registerWorkerCommands } from './commands/worker';
import { CliError, ExitCode } from './context';

export function buildProgram(): Command {
  const program = new Command('peagen')
    .version(VERSION)
    .description('Evolve code with LLM patches, evaluated in single-use sandboxes.')
    .option('--json', 'print machine-readable JSON on stdout')
    .option('--config <file>', 'configuration file (default: peagen.json in this or a parent directory)')
    .option('-v, --verbose', 'more detail on stderr')
    .showHelpAfterError()
    // Set before the subcommands exist so that they inherit it: usage errors exit 2, not 1.
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) })
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 the work failed, 2 bad usage or configuration, 3 no daemon reachable, 4 not implemented yet, 130 interrupted.',
    );

  program
    .command('render')
    .description('expand project templates deterministically')
    .option('--project <file>', 'project file')
    .option('--out <dir>', 'output directory')
    .action(() => notImplemented('render'));

  program
    .command('mutate')
    .description('one LLM patch round on a file, without evaluation')
    .option('--target-file <file>', 'file to mutate')
    .option('--entry-fn <name>', 'function to focus on')
    .option('--output <file>', 'where to write the patched file')
    .option('--backend <name>', 'LLM backend')
    .addOption(new Option('--queue', 'run through the configured queue').conflicts('sync'))
    .option('--sync', 'run in this process')
    .action(() => notImplemented('mutate'));

  const evolve = program.command('evolve').description('evolutionary search with evaluation');
  evolve
    .command('step')
    .description('one generation: select, mutate, evaluate')
    .option('--target-file <file>', 'file to evolve')
    .option('--entry-fn <name>', 'function to evolve')
    .option('--selector <name>', 'parent selector')
    .option('--mutator <name>', 'mutator')
    .action(() => notImplemented('evolve step'));
  evolve
    .command('run')
    .description('generations until a stop condition')
    .option('--generations <n>', 'number of generations')
    .option('--target-ms <ms>', 'stop when the best is this fast')
    .option('--checkpoint <file>', 'checkpoint file', '.peagen/evo_checkpoint')
    .option('--resume', 'continue from the checkpoint')
    .option('--dashboard', 'show live progress')
    .action(() => notImplemented('evolve run'));

  registerEvalCommand(program);
  registerSandboxCommands(program);
  registerWorkerCommands(program);
  registerQueueCommands(program);
  registerDaemonCommands(program);
  registerTaskCommands(program);
  return program;
}

async function main(): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with code 0.
      process.exitCode = error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    } else if (error instanceof CliError) {
      process.stderr.write(`peagen: ${error.message}\n`);
      process.exitCode = error.exitCode;
    } else if (error instanceof DaemonUnavailableError) {
      process.stderr.write(`peagen: ${error.message}\n`);
      process.exitCode = ExitCode.NoDaemon;
    } else if (error instanceof ResponseError) {
      process.stderr.write(`peagen: the daemon answered: ${error.message}\n`);
      process.exitCode = ExitCode.Failed;
    } else {
      process.stderr.write(`peagen: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = ExitCode.Failed;
    }
  }
}

if (isOneShotChild()) startOneShotChild();
// Exit once the command is done, even if a library left a handle open: a CLI that hangs
// after printing its answer breaks every script that calls it. Exit after stdout has
// flushed, so nothing printed is lost where pipes are asynchronous (macOS).
else void main().then(() => process.stdout.write('', () => process.exit()));
