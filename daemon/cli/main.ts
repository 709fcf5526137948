/** Entry of dist/cli.js: the `peagen` command tree of the brief. */
import { Command, CommanderError } from 'commander';
import { isOneShotChild } from '../fabric/worker/oneShotEnv';
import { VERSION } from '../version';
import { COMMANDS, commandsFor } from './commandTable';
import { CliError, type ErrorCode, ExitCode, type GlobalOptions } from './errors';

/**
 * `silenceErrors`: when it says so (--json), commander's error text and help dump are not
 * written to stderr; the JSON error document on stdout carries the error instead.
 */
export async function buildProgram({
  silenceErrors = () => false,
  commands = COMMANDS.map(([name]) => name),
}: { silenceErrors?: () => boolean; commands?: readonly string[] } = {}): Promise<Command> {
  const program = new Command('peagen')
    .version(VERSION)
    .description('Evolve code with LLM patches, evaluated in single-use sandboxes.')
    .option('--json', 'print machine-readable JSON on stdout')
    .option('--config <file>', 'configuration file (default: peagen.json in this or a parent directory)')
    .option('-v, --verbose', 'more detail on stderr')
    // Set before the subcommands exist so that they inherit it: usage errors exit 2, not 1.
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => (silenceErrors() ? undefined : write(text)),
      writeErr: (text) => (silenceErrors() ? undefined : process.stderr.write(text)),
    })
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 the work failed, 2 bad usage or configuration, 3 no daemon reachable, 4 not implemented yet, 130 interrupted.',
    );

  const wanted = COMMANDS.filter(([name]) => commands.includes(name));
  for (const register of await Promise.all(wanted.map(([, load]) => load()))) register(program);
  pointToHelpAfterErrors(program);
  return program;
}

/**
 * A usage error ends with one line naming the help of the command at fault, not with the whole
 * help screen: after a typo, commander's "(Did you mean evolve?)" is the line that matters and
 * must not scroll away under forty lines of help.
 */
function pointToHelpAfterErrors(command: Command, names: readonly string[] = []): void {
  const path = [...names, command.name()];
  command.showHelpAfterError(`(see \`${path.join(' ')} --help\`)`);
  for (const sub of command.commands) pointToHelpAfterErrors(sub, path);
}

/** What went wrong, as both the --json error document and the human line carry it. */
interface ErrorReport {
  code: ErrorCode;
  message: string;
  exitCode: number;
  /** Extra detail for the human reader only (a stack trace). */
  detail?: string;
}

async function reportOf(error: unknown): Promise<ErrorReport> {
  if (error instanceof CliError) return { code: error.code, message: error.message, exitCode: error.exitCode };
  const { ConfigError, DamagedRunError, DaemonUnavailableError, QueueKeyError, RedisConnectError, ResponseError } = await import('./errorClasses');
  if (error instanceof ConfigError) return { code: 'config', message: error.message, exitCode: ExitCode.Usage };
  // A run's file that is not what Peagen wrote: the message names it and what to do; no stack trace.
  if (error instanceof DamagedRunError) return { code: 'failed', message: error.message, exitCode: ExitCode.Failed };
  // The queue's server is down or refused us: the message says what to do; no stack trace.
  if (error instanceof RedisConnectError) return { code: 'failed', message: error.message, exitCode: ExitCode.Failed };
  // A queue key something else wrote: the message names it and the command that deletes it.
  if (error instanceof QueueKeyError) return { code: 'failed', message: error.message, exitCode: ExitCode.Failed };
  if (error instanceof DaemonUnavailableError) return { code: 'no_daemon', message: error.message, exitCode: ExitCode.NoDaemon };
  if (error instanceof ResponseError) return { code: 'daemon_error', message: `the daemon answered: ${error.message}`, exitCode: ExitCode.Failed };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message: `unexpected error: ${message}`, exitCode: ExitCode.Failed, ...(error instanceof Error && error.stack && { detail: `unexpected error: ${error.stack}` }) };
}

/** Commander's own errors (unknown option, missing argument, no command) are usage errors. */
function usageReport(error: CommanderError): ErrorReport {
  const message = error.code === 'commander.help' ? 'no command given; see `peagen --help`' : error.message.replace(/^error: /, '');
  return { code: 'usage', message, exitCode: ExitCode.Usage };
}

/**
 * --json anywhere before `--`: read from argv as well as from the parsed options, because a
 * usage error can stop commander before it has parsed --json.
 */
function wantsJson(program: Command, argv: readonly string[]): boolean {
  if (program.opts<GlobalOptions>().json) return true;
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const program: Command = await buildProgram({ silenceErrors: () => wantsJson(program, argv), commands: commandsFor(argv) });
  let report: ErrorReport;
  try {
    await program.parseAsync(process.argv);
    return;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0: nothing went wrong.
      if (error.exitCode === 0) return;
      report = usageReport(error);
      // Commander has already printed its message (and the help) on stderr.
      if (!wantsJson(program, argv)) {
        process.exitCode = report.exitCode;
        return;
      }
    } else {
      report = interruptedOutside ? { code: 'interrupted', message: 'interrupted', exitCode: ExitCode.Interrupted } : await reportOf(error);
    }
  }
  process.exitCode = report.exitCode;
  if (wantsJson(program, argv)) {
    process.stdout.write(`${JSON.stringify({ error: { code: report.code, message: report.message, exitCode: report.exitCode } }, null, 2)}\n`);
  } else {
    process.stderr.write(`peagen: ${report.detail ?? report.message}\n`);
  }
}

/**
 * Ctrl-C where no command handles it (e.g. while an executor is probed): Node's default would
 * end the process at once, leaving its sandboxes behind. A command that watches for Ctrl-C
 * (watchInterrupt) adds its own listener and this one steps aside.
 */
function interruptedOutsideCommand(): void {
  if (process.listenerCount('SIGINT') > 1) return;
  interruptedOutside = true;
  void import('../sandbox/liveSandboxes')
    .then(({ reclaimOwnSandboxes }) => reclaimOwnSandboxes())
    .finally(() => process.exit(ExitCode.Interrupted));
}

/**
 * Set once Ctrl-C arrived outside a command: whatever fails after it (e.g. an executor probe
 * whose sandbox the interrupt just reclaimed) failed because of it, and the exit is 130.
 */
let interruptedOutside = false;

if (isOneShotChild()) void import('../oneShotChild').then(({ startOneShotChild }) => startOneShotChild());
else {
  process.on('SIGINT', interruptedOutsideCommand);
  // Exit once the command is done, even if a library left a handle open: a CLI that hangs
  // after printing its answer breaks every script that calls it. Exit after stdout has
  // flushed, so nothing printed is lost where pipes are asynchronous (macOS).
  void main().then(() => process.stdout.write('', () => process.exit()));
}
