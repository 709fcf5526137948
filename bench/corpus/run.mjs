#!/usr/bin/env node
// The user's flow (init, eval, evolve run, evolve apply, the project's own tests) on real
// public projects, one after the other, each in a fresh scratch copy of its checkout, and a
// table of the stage each one reached. README.md beside this file says how to get the
// checkouts.
//
//   node bench/corpus/run.mjs [--corpus DIR] [--list projects.json|heldout.json|both]
//                             [--only name,...] [--evaluations N] [--json]
//                             [--fetch-missing no|yes] [--cli PATH] [--keep]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');

const STAGES = ['checkout', 'own-tests-before', 'init', 'seed-eval', 'run', 'apply', 'tests-after'];
/** Seconds each stage may take. */
const TIMEOUTS = { setup: 600, 'own-tests-before': 300, init: 300, 'seed-eval': 300, run: 900, apply: 120, 'tests-after': 300 };
/** Variables that would point Peagen (or a test) at a model, a shared queue or another daemon. */
const DROPPED_ENV = [
  'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL',
  'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_MODEL',
  'QUEUE_URL', 'PEAGEN_REDIS_PASSWORD', 'PEAGEN_TASK_SECRET',
];

const USAGE = `usage: node bench/corpus/run.mjs [options]
  --corpus DIR          where the checkouts are, one folder per project name (default /work/corpus)
  --list WHICH          projects.json (default), heldout.json or both
  --only a,b            only these projects
  --evaluations N       evolve run --evaluations N (default 12)
  --json                print the results as JSON instead of the table
  --fetch-missing no    no (default): a missing checkout is reported; yes: git clone it, check out
                        the commit and run its setup
  --cli PATH            the peagen CLI (default ${join(ROOT, 'dist', 'cli.js')})
  --keep                keep the scratch copies (default: removed when a project passes)`;

function parseArgs(argv) {
  const opts = { corpus: '/work/corpus', list: 'projects.json', only: null, evaluations: 12, json: false, fetchMissing: 'no', cli: join(ROOT, 'dist', 'cli.js'), keep: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      if (i + 1 >= argv.length) fail(`${flag} needs a value`);
      return argv[++i];
    };
    switch (flag) {
      case '--corpus': opts.corpus = resolve(value()); break;
      case '--list': opts.list = value(); break;
      case '--only': opts.only = value().split(',').map((s) => s.trim()).filter(Boolean); break;
      case '--evaluations': opts.evaluations = Number(value()); break;
      case '--json': opts.json = true; break;
      case '--fetch-missing': opts.fetchMissing = value(); break;
      case '--cli': opts.cli = resolve(value()); break;
      case '--keep': opts.keep = true; break;
      case '-h': case '--help': console.log(USAGE); process.exit(0); break;
      default: fail(`unknown argument ${arg}`);
    }
  }
  if (!['projects.json', 'heldout.json', 'both'].includes(opts.list)) fail('--list is projects.json, heldout.json or both');
  if (!Number.isInteger(opts.evaluations) || opts.evaluations < 1) fail('--evaluations takes a whole number of at least 1');
  if (!['no', 'yes'].includes(opts.fetchMissing)) fail('--fetch-missing is no or yes');
  return opts;
}

function fail(message) {
  console.error(`run.mjs: ${message}\n${USAGE}`);
  process.exit(2);
}

function loadProjects(opts) {
  const files = opts.list === 'both' ? ['projects.json', 'heldout.json'] : [opts.list];
  const projects = files.flatMap((file) => JSON.parse(readFileSync(join(HERE, file), 'utf8')).map((p) => ({ ...p, list: file })));
  if (!opts.only) return projects;
  const unknown = opts.only.filter((name) => !projects.some((p) => p.name === name));
  if (unknown.length) fail(`not in ${files.join(' or ')}: ${unknown.join(', ')}`);
  return projects.filter((p) => opts.only.includes(p.name));
}

/** The environment of every child: no model keys, this Node first on PATH, a Peagen home of the project's own (no daemon of anyone else's). */
function childEnv(peagenHome) {
  const env = { ...process.env };
  for (const name of DROPPED_ENV) delete env[name];
  env.PATH = `${dirname(process.execPath)}:${env.PATH ?? ''}`;
  env.PEAGEN_HOME = peagenHome;
  delete env.FORCE_COLOR;
  env.NO_COLOR = '1';
  return env;
}

/** Runs `command` (argv array, or a shell string) in cwd; the whole process group is killed at the timeout. */
function runCommand({ command, cwd, env, timeoutS, log }) {
  return new Promise((done) => {
    const started = Date.now();
    const [file, args] = Array.isArray(command) ? [command[0], command.slice(1)] : ['bash', ['-c', command]];
    const child = spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    let timedOut = false;
    const kill = (signal) => { try { process.kill(-child.pid, signal); } catch { /* already gone */ } };
    const timer = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 5000).unref();
    }, timeoutS * 1000);
    const finish = (code, signal, spawnError) => {
      clearTimeout(timer);
      kill('SIGKILL'); // what the command left running in its group
      const seconds = (Date.now() - started) / 1000;
      const shown = Array.isArray(command) ? command.map((a) => (/[\s'"$]/.test(a) ? JSON.stringify(a) : a)).join(' ') : command;
      writeFileSync(log, `$ ${shown}\n# cwd: ${cwd}\n# exit: ${code}${signal ? ` (signal ${signal})` : ''}${timedOut ? ` (timed out after ${timeoutS} s)` : ''}${spawnError ? ` (${spawnError.message})` : ''}, ${seconds.toFixed(1)} s\n\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`);
      done({ code, signal, timedOut, stdout, stderr, seconds, spawnError });
    };
    child.on('error', (error) => finish(null, null, error));
    child.on('close', (code, signal) => finish(code, signal));
  });
}

// eslint-disable-next-line no-control-regex -- the escape character is what is matched
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
/** Progress and chatter that says nothing about why a stage failed. */
const NOISE = [
  /^best \S+ .*· gen \d+/, /^evaluating /, /^mutator: /, /^starting run /, /^seed: /, /^measuring the best/, /^reducing the best/,
  /^npm (warn|notice)/i, /^\(node:\d+\) /, /^\(Use `node --trace-/, /^>\s/, /^-{3,}$/, /^={3,}$/, /^\$ /, /^#/,
  /^ℹ /, /^✖ failing tests:?$/, /^"?(error|code|exitCode|message)"?:\s*[{"\d]?$/, /^[{}[\],]+$/,
];
/** Second lines worth more than the next telling one, best first: the exception, then a tool's own complaint. */
const CAUSES = [/^[\w.]*(Error|Exception)\b(\s*\[\w+\])?:/, /not found|No module|not installed|cannot|can't|refus|denied|unsupported/i, /\b[A-Z]\w*Error\b|error:/];
const TELLING = /error|fail|refus|cannot|can't|could not|couldn't|not found|no such|no module|not installed|invalid|unsupported|timed out|denied|exception|traceback|not ok|✖|✗|unable|missing|not allowed|does not|doesn't|no longer/i;

function lines(text) {
  return String(text ?? '').replace(ANSI, '').split(/\r?\n|\r/).map((line) => line.trim()).filter((line) => line && !NOISE.some((re) => re.test(line)));
}

/** The line among `candidates` that best names the error itself (CAUSES, in order), if any. */
function causeOf(candidates) {
  for (const re of CAUSES) {
    const found = candidates.find((line) => re.test(line));
    if (found) return found;
  }
  return undefined;
}

/** The first two lines that say what went wrong (telling ones first; for test output, the last lines otherwise). */
function meaningful(texts, { fromEnd = false } = {}) {
  const all = texts.flatMap(lines);
  const telling = all.filter((line) => TELLING.test(line));
  let picked;
  if (telling.length) {
    const cause = causeOf(telling.slice(1).filter((line) => line !== telling[0]));
    picked = cause ? [telling[0], cause] : telling.slice(0, 2);
  } else picked = fromEnd ? all.slice(-2) : all.slice(0, 2);
  return picked.map((line) => (line.length > 240 ? `${line.slice(0, 237)}...` : line));
}

function parseJson(text) {
  const trimmed = String(text ?? '').trim();
  if (!trimmed) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    const start = trimmed.indexOf('{');
    if (start < 0) return undefined;
    try { return JSON.parse(trimmed.slice(start)); } catch { return undefined; }
  }
}

/** Why a peagen command failed: its --json error's message when it printed one, else its output. */
function commandFailure(result, extra = []) {
  const head = result.timedOut ? [`timed out after ${result.seconds.toFixed(0)} s`] : result.spawnError ? [`could not start: ${result.spawnError.message}`] : [];
  const printed = parseJson(result.stdout) ?? parseJson(result.stderr);
  const message = typeof printed?.error === 'object' ? printed.error?.message : typeof printed?.error === 'string' ? printed.error : undefined;
  const texts = message ? [message, result.stderr] : [result.stderr, result.stdout];
  return [...head, ...extra, ...meaningful(texts)].slice(0, 2);
}

function testsFailure(result) {
  const head = result.timedOut ? [`timed out after ${result.seconds.toFixed(0)} s`] : [`exit ${result.code ?? result.signal}`];
  return [...head, ...meaningful([result.stdout, result.stderr], { fromEnd: true })].slice(0, 2);
}

async function runProject(project, opts, logsRoot, scratchRoot) {
  const record = { name: project.name, list: project.list, language: project.language, runner: project.runner, function: project.function, file: project.file, stage: 'checkout', result: 'fail', reason: [], seconds: 0, stages: [], note: undefined, logs: join(logsRoot, project.name) };
  const started = Date.now();
  const logDir = record.logs;
  mkdirSync(logDir, { recursive: true });
  const home = join(scratchRoot, `${project.name}.peagen-home`);
  mkdirSync(home, { recursive: true });
  const env = childEnv(home);
  let step = 0;
  const stage = async (name, command, cwd, timeoutS) => {
    record.stage = name;
    step += 1;
    const result = await runCommand({ command, cwd, env, timeoutS, log: join(logDir, `${String(step).padStart(2, '0')}-${name}.log`) });
    record.stages.push({ stage: name, exit: result.code, timedOut: result.timedOut, seconds: Number(result.seconds.toFixed(1)) });
    return result;
  };
  const finish = (result, reason, note) => {
    record.result = result;
    record.reason = reason.filter(Boolean).map((line) => (line.length > 240 ? `${line.slice(0, 237)}...` : line));
    if (note) record.note = note;
    record.seconds = Number(((Date.now() - started) / 1000).toFixed(1));
    writeFileSync(join(logDir, 'result.json'), `${JSON.stringify(record, null, 2)}\n`);
    return record;
  };
  const peagen = (...args) => [process.execPath, opts.cli, ...args];

  // checkout: the corpus folder, copied fresh so no run ever dirties it.
  const checkout = join(opts.corpus, project.name);
  if (!existsSync(checkout)) {
    const recipe = `git clone ${project.repo} ${checkout} && git -C ${checkout} checkout ${project.commit}${project.setup ? ` && (cd ${checkout} && ${project.setup})` : ''}`;
    if (opts.fetchMissing !== 'yes') return finish('fail', [`no checkout at ${checkout}`, `get it: ${recipe}`]);
    mkdirSync(opts.corpus, { recursive: true });
    const clone = await stage('checkout', recipe, opts.corpus, TIMEOUTS.setup);
    if (clone.code !== 0) return finish('fail', commandFailure(clone, ['fetching the checkout failed']));
  }
  const work = join(scratchRoot, project.name);
  // The folder itself, also where the corpus holds a link to it (cp -a would copy the link).
  const copy = spawnSync('cp', ['-a', realpathSync(checkout), work], { encoding: 'utf8' });
  if (copy.status !== 0) return finish('fail', [`cp -a ${checkout} ${work} failed`, lines(copy.stderr ?? copy.error?.message)[0] ?? '']);
  record.scratch = work;

  const before = await stage('own-tests-before', project.tests, work, TIMEOUTS['own-tests-before']);
  if (before.code !== 0) return finish('fail', testsFailure(before));

  const init = await stage('init', peagen('--json', 'init', project.file, '--function', project.function, '--tests', project.tests), work, TIMEOUTS.init);
  const made = parseJson(init.stdout);
  if (init.code !== 0 || !made?.dir) return finish('fail', commandFailure(init, init.code === 0 ? ['init printed no example directory'] : []));
  const example = made.dir;
  record.example = example;

  const evaluation = await stage('seed-eval', peagen('--json', 'eval', example), work, TIMEOUTS['seed-eval']);
  const verdict = parseJson(evaluation.stdout);
  if (verdict && typeof verdict === 'object' && 'correct' in verdict) {
    record.seed = { correct: verdict.correct, objective: verdict.objective ?? null, objectiveName: verdict.objectiveName, executor: verdict.executor };
  }
  if (!verdict?.correct) {
    if (!verdict?.failure) return finish('fail', commandFailure(evaluation, evaluation.code === 0 ? ['the seed is not correct'] : []));
    // The failure's message, then what errorText adds to it; the first line says which kind of failure.
    const message = String(verdict.failure.message ?? '');
    const extra = String(verdict.errorText ?? '').split('\n').filter((line) => line.trim() && !message.includes(line.trim()));
    const text = `${verdict.failure.reason ?? 'failed'}: ${message}\n${extra.join('\n')}`;
    const [first, ...rest] = lines(text);
    const others = rest.filter((line) => !first.includes(line));
    const cause = causeOf(others) ?? others.find((line) => TELLING.test(line));
    return finish('fail', [first.length > 240 ? `${first.slice(0, 237)}...` : first, ...(cause ? [cause] : [])]);
  }

  // A project whose one evaluation is slow (fastest-levenshtein's 55-75 s on a loaded machine)
  // gets time for its evaluations and the confirmation's re-measures (about 8 more), twice over.
  const seedSeconds = record.stages.at(-1).seconds;
  const runLimit = Math.max(TIMEOUTS.run, Math.ceil(2 * (opts.evaluations + 8) * seedSeconds));
  const run = await stage('run', peagen('--json', 'evolve', 'run', example, '--evaluations', String(opts.evaluations)), work, runLimit);
  const report = parseJson(run.stdout);
  if (report?.stopReason) {
    record.run = {
      stopReason: report.stopReason,
      seed: report.seed?.objective ?? null,
      best: report.best?.objective ?? null,
      evaluations: report.progress?.evaluations,
      failedEvaluations: report.progress?.failedEvaluations,
      whyChildrenFailed: (report.failureReasons ?? []).slice(0, 3).map((r) => (typeof r === 'string' ? r : r.reason ?? r.text ?? JSON.stringify(r))),
    };
  }
  if (run.code !== 0 || !report?.stopReason || ['tasks_failing', 'interrupted', 'error'].includes(report.stopReason)) {
    const said = report?.stopReason && run.code === 0 ? [`the run stopped: ${report.stopReason}`] : [];
    return finish('fail', commandFailure(run, said));
  }

  const apply = await stage('apply', peagen('--json', 'evolve', 'apply'), work, TIMEOUTS.apply);
  const applied = parseJson(apply.stdout);
  let note;
  if (apply.code !== 0) return finish('fail', commandFailure(apply));
  if (applied?.applied === false || (Array.isArray(applied?.written) && applied.written.length === 0)) {
    const reason = String(applied?.reason ?? '').split('\n')[0];
    const measured = reason.match(/is ([\d.]+x)( \[95% CI [^\]]+\])?: no measurable improvement/);
    const why = measured ? `no measurable improvement (the best measured again: ${measured[1]}${measured[2] ?? ''})`
      : applied?.patch === '' ? 'the best is the seed (empty patch)'
        : reason.replace(/^nothing to apply:\s*/, '');
    note = `nothing to apply${why ? `: ${why.length > 200 ? `${why.slice(0, 197)}...` : why}` : ''}`;
  }
  else if (Array.isArray(applied?.written)) note = `applied to ${applied.written.join(', ')}${applied.reduction ? ` (${applied.reduction})` : ''}`;

  const after = await stage('tests-after', project.tests, work, TIMEOUTS['tests-after']);
  if (after.code !== 0) return finish('fail', testsFailure(after), note);
  const done = finish('pass', [], note);
  if (!opts.keep) rmSync(work, { recursive: true, force: true });
  return done;
}

function cell(text) {
  return String(text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function table(records) {
  const rows = ['| project | language | runner | stage reached | result | s | reason |', '| --- | --- | --- | --- | --- | ---: | --- |'];
  for (const r of records) {
    const reason = r.result === 'pass' ? r.note ?? '' : r.reason.join(' / ');
    rows.push(`| ${cell(r.name)}${r.list === 'heldout.json' ? ' (held out)' : ''} | ${cell(r.language)} | ${cell(r.runner)} | ${cell(r.stage)} | ${r.result} | ${Math.round(r.seconds)} | ${cell(reason)} |`);
  }
  return rows.join('\n');
}

function summary(records) {
  const seedIndex = STAGES.indexOf('seed-eval');
  const running = records.filter((r) => STAGES.indexOf(r.stage) > seedIndex || (r.stage === 'seed-eval' && r.result === 'pass')).length;
  const complete = records.filter((r) => r.result === 'pass').length;
  return { reachedRunningSeed: running, completed: complete, total: records.length, line: `${running} of ${records.length} reached a running seed; ${complete} completed every stage` };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const projects = loadProjects(opts);
  if (!existsSync(opts.cli)) fail(`no peagen CLI at ${opts.cli}: build it first (node scripts/build.mjs)`);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
  const base = mkdtempSync(join(tmpdir(), `peagen-corpus-${stamp}-`));
  const logsRoot = join(base, 'logs');
  const scratchRoot = join(base, 'scratch');
  mkdirSync(logsRoot, { recursive: true });
  mkdirSync(scratchRoot, { recursive: true });
  console.error(`peagen: ${opts.cli}\ncorpus: ${opts.corpus} (${projects.length} projects from ${opts.list})\nlogs: ${logsRoot}`);

  const records = [];
  for (const project of projects) {
    console.error(`[${records.length + 1}/${projects.length}] ${project.name} ...`);
    const record = await runProject(project, opts, logsRoot, scratchRoot);
    records.push(record);
    console.error(`    ${record.result} at ${record.stage} (${Math.round(record.seconds)} s)${record.reason.length ? `: ${record.reason[0]}` : record.note ? `: ${record.note}` : ''}`);
  }
  const totals = summary(records);
  writeFileSync(join(logsRoot, 'results.json'), `${JSON.stringify({ cli: opts.cli, corpus: opts.corpus, list: opts.list, evaluations: opts.evaluations, ...totals, projects: records }, null, 2)}\n`);
  if (opts.json) {
    console.log(JSON.stringify({ cli: opts.cli, corpus: opts.corpus, list: opts.list, evaluations: opts.evaluations, logs: logsRoot, ...totals, projects: records }, null, 2));
  } else {
    console.log(table(records));
    console.log(`\n${totals.line}`);
    console.log(`logs: ${logsRoot}`);
  }
}

export { meaningful, lines, parseJson };

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error?.stack ?? String(error));
    process.exit(1);
  });
}
