/** What every command shares: global options, configuration, output and exit codes. */
import type { Command } from 'commander';
import { ConfigError, findConfigFile, type LoadedConfig, loadConfigWithSources, type PeagenConfig } from '../config';
import { stateDir } from '../../shared/discovery';
import { Status } from '../../shared/protocol';
import { assembleEngine } from '../composition';
import { QueueAddressError } from '../fabric/queue/createQueue';
import type { Engine, EngineOptions } from '../engine/Engine';
import { DaemonClient, DaemonUnavailableError } from '../rpc/client';
import { CliError, ExitCode, type GlobalOptions } from './errors';
import { describeIgnoredSettings, findIgnoredSettings } from './ignoredSettings';

export { CliError, type ErrorCode, ExitCode, type GlobalOptions } from './errors';

export class CliContext {
  readonly json: boolean;
  readonly verbose: boolean;
  readonly configFile: string | undefined;
  readonly stateDir = stateDir();
  private loaded: LoadedConfig | undefined;

  constructor(options: GlobalOptions) {
    this.json = options.json ?? false;
    this.verbose = options.verbose ?? false;
    this.configFile = options.config ?? findConfigFile();
  }

  static of(command: Command): CliContext {
    return new CliContext(command.optsWithGlobals<GlobalOptions>());
  }

  get config(): PeagenConfig {
    return this.loadedConfig().config;
  }

  /** The configuration with where each explicitly given setting came from. */
  loadedConfig(): LoadedConfig {
    try {
      this.loaded ??= loadConfigWithSources(this.configFile);
    } catch (error) {
      if (error instanceof ConfigError) throw new CliError(error.message, ExitCode.Usage, 'config');
      throw error;
    }
    return this.loaded;
  }

  /**
   * A configuration error found after loading, prefixed with where the setting at fault came
   * from (`PEAGEN_EXECUTOR="x": ...`, `peagen.json sandbox.executor: ...`), as load-time errors are.
   */
  naming(error: Error): string {
    const setting = error instanceof ConfigError ? error.setting : undefined;
    const source = setting ? this.loaded?.sources[setting] : undefined;
    if (!setting || !source) return error.message;
    const variable = /^[A-Z][A-Z0-9_]*$/.test(source) ? source : undefined;
    return variable ? `${variable}=${JSON.stringify(process.env[variable] ?? '')}: ${error.message}` : `${source}: ${error.message}`;
  }

  /** Prints `data` as one JSON document with --json, else the human text. */
  output(data: unknown, human: string | (() => string)): void {
    process.stdout.write(this.json ? `${JSON.stringify(data, null, 2)}\n` : `${typeof human === 'string' ? human : human()}\n`);
  }

  /** Progress and diagnostics go to stderr, so --json output stays parseable. */
  info(line: string): void {
    process.stderr.write(`${line}\n`);
  }

  debug(line: string): void {
    if (this.verbose) process.stderr.write(`${line}\n`);
  }

  /**
   * Runs `fn` with a connection to the running daemon, or fails with exit code 3. With
   * `settings`, first warns (one line on stderr) about the caller's settings that the daemon
   * ignores; `settings.alternative` says how else to apply them (e.g. "add --sync").
   */
  async withDaemon<T>(fn: (client: DaemonClient) => Promise<T>, options: { settings?: { alternative?: string } } = {}): Promise<T> {
    // A broken peagen.json or environment is reported before anything is sent anywhere.
    const loaded = options.settings ? this.loadedConfig() : undefined;
    let client: DaemonClient | undefined;
    try {
      client = await DaemonClient.connectToRunning(this.stateDir);
    } catch (error) {
      if (error instanceof DaemonUnavailableError) throw new CliError(error.message, ExitCode.NoDaemon);
      throw error;
    }
    if (!client) {
      throw new CliError(`no daemon is running (state directory ${this.stateDir}); start one with \`peagen daemon start\``, ExitCode.NoDaemon);
    }
    try {
      if (loaded) {
        const ignored = findIgnoredSettings(loaded, await client.request(Status.type));
        if (ignored.length > 0) this.info(describeIgnoredSettings(ignored, client.handshake.pid, options.settings?.alternative));
      }
      return await fn(client);
    } finally {
      client.close();
    }
  }
}

/**
 * The embedded engine of --sync / daemon-less commands. A queue address this version cannot
 * serve is bad configuration (exit 2); an executor that cannot run here is a failure (exit 1).
 */
export async function createEngine(ctx: CliContext, config: PeagenConfig, options: Omit<EngineOptions, 'executor' | 'log'> = {}): Promise<Engine> {
  try {
    // Its pool leaves with the command: a run elsewhere must not leave its tasks to it.
    return await assembleEngine(config, { ...options, passing: true, log: (line) => ctx.info(line) });
  } catch (error) {
    if (error instanceof ConfigError || error instanceof QueueAddressError) throw new CliError(ctx.naming(error), ExitCode.Usage, 'config');
    throw new CliError(error instanceof Error ? error.message : String(error), ExitCode.Failed);
  }
}

export interface InterruptWatch {
  /**
   * Resolves with `work` unless Ctrl-C came (or comes) first; then runs `onInterrupt`
   * (cancel, clean up) and fails with exit code 130 and the message it returns. Once
   * interrupted, the outcome of `work` no longer counts: the user asked to stop.
   */
  wait<T>(work: Promise<T>, onInterrupt: () => Promise<string>): Promise<T>;
  /** Gives Ctrl-C back to its default (end the process). */
  dispose(): void;
}

/**
 * Watches for Ctrl-C from now on. Start watching before the work starts (and before telling
 * the user that Ctrl-C stops it), so that no interrupt falls between the two and kills the
 * process with the work left behind.
 */
export function watchInterrupt(): InterruptWatch {
  let onSigint: (() => void) | undefined;
  const interrupted = new Promise<'interrupted'>((resolve) => {
    onSigint = () => resolve('interrupted');
    process.once('SIGINT', onSigint);
  });
  return {
    async wait<T>(work: Promise<T>, onInterrupt: () => Promise<string>): Promise<T> {
      work.catch(() => {});
      const first = await Promise.race([work.then((value) => ({ value })), interrupted]);
      if (first !== 'interrupted') return first.value;
      throw new CliError(await onInterrupt(), ExitCode.Interrupted);
    },
    dispose(): void {
      if (onSigint) process.removeListener('SIGINT', onSigint);
    },
  };
}

export function parseCaps(value: string): string[] {
  return value
    .split(',')
    .map((cap) => cap.trim())
    .filter(Boolean);
}

/**
 * A whole-number option of `min` or more (`--seed`, `--wait`; 1 for counts that cannot be
 * zero). Anything else is refused with what is wrong with it and what is accepted:
 * `--evaluations takes a whole number of 1 or more; "-3" is negative`.
 */
export function parsePositiveInt(name: string, min = 0) {
  return (value: string): number => {
    const text = value.trim();
    const parsed = Number(text);
    const problem = !/^[+-]?\d+(\.\d*)?$/.test(text)
      ? 'not a number written in digits'
      : !Number.isInteger(parsed)
        ? 'not a whole number'
        : parsed < 0
          ? 'negative'
          : parsed < min
            ? `less than ${min}`
            : !Number.isSafeInteger(parsed)
              ? 'too large'
              : undefined;
    if (problem) throw new CliError(`${name} takes a whole number of ${min} or more; "${value}" is ${problem}`, ExitCode.Usage);
    return parsed;
  };
}
