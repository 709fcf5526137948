/**
 * Exit codes, the CLI's error and the global options: what the entry (main.ts) needs before
 * it knows which command runs, apart from context.ts, which loads the engine's modules.
 */

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

/** The `error.code` of a --json error document; each maps to one exit code. */
export type ErrorCode = 'usage' | 'config' | 'no_daemon' | 'failed' | 'not_implemented' | 'interrupted' | 'daemon_error' | 'internal';

const CODE_OF_EXIT: Record<number, ErrorCode> = {
  [ExitCode.Failed]: 'failed',
  [ExitCode.Usage]: 'usage',
  [ExitCode.NoDaemon]: 'no_daemon',
  [ExitCode.NotImplemented]: 'not_implemented',
  [ExitCode.Interrupted]: 'interrupted',
};

export class CliError extends Error {
  readonly code: ErrorCode;

  constructor(
    message: string,
    readonly exitCode: number,
    code?: ErrorCode,
  ) {
    super(message);
    this.code = code ?? CODE_OF_EXIT[exitCode] ?? 'failed';
  }
}

export interface GlobalOptions {
  json?: boolean;
  config?: string;
  verbose?: boolean;
}
