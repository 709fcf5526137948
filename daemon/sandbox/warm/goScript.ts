/**
 * The go signal of a prepared sandbox: one line of POSIX shell that the waiting stub inside
 * reads and evaluates. It changes to the request's working directory and replaces itself by
 * `env -i` with exactly the request's environment, which then executes the command — so the
 * command starts with the same environment, argv and cwd as in a cold run.
 *
 * Newlines inside arguments are written as `"$nl"`: the stub defines `nl` and reads a single
 * line. Every stub starts with {@link STUB_PRELUDE}.
 */

/** Defines `nl` for the go line (see quote). */
export const STUB_PRELUDE = "nl='\n'";

export interface GoRequest {
  command: readonly string[];
  env: Record<string, string>;
  cwd: string;
}

/** `cd` exits 1 when the directory is missing, like bwrap's --chdir; env exits 127/126 like a shell when the command is. */
export function goScript(request: GoRequest): string {
  for (const key of Object.keys(request.env)) {
    if (!key || key.includes('=') || key.includes('\0')) throw new Error(`invalid environment variable name "${key}"`);
  }
  const pairs = Object.entries(request.env).map(([key, value]) => quote(`${key}=${value}`));
  return `cd -- ${quote(request.cwd)} || exit 1; exec /usr/bin/env -i -- ${[...pairs, ...request.command.map(quote)].join(' ')}\n`;
}

function quote(value: string): string {
  if (value.includes('\0')) throw new Error('an argument or environment value contains a NUL byte');
  return `'${value.replaceAll("'", `'\\''`).replaceAll('\n', `'"$nl"'`)}'`;
}
