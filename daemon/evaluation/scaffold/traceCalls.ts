/**
 * Behaviour capture: the program with the function wrapped so that every outermost call
 * appends `{"args": [...], "answer": ...}` (one JSON object a line; the arguments as they were
 * before the call, the answer only when it is plain JSON data) to the file named by
 * PEAGEN_CAPTURE_FILE. Run
 * once with the project's tests, it tells what inputs the function really gets. Calls whose
 * arguments are not plain JSON data (objects with methods, keyword arguments, undefined) are
 * skipped, not approximated: an evaluator replays each recorded call exactly.
 */
import { functionLines, memberHolderAt } from '../../../shared/functionScan';
import type { ScaffoldLanguage } from './scaffoldExample';

export const CAPTURE_FILE_ENV = 'PEAGEN_CAPTURE_FILE';
/** Larger argument lists are not worth replaying on every evaluation. */
export const MAX_CAPTURED_CALL_CHARS = 100_000;

/** The program's text with the tracing wrapper appended, or why the function cannot be traced. */
export function tracedSource(text: string, functionName: string, language: ScaffoldLanguage): string {
  const end = text.endsWith('\n') ? '' : '\n';
  // The wrapper is Peagen's, not the project's: its linter (`xo && ava`) and type check need not accept it.
  // (@ts-nocheck in JavaScript too: a project that type-checks its JS, `checkJs`, runs tsc in its tests.)
  const head = language === 'python' ? '' : '// @ts-nocheck\n/* eslint-disable */\n';
  // After a `#!` line, which must stay the first (an executable cli.js).
  const shebang = /^#!.*\n/.exec(text)?.[0] ?? '';
  if (language === 'python') return shebang + head + text.slice(shebang.length) + end + pythonTrace(functionName);
  const { program, holder } = reassignable(text, functionName);
  return shebang + head + program.slice(shebang.length) + end + javascriptTrace(functionName, holder);
}

/** The name of the object literal `export default {` opens in the traced copy (it has no name of its own). */
const DEFAULT_HOLDER = '__peagen_default_export__';

/**
 * The program the wrapper can trace, and the object that holds the function when it is a
 * member (`module.exports = { f(x) {…} }`, `exports.f = function`): the wrapper replaces that
 * property. `export const f = (...) =>` is made `export let f`, so that the wrapper can replace
 * the binding the tests import (an ES module's exports are live bindings; a const's cannot
 * change); `export default {` gets a name. Only in the traced copy, which nothing else reads.
 */
function reassignable(text: string, name: string): { program: string; holder?: string } {
  const lines = text.split('\n');
  const bare = lines.map((line) => line.replace(/\r$/, ''));
  const region = functionLines(bare, name, 'javascript');
  if (!region) return { program: text };
  const at = region.startLine;
  if (/^(?:module\.)?exports\./.test(bare[at]!)) return { program: text, holder: 'module.exports' };
  const holder = memberHolderAt(bare, at);
  if (holder === 'default') {
    const opener = bare.slice(0, at).findLastIndex((line) => /^export\s+default\s*\{/.test(line));
    lines[opener] = lines[opener]!.replace(/^export\s+default\s*\{/, `export default ${DEFAULT_HOLDER} = {`);
    return { program: `${lines.join('\n')}\nvar ${DEFAULT_HOLDER};`, holder: DEFAULT_HOLDER };
  }
  if (holder !== undefined) return { program: text, holder };
  const head = new RegExp(`^(\\s*(?:export\\s+)?)const(\\s+${name.replace(/\$/g, '\\$')}\\s*=)`);
  lines[at] = lines[at]!.replace(head, '$1let$2');
  return { program: lines.join('\n') };
}

// Rebinding the module-level name after the module has run: `from module import f` in a test
// (which runs after) gets the wrapper; calls the function makes to itself are not outermost.
function pythonTrace(name: string): string {
  return `

def _peagen_trace(original):
    import functools as _functools
    import json as _json
    import os as _os
    depth = [0]

    def plain(value):
        try:
            text = _json.dumps(value, allow_nan=False)
            return text if _json.loads(text) == value else None
        except (TypeError, ValueError):
            return None

    def wire(value, depth=0):
        # Peagen's process-boundary form (peagen_harness from_wire reads it) of what plain JSON
        # cannot say: bytes, bytearrays, tuples, sets, dicts with other keys (reedsolo's codecs), paths.
        kind = type(value)
        if depth > 100:
            raise ValueError("nested too deep")
        if value is None or kind in (str, bool, int):
            return value
        if kind is float:
            return value if value - value == 0 else {"$": "float", "v": str(value)}
        if kind is list:
            return [wire(item, depth + 1) for item in value]
        if kind in (tuple, set, frozenset):
            return {"$": kind.__name__, "v": [wire(item, depth + 1) for item in value]}
        if kind is dict:
            return {"$": "dict", "v": [[wire(k, depth + 1), wire(v, depth + 1)] for k, v in value.items()]}
        if kind in (bytes, bytearray):
            return {"$": kind.__name__, "v": value.hex()}
        # A path (gitignore_parser's tests pass a pathlib.Path) by its class's name and its text.
        if kind.__module__.split(".")[0] == "pathlib" and kind.__name__ in ("PurePosixPath", "PureWindowsPath", "PosixPath"):
            return {"$": "path", "v": [kind.__name__, str(value)]}
        raise TypeError(kind.__name__)

    def recorded(args):
        line = plain(list(args))
        if line is None:
            try:
                line = _json.dumps({"$wire": wire(list(args))}, allow_nan=False)
            except (TypeError, ValueError, AttributeError):
                return None
        return line

    try:
        import inspect as _inspect
        signature = _inspect.signature(original)
    except (TypeError, ValueError):
        signature = None

    keywords = [] if signature is None else [p.name for p in signature.parameters.values() if p.kind == p.KEYWORD_ONLY]

    def positional(args, kwargs):
        # Keyword arguments as the positions they fill, defaults filled in (reedsolo's tests call
        # rs_correct_msg(msg, nsym=4, erase_pos=[1])), and keyword-only ones after every
        # positional one, in their order (tomli-w's format_string(s, *, allow_multiline): the
        # evaluator's wrapper gives them back by name); None where that cannot say the call.
        if not kwargs and not keywords:
            return args
        if signature is None or any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in signature.parameters.values()):
            return None
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        return tuple(bound.args) + tuple(bound.arguments[name] for name in keywords)

    @_functools.wraps(original)
    def traced(*args, **kwargs):
        outermost = depth[0] == 0 and _os.environ.get("${CAPTURE_FILE_ENV}")
        # The arguments before the call: the function may change them.
        called = positional(args, kwargs) if outermost else None
        line = recorded(called) if called is not None else None
        answer = None
        depth[0] += 1
        try:
            result = original(*args, **kwargs)
            answer = plain(result)
            return result
        finally:
            # Also when it raised: that input is kept (without an answer), the error is the test's.
            depth[0] -= 1
            if line is not None and len(line) <= ${MAX_CAPTURED_CALL_CHARS}:
                keep = answer is not None and len(answer) <= ${MAX_CAPTURED_CALL_CHARS}
                record = '{"args": %s%s}' % (line, ', "answer": ' + answer if keep else "")
                with open(_os.environ["${CAPTURE_FILE_ENV}"], "a", encoding="utf-8") as fh:
                    fh.write(record + "\\n")
    return traced


${name} = _peagen_trace(${name})
`;
}

// CommonJS: the exported binding is replaced (tests require() the module after it has run). An
// ES module's exports are live bindings: reassigning a function declaration's name (\`export
// function f\`, \`export default function f\`) changes what importers call; a \`const\` is made a
// \`let\` for this (reassignable).
function javascriptTrace(name: string, holder: string | undefined): string {
  const reference = holder === undefined ? name : `${holder}.${name}`;
  return `
;(() => {
  const file = process.env.${CAPTURE_FILE_ENV};
  const fs = typeof require === 'function' ? require('fs') : process.getBuiltinModule('fs');
  // A function defined inside a wrapper (a UMD module's IIFE) is not bound at the file's top
  // level: it is found where the module exports it (simplify-js).
  const original = ${holder === undefined ? `typeof ${name} !== 'undefined' ? ${name} : typeof module === 'undefined' || !module.exports ? undefined : typeof module.exports === 'function' && module.exports.name === '${name}' ? module.exports : module.exports.${name}` : reference};
  if (typeof original !== 'function') return;
  const plain = (value) =>
    value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) ||
    (Array.isArray(value) && value.every(plain)) ||
    (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && Object.values(value).every(plain));
  let depth = 0;
  const traced = function (...args) {
    // The arguments before the call: the function may change them.
    const line = depth === 0 && file && args.every(plain) ? JSON.stringify(args) : null;
    let answer = null;
    depth += 1;
    try {
      const result = original.apply(this, args);
      if (result !== undefined && plain(result)) answer = JSON.stringify(result);
      return result;
    } finally {
      // Also when it threw: that input is kept (without an answer), the error is the test's.
      depth -= 1;
      if (line !== null && line.length <= ${MAX_CAPTURED_CALL_CHARS}) {
        const keep = answer !== null && answer.length <= ${MAX_CAPTURED_CALL_CHARS};
        fs.appendFileSync(file, '{"args":' + line + (keep ? ',"answer":' + answer : '') + '}\\n');
      }
    }
  };
  // What the function carries (module.exports = jsesc, with jsesc.version, which the tests
  // read) is carried by the wrapper too.
  for (const key of Reflect.ownKeys(original)) {
    if (['length', 'name', 'prototype', 'arguments', 'caller'].includes(key)) continue;
    try {
      Object.defineProperty(traced, key, Object.getOwnPropertyDescriptor(original, key));
    } catch {
      // a property the wrapper cannot take: left out
    }
  }
  if (${holder !== undefined}) ${reference} = traced;
  else if (typeof module === 'undefined') {
    try {
      ${name} = traced;
    } catch {
      // a const: not captured
    }
  } else if (module.exports === original) module.exports = traced;
  else if (module.exports && module.exports.${name} === original) module.exports.${name} = traced;
})();
`;
}
