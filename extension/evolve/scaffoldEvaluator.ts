/**
 * "Scaffold an evaluator for <function>…": the files of a starting-point example beside the
 * source file (an evaluator, a reference copy of the file as it is now, peagen.example.json).
 * The evaluator follows the contract of examples/bad_sort/evaluate.py: `<evaluator> <program>
 * [--seed N] [--quick]`, one JSON line `{correct, objective, direction, metrics, error}` last.
 * Correctness: the project's tests (pytest / node --test) when there are any, else an import
 * check, and the function's answers must equal the reference's; objective: the speedup of
 * calls of the function over the reference. vscode-free.
 */
import * as path from 'node:path';
import { EXAMPLE_CONFIG_FILE, type ExampleConfig } from '../../shared/evaluation';
import type { LineRegion } from './region';

export type ScaffoldLanguage = 'python' | 'javascript';

export function scaffoldLanguage(languageId: string): ScaffoldLanguage | undefined {
  if (languageId === 'python') return 'python';
  if (languageId === 'javascript' || languageId === 'javascriptreact') return 'javascript';
  return undefined;
}

const DEFINITIONS: Record<ScaffoldLanguage, RegExp[]> = {
  python: [/^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/],
  javascript: [/^\s*(?:export\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(/, /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/],
};

/**
 * The function the region is about: the first top-level-most definition inside it, else the
 * nearest definition above it with less indentation (the function whose body was selected).
 */
export function functionAt(lines: readonly string[], region: LineRegion, language: ScaffoldLanguage): string | undefined {
  const match = (line: string): string | undefined => {
    for (const pattern of DEFINITIONS[language]) {
      const found = pattern.exec(line);
      if (found) return found[1];
    }
    return undefined;
  };
  const indent = (line: string): number => /^\s*/.exec(line)![0].length;
  const inside = lines
    .slice(region.startLine, region.endLine)
    .map((line) => ({ line, name: match(line) }))
    .filter((entry) => entry.name !== undefined)
    .sort((a, b) => indent(a.line) - indent(b.line));
  if (inside[0]) return inside[0].name;
  const first = lines.slice(region.startLine, region.endLine).find((line) => line.trim() !== '') ?? '';
  for (let index = region.startLine - 1; index >= 0; index--) {
    const line = lines[index]!;
    const name = match(line);
    if (name && indent(line) < indent(first)) return name;
  }
  return undefined;
}

export interface ScaffoldInput {
  /** File name of the source file (the example's program), in its directory. */
  fileName: string;
  /** The file's text now: kept as the reference the candidates are compared with. */
  text: string;
  functionName: string;
  language: ScaffoldLanguage;
}

/** File name → content of the scaffolded example, relative to the source file's directory. */
export function scaffoldFiles(input: ScaffoldInput): { files: Record<string, string>; evaluator: string; config: ExampleConfig } {
  const reference = `peagen_reference_${input.fileName}`;
  const evaluator = input.language === 'python' ? 'peagen_evaluate.py' : 'peagen_evaluate.js';
  const stem = input.fileName.replace(/\.[^.]*$/, '');
  const config: ExampleConfig = {
    name: `${stem}-${input.functionName}`.replace(/[^A-Za-z0-9_-]/g, '_'),
    description: `Speed up ${input.functionName}() of ${input.fileName} without changing its answers (scaffolded by Peagen: review ${evaluator}).`,
    language: input.language,
    program: input.fileName,
    entry: input.functionName,
    evaluator: input.language === 'python' ? ['python3', evaluator, '{program}'] : ['node', evaluator, '{program}'],
    objective: { name: 'speedup', direction: 'maximize' },
    limits: { timeoutMs: 120_000, memoryMb: 1024, pids: 64 },
  };
  const template = input.language === 'python' ? PYTHON_EVALUATOR : JS_EVALUATOR;
  const source = template
    .replaceAll('__FUNCTION__', JSON.stringify(input.functionName))
    .replaceAll('__PROGRAM__', JSON.stringify(input.fileName))
    .replaceAll('__REFERENCE__', JSON.stringify(reference));
  return {
    files: { [evaluator]: source, [reference]: input.text, [EXAMPLE_CONFIG_FILE]: `${JSON.stringify(config, null, 2)}\n` },
    evaluator,
    config,
  };
}

/** The directory the scaffold goes to: beside the source file. */
export function scaffoldDir(sourceFile: string): string {
  return path.dirname(sourceFile);
}

const PYTHON_EVALUATOR = String.raw`#!/usr/bin/env python3
"""Evaluator scaffolded by Peagen for __FUNCTION__ in __PROGRAM__: REVIEW IT before evolving.

usage: python3 peagen_evaluate.py <candidate.py> [--seed N] [--quick]
Prints one JSON line last: {"correct", "objective", "direction", "metrics", "error"}.

Correctness: the candidate replaces the program in a copy of this directory; the project's
tests run there with pytest when there are any (else the candidate must import), and the
function's answers on the timing inputs must equal those of the reference copy.
Objective: speedup = reference CPU time / candidate CPU time over the same calls.
Edit sample_args() to time the function on realistic inputs. Evolution optimises what this
file rewards: see examples/README.md (peagen_harness) for an evaluator that cannot be fooled.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FUNCTION = __FUNCTION__
PROGRAM = __PROGRAM__
REFERENCE = __REFERENCE__

TIMER = r'''
import importlib.util, inspect, json, pickle, random, sys, time
path, name, seed, quick = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
sys.path.insert(0, __import__("os").path.dirname(path))
spec = importlib.util.spec_from_file_location("candidate_module", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
fn = getattr(module, name)

def sample_args(fn, rng, size):
    """Arguments for one timed call, guessed from the parameters' annotations: edit to taste."""
    args = []
    for p in inspect.signature(fn).parameters.values():
        if p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        kind = str(p.annotation)
        if "str" in kind:
            args.append("".join(rng.choice("abcdefgh") for _ in range(size)))
        elif "float" in kind:
            args.append(rng.uniform(-1000, 1000))
        elif "int" in kind and "list" not in kind and "List" not in kind:
            args.append(rng.randint(10, 20))
        else:
            args.append([rng.randint(-10**6, 10**6) for _ in range(size)])
    return args

rng = random.Random(seed)
calls = [sample_args(fn, rng, 100 if quick else 400) for _ in range(5 if quick else 10)]
answers, start = [], time.process_time()
for args in calls:
    answers.append(repr(fn(*args)))
print(json.dumps({"cpu": time.process_time() - start, "answers": answers}))
'''


def result(correct, objective=0.0, error=None, **metrics):
    line = {"correct": correct, "objective": objective, "direction": "maximize", "metrics": metrics}
    if error:
        line["error"] = error[-4000:]
    print(json.dumps(line))
    sys.exit(0)


def run(cmd, cwd, timeout=300):
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


def has_tests(root):
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "__pycache__", ".peagen", ".git")]
        if any((f.startswith("test_") or f.endswith("_test.py")) and f.endswith(".py") for f in files):
            return True
    return False


def time_calls(path, seed, quick):
    code, out = run([sys.executable, "-c", TIMER, path, FUNCTION, str(seed), "1" if quick else "0"], os.path.dirname(path))
    if code != 0:
        return None, out
    return json.loads(out.strip().splitlines()[-1]), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("program")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="peagen-eval-")
    try:
        copy = os.path.join(work, "project")
        shutil.copytree(HERE, copy, ignore=shutil.ignore_patterns("__pycache__", ".peagen", "node_modules", ".git"))
        shutil.copyfile(args.program, os.path.join(copy, PROGRAM))
        candidate = os.path.join(copy, PROGRAM)
        try:
            import pytest  # noqa: F401
            pytest_available = True
        except ImportError:
            pytest_available = False
        if pytest_available and has_tests(copy):
            code, out = run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"], copy)
            if code != 0:
                result(False, error="the project's tests failed:\n" + out)
        else:
            code, out = run([sys.executable, "-c", "import importlib.util as u, sys; s = u.spec_from_file_location('m', sys.argv[1]); s.loader.exec_module(u.module_from_spec(s))", candidate], copy)
            if code != 0:
                result(False, error="the program does not import:\n" + out)
        mine, error = time_calls(candidate, args.seed, args.quick)
        if mine is None:
            result(False, error="calling %s failed:\n%s" % (FUNCTION, error))
        reference, error = time_calls(os.path.join(copy, REFERENCE), args.seed, args.quick)
        if reference is None:
            print("the reference itself failed: " + error, file=sys.stderr)
            sys.exit(2)
        for index, (got, expected) in enumerate(zip(mine["answers"], reference["answers"])):
            if got != expected:
                result(False, error="call %d of %s answered %s, the reference %s" % (index + 1, FUNCTION, got[:200], expected[:200]))
        speedup = reference["cpu"] / max(mine["cpu"], 1e-6)
        result(True, speedup, candidate_cpu_s=mine["cpu"], reference_cpu_s=reference["cpu"])
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
`;

const JS_EVALUATOR = String.raw`#!/usr/bin/env node
'use strict';
/*
 * Evaluator scaffolded by Peagen for __FUNCTION__ in __PROGRAM__: REVIEW IT before evolving.
 *
 * usage: node peagen_evaluate.js <candidate.js> [--seed N] [--quick]
 * Prints one JSON line last: {"correct", "objective", "direction", "metrics", "error"}.
 *
 * Correctness: the candidate replaces the program in a copy of this directory; the project's
 * tests run there with node --test when there are any (else the candidate must load), and the
 * function's answers on the timing inputs must equal those of the reference copy.
 * Objective: speedup = reference CPU time / candidate CPU time over the same calls.
 * Edit sampleArgs() to time the function on realistic inputs. Evolution optimises what this
 * file rewards: see examples/README.md (peagen-harness) for an evaluator that cannot be fooled.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const FUNCTION = __FUNCTION__;
const PROGRAM = __PROGRAM__;
const REFERENCE = __REFERENCE__;

const TIMER = String.raw` + '`' + String.raw`
const [file, name, seedText, quick, kindsText] = process.argv.slice(1);
let seed = Number(seedText) >>> 0;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
const loaded = require(file);
const fn = typeof loaded === 'function' ? loaded : loaded[name];
if (typeof fn !== 'function') throw new Error(name + ' is not exported by ' + file);
/** The parameters' names, from the function's source (defaults and rest parameters dropped). */
function paramNames() {
  const source = Function.prototype.toString.call(fn);
  const list = /^[^(=]*\(([^)]*)\)/.exec(source) || /^\s*(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(source);
  return (list ? list[1].split(',') : []).map((param) => param.trim()).filter((param) => param && !/[=.]/.test(param)).slice(0, fn.length);
}
/** What kind of value a parameter takes, guessed from its name: edit to taste. */
function guessKind(param) {
  if (/^(n|k|m|i|j|num|count|size|index|depth|limit|steps?)$|^n[A-Z_]|(Count|Size|Index|Num)$/.test(param)) return 'int';
  if (/^(s|str|text|word|name|key|string)$|(Str|Text|Name)$/.test(param)) return 'string';
  return 'list';
}
function sample(kind, size) {
  if (kind === 'int') return 10 + Math.floor(random() * 11);
  if (kind === 'string') return Array.from({ length: size }, () => 'abcdefgh'[Math.floor(random() * 8)]).join('');
  return Array.from({ length: size }, () => Math.floor(random() * 2e6) - 1e6);
}
/**
 * The kinds of the arguments: given (the reference decided them), else the guess from the
 * names or, when the function throws on that, the first of all-list, all-int, all-string it accepts.
 */
function decideKinds() {
  if (kindsText) return kindsText.split(',').filter(Boolean);
  const guess = paramNames().map(guessKind);
  const count = Math.max(fn.length, guess.length);
  const tries = [guess, ...['list', 'int', 'string'].map((kind) => Array.from({ length: count }, () => kind))];
  for (const kinds of tries) {
    try {
      fn(...kinds.map((kind) => sample(kind, 10)));
      return kinds;
    } catch {
      // not this kind of argument
    }
  }
  return guess;
}
const kinds = decideKinds();
seed = Number(seedText) >>> 0; // the probe drew numbers: both programs get the same calls
/** Arguments for one timed call: edit to taste. */
function sampleArgs(size) {
  return kinds.map((kind) => sample(kind, size));
}
const calls = Array.from({ length: quick === '1' ? 5 : 10 }, () => sampleArgs(quick === '1' ? 100 : 400));
const answers = [];
const start = process.cpuUsage();
for (const args of calls) answers.push(String(JSON.stringify(fn(...args), (k, v) => (typeof v === 'bigint' ? v.toString() + 'n' : v))));
const used = process.cpuUsage(start);
console.log(JSON.stringify({ cpu: (used.user + used.system) / 1e6, answers, kinds: kinds.join(',') }));
` + '`' + String.raw`;

function result(correct, objective, error, metrics) {
  const line = { correct, objective: objective || 0, direction: 'maximize', metrics: metrics || {} };
  if (error) line.error = String(error).slice(-4000);
  console.log(JSON.stringify(line));
  process.exit(0);
}

function run(args, cwd) {
  const done = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 300000 });
  return { code: done.status === null ? 1 : done.status, out: (done.stdout || '') + (done.stderr || '') };
}

function hasTests(root) {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (['node_modules', '.peagen', '.git'].includes(entry.name)) continue;
    const full = path.join(root, entry.name);
    if (entry.isDirectory() && hasTests(full)) return true;
    if (entry.isFile() && /\.test\.(c|m)?js$|^test.*\.(c|m)?js$/.test(entry.name)) return true;
  }
  return false;
}

function timeCalls(file, seed, quick, kinds) {
  const { code, out } = run(['-e', TIMER, file, FUNCTION, String(seed), quick ? '1' : '0', kinds || ''], path.dirname(file));
  if (code !== 0) return { error: out };
  return { timing: JSON.parse(out.trim().split('\n').pop()) };
}

function main() {
  const argv = process.argv.slice(2);
  const program = argv.find((arg) => !arg.startsWith('--'));
  const seedAt = argv.indexOf('--seed');
  const seed = seedAt >= 0 ? Number(argv[seedAt + 1]) : 1;
  const quick = argv.includes('--quick');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-eval-'));
  try {
    const copy = path.join(work, 'project');
    fs.cpSync(__dirname, copy, { recursive: true, filter: (from) => !['node_modules', '.peagen', '.git'].includes(path.basename(from)) });
    const candidate = path.join(copy, PROGRAM);
    fs.copyFileSync(program, candidate);
    if (hasTests(copy)) {
      const tests = run(['--test'], copy);
      if (tests.code !== 0) result(false, 0, "the project's tests failed:\n" + tests.out);
    } else {
      const load = run(['-e', 'require(process.argv[1])', candidate], copy);
      if (load.code !== 0) result(false, 0, 'the program does not load:\n' + load.out);
    }
    // The reference decides what kind of arguments the function takes; the candidate gets the same.
    const reference = timeCalls(path.join(copy, REFERENCE), seed, quick);
    if (reference.error) {
      console.error('the reference itself failed: ' + reference.error);
      process.exit(2);
    }
    const mine = timeCalls(candidate, seed, quick, reference.timing.kinds);
    if (mine.error) result(false, 0, 'calling ' + FUNCTION + ' failed:\n' + mine.error);
    for (let i = 0; i < mine.timing.answers.length; i++) {
      if (mine.timing.answers[i] !== reference.timing.answers[i]) {
        result(false, 0, 'call ' + (i + 1) + ' of ' + FUNCTION + ' answered ' + mine.timing.answers[i].slice(0, 200) + ', the reference ' + reference.timing.answers[i].slice(0, 200));
      }
    }
    const speedup = reference.timing.cpu / Math.max(mine.timing.cpu, 1e-6);
    result(true, speedup, undefined, { candidate_cpu_s: mine.timing.cpu, reference_cpu_s: reference.timing.cpu });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main();
`;
