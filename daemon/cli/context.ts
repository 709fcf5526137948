/** What every command shares: global options, configuration, output and exit codes. */
import type { Command } from 'commander';
import { ConfigError, findConfigFile, loadConfig, type PeagenConfig, stateDir } from '../config';
import { DaemonClient, DaemonUnavailableError } from '../rpc/client';

/** Documented in README.md ("Exit codes"); scripts rely on them. */
export const ExitCode = {
  Ok: 0,
  /** The work ran and failed (a task error, a failed evaluation). */
  Failed: 1,
  /** Bad usage or configuration. */
  Usage: 2,
  /** No daemon is running, or it could not be reached. */
  NoDaemon: 3,
  /** The command exists in the design but not yet in this version. */
  NotImplemented: 4,
  Interrupted: 130,
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export interface GlobalOptions {
  json?: boolean;
  config?: string;
  verbose?: boolean;
}

export class CliContext {
  readonly json: boolean;
  readonly verbose: boolean;
  readonly configFile: string | undefined;
  readonly stateDir = stateDir();
  private loaded: PeagenConfig | undefined;

  constructor(options: GlobalOptions) {
    this.json = options.json ?? false;
    this.verbose = options.verbose ?? false;
    this.configFile = options.config ?? findConfigFile();
  }

  static of(command: Command): CliContext {
    return new CliContext(command.optsWithGlobals<GlobalOptions>());
  }

  get config(): PeagenConfig {
    try {
      this.loaded ??= loadConfig(this.configFile);
    } catch (error) {
      if (error instanceof ConfigError) throw new CliError(error.message, ExitCode.Usage);
      throw error;
    }
    return this.loaded;
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

  /** Runs `fn` with a connection to the running daemon, or fails with exit code 3. */
  async withDaemon<T>(fn: (client: DaemonClient) => Promise<T>): Promise<T> {
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
      return await fn(client);
    } finally {
      client.close();
    }
  }
}

export function parseCaps(value: string): string[] {
  return value
    .split(',')
    .map((cap) => cap.trim())
    .filter(Boolean);
}

export function parsePositiveInt(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) throw new CliError(`${name} must be a whole number (got "${value}")`, ExitCode.Usage);
    return parsed;
  };
}
