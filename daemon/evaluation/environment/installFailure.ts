/**
 * What went wrong in a failed pip or npm install, in one line: the package at fault when the
 * installer's output names it, and the installer's own error line. Their full output can be
 * pages of retries and stack traces; the user needs the one line that says what to fix.
 */
import type { EnvironmentKind } from './environmentSpec';

export interface InstallFailure {
  /** The package pip or npm could not find or install, when its output says which. */
  packageName?: string;
  /** The installer's most telling error line. */
  reason: string;
}

/** Patterns that name the package at fault, most specific first; group 1 is the package. */
const PIP_PACKAGE_PATTERNS: readonly RegExp[] = [
  /No matching distribution found for ([^\s;]+)/,
  /Could not find a version that satisfies the requirement ([^\s;]+)/,
  /Invalid requirement: '([^']+)'/,
  /Failed to build ([^\s]+)/,
  /Requirement '([^']+)' looks like a filename, but the file does not exist/,
];

const NPM_PACKAGE_PATTERNS: readonly RegExp[] = [
  /'([^'\s]+?)@[^'\s]*' is not in this registry/,
  /404 Not Found - GET \S+?\/((?:@[^/\s]+(?:\/|%2f))?[^/\s]+) /i,
  /No matching version found for (\S+?)\.?$/m,
  /request to \S+?\/((?:@[^/\s]+(?:\/|%2f))?[^/\s]+) failed/i,
  /Could not read package\.json: Error: ENOENT: no such file or directory, open '([^']+)\/package\.json'/,
];

export function describeInstallFailure(kind: EnvironmentKind, output: string): InstallFailure {
  const lines = output.split(/\r?\n/).map((line) => line.trim());
  const patterns = kind === 'python' ? PIP_PACKAGE_PATTERNS : NPM_PACKAGE_PATTERNS;
  let packageName: string | undefined;
  for (const pattern of patterns) {
    const match = pattern.exec(output);
    if (match?.[1]) {
      packageName = decodeURIComponent(match[1]);
      break;
    }
  }
  return { ...(packageName !== undefined && { packageName }), reason: errorLine(kind, lines) };
}

function errorLine(kind: EnvironmentKind, lines: string[]): string {
  if (kind === 'python') {
    // pip's last ERROR line is its conclusion ("No matching distribution found for x").
    const errors = lines.filter((line) => line.startsWith('ERROR:'));
    return errors.at(-1) ?? lastMeaningful(lines);
  }
  // npm prefixes every line of its report ("npm error" since npm 10, "npm ERR!" before); the
  // first one after the code/syscall/errno header is the message.
  const report = lines
    .filter((line) => /^npm (error|ERR!)/.test(line))
    .map((line) => line.replace(/^npm (error|ERR!)\s*/, ''))
    .filter((line) => line !== '' && !/^(code|syscall|errno|path) /.test(line) && !/^A complete log/.test(line));
  return report[0] ?? lastMeaningful(lines);
}

function lastMeaningful(lines: string[]): string {
  return lines.filter((line) => line !== '').at(-1) ?? 'no output';
}
