/**
 * The checks of a project's test command that read files' text instead of running them.
 * `npm test` is often `xo && ava && tsd`, `npm run lint && mocha` or `c8 --100 node test.js`:
 * a linter reads every file's text, and a coverage gate counts the lines the tests ran. During
 * an evaluation the evolved file is Peagen's stand-in and its functions run in the candidate's
 * process (docs/trust.md), so no project's style accepts that file and no line of it is
 * covered: the tests would fail on the user's own code. init runs the rest of the command
 * instead and says so; the linter stays the user's to run on what they apply.
 *
 * Only `&&` chains are taken apart, a script is opened (`npm run lint`) only when it holds
 * something to leave out, and a command that would be left empty is kept whole. A package
 * manager fetched by npx (`npx -y pnpm@10 test`, where the machine has none) cannot be fetched
 * in the sandbox: its scripts are opened all the way down and run without it.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Commands that lint, check formatting or count type coverage: they read text, never run it. */
const LINTERS = new Set([
  'xo', 'eslint', 'standard', 'semistandard', 'ts-standard', 'prettier', 'biome', 'oxlint', 'jshint', 'jscs', 'tslint',
  'remark', 'markdownlint', 'stylelint', 'type-coverage', 'dependency-check',
]);
/** Script names that, by the convention npm projects follow, lint or format. */
const LINT_SCRIPT = /^(?:lint|format|fmt|style|prettier|eslint|xo)(?::.*)?$/;
/** Coverage tools that run the command after their options (`c8 --100 npm run test-api`). */
const COVERAGE_WRAPPERS = new Set(['c8', 'nyc']);
/** Their options that take the next word as a value. */
const COVERAGE_VALUE_FLAGS = new Set([
  '-r', '--reporter', '-o', '--report-dir', '-x', '--exclude', '-n', '--include', '-e', '--extension', '--temp-directory', '-t', '--temp-dir',
  '--src', '--lines', '--functions', '--branches', '--statements', '-c', '--config', '-i', '--require', '--cwd', '--exclude-after-remap',
]);
const SCRIPT_RUN = /^(?:npm\s+(?:run(?:-script)?\s+)?|pnpm\s+(?:run\s+)?|yarn\s+(?:run\s+)?)([\w:.-]+)\s*$/;
/** npm's own commands, which `npm X` runs instead of a script X. */
const NPM_COMMANDS = new Set(['install', 'i', 'ci', 'exec', 'audit', 'publish', 'pack', 'link', 'ls', 'view', 'version', 'init', 'config', 'cache', 'update', 'outdated']);
const MAX_DEPTH = 4;

export interface TestCommandPlan {
  /** What the evaluation runs. */
  command: string;
  /** What was left out (linters, coverage gates), as the scripts wrote it; empty when nothing was. */
  leftOut: string[];
}

/**
 * The command the evaluation runs for `command` (the user's `--tests`) in `projectDir`: the
 * same chain without its linters and coverage gates, with the project's node_modules/.bin on
 * PATH as npm puts it for a script. Unchanged when there is nothing to leave out.
 */
export function withoutTextChecks(command: string, projectDir: string): TestCommandPlan {
  const scripts = readScripts(projectDir);
  const planned = plan(command.trim(), scripts, 0);
  if (planned.leftOut.length === 0 || planned.runs.length === 0) return { command, leftOut: [] };
  // A package manager's script run left to the end (an install, a depth too deep) would fetch it again.
  if (planned.runs.some((run) => packageManagerViaNpx(run) !== undefined)) return { command, leftOut: [] };
  const bin = fs.existsSync(path.join(projectDir, 'node_modules', '.bin')) ? ['export PATH="$PWD/node_modules/.bin:$PATH"'] : [];
  return { command: [...bin, ...planned.runs].join(' && '), leftOut: planned.leftOut };
}

interface Planned {
  runs: string[];
  leftOut: string[];
}

/**
 * `npx -y pnpm@10.14.0 test`: a package manager that npx fetches (the machine has none), which
 * the sandbox, with no network, cannot fetch. Returns the command as the package manager's own
 * (`pnpm test`) and the part left out, or undefined for any other command.
 */
function packageManagerViaNpx(part: string): { command: string; leftOut: string } | undefined {
  const match = /^npx((?:\s+(?:-y|--yes|--no-install|--prefer-offline|--quiet|-q))*)\s+(npm|pnpm|yarn)(@[\w.^~<>=*-]+)?(\s.*)?$/.exec(part);
  if (!match) return undefined;
  return { command: `${match[2]}${match[4] ?? ''}`.trim(), leftOut: `npx${match[1]} ${match[2]}${match[3] ?? ''}` };
}

function plan(command: string, scripts: Record<string, string>, depth: number, openAll = false): Planned {
  const chain = parts(command);
  if (chain.length > 1) return merge(chain.map((part) => plan(part, scripts, depth, openAll)));
  const fetched = packageManagerViaNpx(chain[0] ?? '');
  if (fetched && scriptOf(fetched.command) !== undefined && scripts[scriptOf(fetched.command)!] !== undefined) {
    // Every script it would run is opened, down to commands that need no package manager.
    const opened = plan(fetched.command, scripts, depth, true);
    return { runs: opened.runs, leftOut: [fetched.leftOut, ...opened.leftOut] };
  }
  const part = chain[0] ?? '';
  const words = part.split(/\s+/).filter(Boolean);
  const commandAt = words.findIndex((word) => !/^\w+=/.test(word));
  const first = words[commandAt] === 'npx' ? words.slice(commandAt + 1).find((word) => !word.startsWith('-')) : words[commandAt];
  if (first !== undefined && LINTERS.has(path.basename(first))) return { runs: [], leftOut: [part] };
  if (first !== undefined && COVERAGE_WRAPPERS.has(path.basename(first)) && words[commandAt] !== 'npx') {
    const inner = afterOptions(words.slice(commandAt + 1));
    if (inner.length > 0) {
      const rest = plan([...words.slice(0, commandAt), ...inner].join(' '), scripts, depth);
      return { runs: rest.runs, leftOut: [words.slice(commandAt, words.length - inner.length).join(' '), ...rest.leftOut] };
    }
  }
  const script = scriptOf(part);
  if (script === undefined || depth >= MAX_DEPTH || scripts[script] === undefined) return { runs: [part], leftOut: [] };
  if (LINT_SCRIPT.test(script)) return { runs: [], leftOut: [part] };
  // npm runs preX, X, postX for `npm run X` (and for `npm test`).
  const opened = merge([scripts[`pre${script}`], scripts[script], scripts[`post${script}`]].filter((s): s is string => s !== undefined).map((s) => plan(s, scripts, depth + 1, openAll)));
  return opened.leftOut.length > 0 || openAll ? opened : { runs: [part], leftOut: [] };
}

function merge(planned: Planned[]): Planned {
  return { runs: planned.flatMap((p) => p.runs), leftOut: planned.flatMap((p) => p.leftOut) };
}

/** The script `npm run X` / `npm test` / `pnpm X` / `yarn X` runs, if the part is one. */
function scriptOf(part: string): string | undefined {
  const test = /^(?:npm|pnpm|yarn)\s+(?:run\s+)?(?:test|t|tst)\s*$/.exec(part);
  if (test) return 'test';
  const script = SCRIPT_RUN.exec(part)?.[1];
  return script !== undefined && !NPM_COMMANDS.has(script) ? script : undefined;
}

/** The words after a coverage tool's own options: the command it runs. */
function afterOptions(words: string[]): string[] {
  let at = 0;
  while (at < words.length && words[at]!.startsWith('-')) {
    at += !words[at]!.includes('=') && COVERAGE_VALUE_FLAGS.has(words[at]!) ? 2 : 1;
  }
  if (words[at] === '--') at++;
  return words.slice(at);
}

/**
 * The `&&` parts of a command line, or the whole line when it has other operators (`;`, `||`,
 * subshells, redirections). A pipe binds tighter than `&&` (`jshint a.js && node test.js |
 * faucet` runs the pipe as its last part), so it stays inside its part.
 */
function parts(command: string): string[] {
  if (/[;()`<>]|\|\||\$\(|(?<!&)&(?!&)/.test(command)) return [command.trim()];
  return command.split('&&').map((part) => part.trim()).filter(Boolean);
}

function readScripts(projectDir: string): Record<string, string> {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(projectDir, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> };
    return Object.fromEntries(Object.entries(manifest.scripts ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}
