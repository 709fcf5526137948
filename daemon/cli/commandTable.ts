/**
 * The command groups of `peagen` and which of them a command line needs: main.ts registers
 * only those, so that a command loads its own code and nothing else's.
 */
import type { Command } from 'commander';

type Register = (program: Command) => void;

/**
 * The command groups, in the order `--help` lists them. Each one's module (and what it
 * imports) is loaded only when the command line names it, or when all of them are needed
 * (help, an unknown or missing command); `--version` loads none.
 */
export const COMMANDS: readonly (readonly [name: string, load: () => Promise<Register>])[] = [
  ['init', async () => (await import('./commands/init')).registerInitCommand],
  ['render', async () => (await import('./commands/render')).registerRenderCommand],
  ['mutate', async () => (await import('./commands/mutate')).registerMutateCommand],
  ['evolve', async () => (await import('./commands/evolve')).registerEvolveCommands],
  ['eval', async () => (await import('./commands/eval')).registerEvalCommand],
  ['sandbox', async () => (await import('./commands/sandbox')).registerSandboxCommands],
  ['worker', async () => (await import('./commands/worker')).registerWorkerCommands],
  ['queue', async () => (await import('./commands/queue')).registerQueueCommands],
  ['daemon', async () => (await import('./commands/daemon')).registerDaemonCommands],
  ['task', async () => (await import('./commands/task')).registerTaskCommands],
  ['metrics', async () => (await import('./commands/metrics')).registerMetricsCommand],
  ['plugins', async () => (await import('./commands/plugins')).registerPluginsCommand],
];

/** Global options that take a value: the word after them is not a command name. */
const OPTIONS_WITH_VALUE = new Set(['--config']);

/**
 * The command groups a command line needs: the one it names (`peagen evolve run`, `peagen
 * help evolve`), none for a bare `--version`, all of them otherwise (help, no command, an
 * unknown one, which commander answers with suggestions).
 */
export function commandsFor(argv: readonly string[]): readonly string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (OPTIONS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) words.push(arg);
  }
  const named = words[0] === 'help' ? words[1] : words[0];
  if (named !== undefined && COMMANDS.some(([name]) => name === named)) return [named];
  const flags = new Set(argv);
  if (named === undefined && (flags.has('--version') || flags.has('-V')) && !flags.has('--help') && !flags.has('-h')) return [];
  return COMMANDS.map(([name]) => name);
}
