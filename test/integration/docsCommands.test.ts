/**
 * Every `peagen` command that README.md and docs/*.md tell a reader to type works as written.
 *
 * The commands come from the pages' fenced shell blocks (test/fixtures/docCommands.ts). Each
 * is first checked against the real CLI's help: its command exists, and every option it uses
 * is one that command (or `peagen` itself) takes. Then, by what the command needs:
 *
 * - a command a fresh folder can run (help, init, evolve, eval, render, ...) is RUN, in page
 *   order, in a fresh folder per page: a git repository holding a copy of the bundled
 *   examples and the small Python project of test/fixtures/initProjects/python (the
 *   `stats.py` the pages use), with its own PEAGEN_HOME (no daemon), no model in its
 *   environment and the process executor (the fastest; isolation is the other suites' job).
 *   It must exit 0. An evolve run gets a tiny budget in place of the page's stop condition.
 * - a command that needs what a fresh folder lacks (a daemon, Redis, a Docker engine, a
 *   model server or key its block exports, a plugin) is checked against the help only, and
 *   its title says why.
 *
 * Which commands need what is the table below, keyed by command, never by a line of a page:
 * a command of the CLI missing from it fails, as does a doc command the CLI does not have.
 * And docs/cli.md must name every command and every option that `--help` lists.
 */
import * as assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { docCommands, optionsIn, synopses, type DocCommand } from '../fixtures/docCommands';
import { EvolveProject } from '../fixtures/evolveFixtures';
import { CLI, REPO } from '../fixtures/paths';

const execFileAsync = promisify(execFile);

type Need = { run: true } | { run: false; why: string };
const RUNS: Need = { run: true };
const needs = (why: string): Need => ({ run: false, why });

/** What each command of the CLI needs, by command path ('' is `peagen` itself). */
const COMMAND_NEEDS: Record<string, Need> = {
  '': RUNS,
  init: RUNS,
  render: RUNS,
  mutate: RUNS,
  eval: RUNS,
  'evolve run': RUNS,
  'evolve step': RUNS,
  'evolve apply': RUNS,
  'evolve list': RUNS,
  'evolve show': RUNS,
  'evolve best': RUNS,
  'evolve replay': RUNS,
  'evolve merge': RUNS,
  plugins: RUNS,
  'task submit': needs('a daemon (unless --sync)'),
  'task result': needs('a daemon'),
  'task cancel': needs('a daemon'),
  'sandbox image build': needs('a Docker engine'),
  'sandbox image status': needs('a Docker engine'),
  'worker start': needs('a queue to serve (it runs until stopped)'),
  'queue stats': needs('a daemon'),
  'queue dlq list': needs('a daemon'),
  'queue dlq inspect': needs('a daemon and a dead-lettered task'),
  'queue dlq retry': needs('a daemon and a dead-lettered task'),
  'daemon start': needs('a background daemon (the daemon suites start and stop them)'),
  'daemon stop': needs('a running daemon'),
  'daemon status': needs('a running daemon'),
  metrics: needs('a running daemon or worker pool'),
};

/** Mutators every Peagen has; any other `--mutator` names a plugin the folder lacks. */
const BUILT_IN_MUTATORS = new Set(['auto', 'offline', 'llm-patch']);

/** The stop conditions an evolve run's tiny budget replaces. */
const STOP_OPTIONS = new Set(['--evaluations', '--generations', '--minutes', '--target', '--patience']);
const TINY_BUDGET: Record<string, string[]> = {
  'evolve run': ['--evaluations', '1', '--quick'],
  'evolve step': ['--children', '1', '--quick'],
};

const PAGES = ['README.md', ...fs.readdirSync(path.join(REPO, 'docs')).filter((file) => file.endsWith('.md')).sort().map((file) => `docs/${file}`)];

interface CliCommand {
  path: string;
  options: Set<string>;
  hasSubcommands: boolean;
}

/** `peagen ... --help`. */
async function help(words: string[]): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, [CLI, ...words, '--help'], { encoding: 'utf8', timeout: 60_000 });
  return stdout;
}

/** Lines of one section (`Options:`, `Commands:`) of a help text. */
function section(text: string, title: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(title);
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && line !== '' && !line.startsWith(' '));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** Every command of the CLI with its options, walked from `peagen --help` (siblings at once). */
async function commandTree(): Promise<Map<string, CliCommand>> {
  const tree = new Map<string, CliCommand>();
  const visit = async (words: string[]): Promise<void> => {
    const text = await help(words);
    const usage = /^Usage: peagen((?: [a-z][\w-]*)*) \[options\]/m.exec(text)?.[1]?.trim();
    assert.equal(usage, words.join(' '), `peagen ${words.join(' ')} --help shows the help of another command`);
    const options = new Set(section(text, 'Options:').flatMap((line) => (/^ {2}\S/.test(line) ? optionsIn(line.split(/ {2,}/)[1]!) : [])));
    const children = section(text, 'Commands:').flatMap((line) => {
      const name = /^ {2}([a-z][\w-]*)/.exec(line)?.[1];
      return name !== undefined && name !== 'help' ? [name] : [];
    });
    tree.set(words.join(' '), { path: words.join(' '), options, hasSubcommands: children.length > 0 });
    await Promise.all(children.map((child) => visit([...words, child])));
  };
  await visit([]);
  return tree;
}

/** The command of COMMAND_NEEDS the words name (global options before it skipped), '' if none. */
function tablePath(args: string[]): string {
  const words = args.filter((word, i) => !word.startsWith('-') && args[i - 1] !== '--config');
  for (let length = Math.min(3, words.length); length > 0; length--) {
    const candidate = words.slice(0, length).join(' ');
    if (COMMAND_NEEDS[candidate] !== undefined) return candidate;
  }
  return '';
}

/** The longest command path the words start with (global options before it skipped). */
function commandOf(args: string[], tree: Map<string, CliCommand>): { command: CliCommand; rest: string[] } {
  const words = [...args];
  const path: string[] = [];
  while (words.length > 0) {
    const word = words[0]!;
    if (word === '--config') words.splice(0, 2);
    else if (word.startsWith('-') && path.length === 0 && tree.get('')!.options.has(word)) words.shift();
    else if (tree.has([...path, word].join(' '))) path.push(words.shift()!);
    else break;
  }
  return { command: tree.get(path.join(' '))!, rest: words };
}

/** The arguments the command runs with: the page's, with a tiny budget for an evolve run. */
function runnableArgs(commandPath: string, args: string[]): string[] {
  const budget = TINY_BUDGET[commandPath];
  if (budget === undefined || args.includes('--help')) return args;
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (STOP_OPTIONS.has(args[i]!) || (args[i] === '--children' && commandPath === 'evolve step')) i++;
    else if (args[i] !== '--quick') kept.push(args[i]!);
  }
  return [...kept, ...budget];
}

/** Why a command cannot run in a fresh folder, or undefined when it can. */
function whyNotRunnable(doc: DocCommand, commandPath: string, args: string[]): string | undefined {
  if (args.includes('--help') || args.includes('-h')) return undefined;
  const need = COMMAND_NEEDS[commandPath];
  if (need === undefined) return undefined;
  if (commandPath === 'task submit' && args.includes('--sync')) return undefined;
  if (!need.run) return need.why;
  if (doc.environment.length > 0) return `the environment its block sets (${doc.environment.join(', ')})`;
  const mutator = args[args.indexOf('--mutator') + 1];
  if (args.includes('--mutator') && mutator !== undefined && !BUILT_IN_MUTATORS.has(mutator)) return `the plugin ${mutator} installed`;
  return undefined;
}

/** A fresh folder for one page: a git repository with the bundled examples and a small project. */
function freshFolder(user: EvolveProject): void {
  fs.cpSync(path.join(REPO, 'examples'), path.join(user.dir, 'examples'), { recursive: true });
  fs.cpSync(path.join(REPO, 'test', 'fixtures', 'initProjects', 'python'), user.dir, { recursive: true });
  const git = (...args: string[]): void => {
    const run = spawnSync('git', ['-c', 'user.name=Docs Reader', '-c', 'user.email=reader@example.invalid', ...args], { cwd: user.dir, encoding: 'utf8' });
    assert.equal(run.status, 0, `git ${args.join(' ')}: ${run.stderr}`);
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'the project as the reader has it');
}

const pages = PAGES.map((page) => ({ page, commands: docCommands(fs.readFileSync(path.join(REPO, page), 'utf8'), page) }));

describe('the commands of README.md and docs/*.md, run as written', function () {
  this.timeout(120_000);
  let tree: Map<string, CliCommand>;
  before(async () => (tree = await commandTree()));

  it('every command of the CLI says whether a fresh folder can run it', () => {
    const unclassified = [...tree.values()].filter((command) => !command.hasSubcommands && COMMAND_NEEDS[command.path] === undefined);
    assert.deepEqual(
      unclassified.map((command) => command.path),
      [],
      'add each to COMMAND_NEEDS: runnable in a fresh folder, or what it needs (a daemon, Redis, ...)',
    );
  });

  it('the pages tell a reader at least the front page commands', () => {
    const readme = pages.find(({ page }) => page === 'README.md')!.commands.map(({ args }) => args.join(' '));
    assert.ok(readme.some((args) => args.startsWith('evolve run examples/bad_sort')), 'README runs the bundled example');
    assert.ok(readme.some((args) => args.startsWith('init ')), 'README shows init on your own code');
  });

  it('every relative link of the pages leads to a file, and a heading of it, that exist', () => {
    /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
    const slug = (heading: string): string => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');
    const headings = (file: string): Set<string> => new Set([...fs.readFileSync(file, 'utf8').matchAll(/^#+ (.*)$/gm)].map((match) => slug(match[1]!)));
    const broken: string[] = [];
    for (const page of PAGES) {
      const prose = fs.readFileSync(path.join(REPO, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      for (const [, link] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(link!)) continue;
        const [file, anchor] = link!.split('#');
        const target = file === '' ? path.join(REPO, page) : path.resolve(REPO, path.dirname(page), file!);
        if (!fs.existsSync(target)) broken.push(`${page}: ${link} (no such file)`);
        else if (anchor !== undefined && target.endsWith('.md') && !headings(target).has(anchor)) broken.push(`${page}: ${link} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('docs/cli.md names every command and every option that --help lists', () => {
    /** The command a synopsis line is about: the longest command path its words start with. */
    const synopsisPath = (line: string): string => {
      const words = line.split(/\s+/).slice(1);
      const found: string[] = [];
      while (words.length > 0 && tree.has([...found, words[0]!].join(' '))) found.push(words.shift()!);
      return found.join(' ');
    };
    const reference = synopses(fs.readFileSync(path.join(REPO, 'docs', 'cli.md'), 'utf8'));
    const missing: string[] = [];
    for (const command of tree.values()) {
      if (command.hasSubcommands && command.path !== '') continue;
      const named = reference.filter((line) => synopsisPath(line) === command.path);
      if (named.length === 0) {
        missing.push(`peagen ${command.path}: no synopsis`);
        continue;
      }
      const written = new Set(named.flatMap(optionsIn));
      for (const option of command.options) if (option !== '--help' && option !== '-h' && !written.has(option)) missing.push(`peagen ${command.path}: ${option}`);
    }
    assert.deepEqual(missing, [], 'docs/cli.md lacks these (a ```text synopsis line starting "peagen <command>")');
    // And the other way: a synopsis names only commands and options the CLI has.
    const invented: string[] = [];
    for (const line of reference) {
      const command = tree.get(synopsisPath(line))!;
      const rest = line.split(/\s+/).slice(1 + (command.path === '' ? 0 : command.path.split(' ').length));
      if (command.hasSubcommands && command.path !== '') invented.push(`peagen ${command.path} ${rest[0]}: no such command`);
      else for (const option of optionsIn(line)) if (!command.options.has(option) && !tree.get('')!.options.has(option)) invented.push(`peagen ${command.path}: ${option}`);
    }
    assert.deepEqual(invented, [], 'docs/cli.md names these, which the CLI does not have');
  });

  for (const { page, commands } of pages) {
    describe(page, () => {
      const user = new EvolveProject();
      before(() => freshFolder(user));
      after(() => user.cleanup());

      const seen = new Set<string>();
      for (const doc of commands) {
        const commandPath = tablePath(doc.args);
        const args = runnableArgs(commandPath, doc.args);
        const why = whyNotRunnable(doc, commandPath, doc.args);
        // The same command again on one page (the front page repeats its first one) does the
        // same thing in the same folder: it runs once.
        const again = why === undefined && seen.has(args.join('\0'));
        seen.add(args.join('\0'));
        const title = `${doc.where} peagen ${doc.args.join(' ')}${why === undefined ? (again ? ' (ran above)' : '') : ` (checked against --help: needs ${why})`}`;
        it(title, async () => {
          const { command, rest } = commandOf(doc.args, tree);
          // The command exists: the words after the command path are its arguments, not a
          // command this CLI lacks.
          assert.ok(!command.hasSubcommands || rest.length === 0 || rest[0]!.startsWith('-'), `${doc.where}: "peagen ${doc.args.join(' ')}" is not a command of this CLI (peagen ${command.path} has no subcommand "${rest[0]}")`);
          const known = new Set([...command.options, ...tree.get('')!.options]);
          const unknown = doc.args.filter((word) => word.startsWith('-') && !known.has(word.split('=')[0]!));
          assert.deepEqual(unknown, [], `${doc.where}: peagen ${command.path} --help does not list these options`);
          assert.ok(COMMAND_NEEDS[command.path] !== undefined || command.hasSubcommands, `${doc.where}: cannot classify peagen ${command.path}: add it to COMMAND_NEEDS`);
          if (why !== undefined || again) return;
          const run = await user.run(args, { PEAGEN_EXECUTOR: 'process' }, 100_000);
          assert.equal(run.code, 0, `${doc.where}: peagen ${args.join(' ')} exited ${run.code ?? run.signal}\n${run.stderr.slice(-2000)}\n${run.stdout.slice(-1000)}`);
        });
      }
    });
  }
});
