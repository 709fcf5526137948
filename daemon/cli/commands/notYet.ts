import { CliError, ExitCode } from '../context';

/** The design's commands that this version does not run yet: a clear answer, never a silent no-op. */
export function notImplemented(command: string): never {
  throw new CliError(
    `\`peagen ${command}\` is not implemented in this version yet; see README.md for what runs today`,
    ExitCode.NotImplemented,
  );
}
