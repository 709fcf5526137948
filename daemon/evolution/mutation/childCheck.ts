/**
 * Cheap rejection before a sandbox is spent: does a child compile, and what is its normal
 * form? Two programs with one normal form differ only in comments, blank lines or trailing
 * whitespace (for Python: not at all in their syntax tree, docstrings aside), so a child whose
 * normal form is known is a repeat, not a new program.
 *
 *  - Python: `python3` parses the child (ast.parse, which never runs it) in a short-lived
 *    process of its own; the normal form is the hash of the tree without docstrings. Without
 *    python3, or when it cannot tell, the text form below and no syntax verdict.
 *  - JavaScript: V8 compiles the child as a CommonJS module body (vm.Script, never run); the
 *    normal form is the text without comments and indentation. A module that uses import or
 *    export syntax gets no syntax verdict.
 *  - Anything else: the text form (comments of brace languages removed), no syntax verdict.
 *
 * A check never rejects a child it cannot judge: no verdict means "compiles".
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import Module from 'node:module';
import * as vm from 'node:vm';
import { normalizeNewlines } from '../../../shared/lines';
import { programId } from '../../../shared/programId';
import { isProgramBundle, unbundleProgram } from '../../../shared/programFiles';
import { detectSyntax, initialScanState, scanLine, type Syntax } from './scan';

export type ChildVerdict = { ok: true; form: string } | { ok: false; message: string };

export interface ChildCheck {
  /** Whether `code` compiles (when this check can tell), and its normal form. */
  check(code: string): Promise<ChildVerdict>;
}

const PYTHON_TIMEOUT_MS = 10_000;

/** No compile check, and only identical text is the same program: the form is the program id. */
export const EXACT_CHECK: ChildCheck = { check: async (code) => ({ ok: true, form: programId(code) }) };

/**
 * The check for an example's declared language. A multi-file program (shared/programFiles.ts)
 * is checked file by file, each by its own extension's language (else the declared one); its
 * normal form is that of all its files together.
 */
export function childCheckFor(language: string | undefined): ChildCheck {
  const single = singleFileCheck(language);
  return {
    check: async (code) => {
      if (!isProgramBundle(code)) return single.check(code);
      let files;
      try {
        files = unbundleProgram(code);
      } catch (error) {
        return { ok: false, message: `the program's files cannot be told apart: ${(error as Error).message}` };
      }
      const forms: string[] = [];
      for (const file of files) {
        const verdict = await singleFileCheck(languageOfFile(file.path) ?? language).check(file.text);
        if (!verdict.ok) return { ok: false, message: `${file.path}: ${verdict.message}` };
        forms.push(`${file.path}\t${verdict.form}`);
      }
      return { ok: true, form: sha256(forms.join('\n')) };
    },
  };
}

function languageOfFile(file: string): string | undefined {
  if (/\.py$/.test(file)) return 'python';
  if (/\.(js|cjs)$/.test(file)) return 'javascript';
  return undefined;
}

function singleFileCheck(language: string | undefined): ChildCheck {
  const lang = (language ?? '').toLowerCase();
  if (['python', 'py', 'python3'].includes(lang)) return { check: checkPython };
  if (['javascript', 'js', 'node', 'nodejs', 'cjs'].includes(lang)) return { check: async (code) => checkJavaScript(code) };
  if (['typescript', 'ts'].includes(lang)) return { check: async (code) => checkTypeScript(code) };
  return { check: async (code) => ({ ok: true, form: textForm(code, detectSyntax(code, language)) }) };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The text normal form: comments, blank lines and trailing whitespace removed (and, for brace
 * code, indentation). A fallback, so it only drops what is certainly not code: a line the
 * lexer finds broken is kept whole.
 */
export function textForm(code: string, syntax: Syntax): string {
  const state = initialScanState();
  const kept: string[] = [];
  // Not a document's lines (shared/lines.ts): a normal form follows the lexers, and Python's and
  // JavaScript's both end a line at a lone CR too.
  for (const line of normalizeNewlines(code).split('\n')) {
    const scan = scanLine(line, state, syntax);
    let text = (scan.broken ? line : scan.code).trimEnd();
    if (syntax === 'brace') text = text.trimStart();
    if (text.trim() !== '') kept.push(text);
  }
  return sha256(kept.join('\n'));
}

function checkJavaScript(code: string): ChildVerdict {
  try {
    // The CommonJS wrapper, so that top-level `return` and `require` parse as they do in Node.
    new vm.Script(`(function (exports, require, module, __filename, __dirname) {${code}\n})`, { filename: 'child.js' });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof SyntaxError) || /\b(import|export)\b|module/.test(message)) return { ok: true, form: textForm(code, 'brace') };
    const line = /^child\.js:(\d+)/.exec(error.stack ?? '')?.[1];
    return { ok: false, message: `the program does not compile${line ? ` (line ${line})` : ''}: SyntaxError: ${message}` };
  }
  return { ok: true, form: textForm(code, 'brace') };
}

/**
 * TypeScript, as the harness runs it (peagen-harness.js programSource): its types stripped by
 * Node, or transformed where it is more than erasable types (a parameter property, an enum),
 * then checked as JavaScript. A child Node can do neither with would not run.
 */
function checkTypeScript(code: string): ChildVerdict {
  const strip = (Module as unknown as { stripTypeScriptTypes?: (code: string, options: { mode: 'strip' | 'transform' }) => string }).stripTypeScriptTypes;
  if (typeof strip !== 'function') return { ok: true, form: textForm(code, 'brace') };
  let stripped: string;
  try {
    try {
      stripped = strip(code, { mode: 'strip' });
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') throw error;
      stripped = strip(code, { mode: 'transform' });
    }
  } catch (error) {
    return { ok: false, message: `the program's TypeScript cannot be run with its types stripped: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
  const verdict = checkJavaScript(stripped);
  // The form of the code as written: a change of types alone is still a change the evaluator sees as none, but not a repeat.
  return verdict.ok ? { ok: true, form: textForm(code, 'brace') } : verdict;
}

// Reads the program on stdin; prints "form\t<sha256>", "syntax\t<line>\t<message>" or "unknown".
const PYTHON_CHECK = String.raw`
import ast, hashlib, sys
source = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
try:
    tree = ast.parse(source)
except (SyntaxError, ValueError) as error:
    line = getattr(error, "lineno", None) or 0
    text = (getattr(error, "text", None) or "").strip()
    print("syntax", line, type(error).__name__ + ": " + str(getattr(error, "msg", error)) + (" in: " + text[:200] if text else ""), sep="\t")
    sys.exit(0)
except (MemoryError, RecursionError):
    print("unknown")
    sys.exit(0)
for node in ast.walk(tree):
    if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
print("form", hashlib.sha256(ast.dump(tree).encode()).hexdigest(), sep="\t")
`;

let pythonMissing = false;
/** Verdicts by source hash: a parent is checked again for each of its children. */
const pythonVerdicts = new Map<string, ChildVerdict>();
const PYTHON_CACHE = 512;

async function checkPython(code: string): Promise<ChildVerdict> {
  const key = sha256(code);
  const cached = pythonVerdicts.get(key);
  if (cached) return cached;
  const { verdict, lasting } = await judgePython(code);
  // Only python3's own answer is kept: a fallback after a failed start or a timeout (a loaded
  // machine) kept here would give this program another normal form than its repeats for the
  // rest of the run.
  if (!lasting) return verdict;
  if (pythonVerdicts.size >= PYTHON_CACHE) pythonVerdicts.delete(pythonVerdicts.keys().next().value!);
  pythonVerdicts.set(key, verdict);
  return verdict;
}

async function judgePython(code: string): Promise<{ verdict: ChildVerdict; lasting: boolean }> {
  const fallback: ChildVerdict = { ok: true, form: textForm(code, 'python') };
  if (pythonMissing) return { verdict: fallback, lasting: true };
  // A second try when python3 gave no answer: the first may have been starved or not started.
  const answer = (await runPython(code)) ?? (await runPython(code));
  if (answer === 'missing') {
    pythonMissing = true;
    return { verdict: fallback, lasting: true };
  }
  const [tag, first, ...rest] = (answer ?? '').trim().split('\t');
  if (tag === 'form' && first && /^[0-9a-f]{64}$/.test(first)) return { verdict: { ok: true, form: first }, lasting: true };
  if (tag === 'syntax') return { verdict: { ok: false, message: `the program does not compile${first && first !== '0' ? ` (line ${first})` : ''}: ${rest.join('\t')}` }, lasting: true };
  // `unknown` (a tree too deep to walk) is python3's answer too; no answer at all is not.
  return { verdict: fallback, lasting: answer !== undefined };
}

/** python3's answer, 'missing' when there is no python3, undefined when it gave none in time. */
function runPython(code: string): Promise<string | 'missing' | undefined> {
  return new Promise((resolve) => {
    // -I: no environment variables, user site or current directory on the path; -S: no site.
    const child = spawn('python3', ['-I', '-S', '-c', PYTHON_CHECK], { stdio: ['pipe', 'pipe', 'ignore'], env: { PATH: process.env.PATH ?? '' } });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), PYTHON_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk.length + out.length > 10_000 ? '' : chunk));
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(error.code === 'ENOENT' ? 'missing' : undefined);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve(status === 0 ? out : undefined);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(code);
  });
}
