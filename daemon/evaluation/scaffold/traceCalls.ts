/**
 * Behaviour capture: the program with the function wrapped so that every outermost call
 * appends its arguments (one JSON array a line) to the file named by PEAGEN_CAPTURE_FILE. Run
 * once with the project's tests, it tells what inputs the function really gets. Calls whose
 * arguments are not plain JSON data (objects with methods, keyword arguments, undefined) are
 * skipped, not approximated: an evaluator replays each recorded call exactly.
 */
import type { ScaffoldLanguage } from './scaffoldExample';

export const CAPTURE_FILE_ENV = 'PEAGEN_CAPTURE_FILE';
/** Larger argument lists are not worth replaying on every evaluation. */
export const MAX_CAPTURED_CALL_CHARS = 100_000;

/** The program's text with the tracing wrapper appended, or why the function cannot be traced. */
export function tracedSource(text: string, functionName: string, language: ScaffoldLanguage): string {
  const end = text.endsWith('\n') ? '' : '\n';
  return text + end + (language === 'python' ? pythonTrace(functionName) : javascriptTrace(functionName));
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

    @_functools.wraps(original)
    def traced(*args, **kwargs):
        if depth[0] == 0 and not kwargs and _os.environ.get("${CAPTURE_FILE_ENV}"):
            try:
                line = _json.dumps(list(args), allow_nan=False)
                plain = _json.loads(line) == list(args)
            except (TypeError, ValueError):
                plain = False
            if plain and len(line) <= ${MAX_CAPTURED_CALL_CHARS}:
                with open(_os.environ["${CAPTURE_FILE_ENV}"], "a", encoding="utf-8") as fh:
                    fh.write(line + "\\n")
        depth[0] += 1
        try:
            return original(*args, **kwargs)
        finally:
            depth[0] -= 1
    return traced


${name} = _peagen_trace(${name})
`;
}

// CommonJS: the exported binding is replaced (tests require() the module after it has run); in an
// ES module the wrapper does nothing.
function javascriptTrace(name: string): string {
  return `
;(() => {
  // An ES module has no module.exports to replace: its calls are not captured.
  if (typeof module === 'undefined') return;
  const file = process.env.${CAPTURE_FILE_ENV};
  const original = ${name};
  const plain = (value) =>
    value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) ||
    (Array.isArray(value) && value.every(plain)) ||
    (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && Object.values(value).every(plain));
  let depth = 0;
  const traced = function (...args) {
    if (depth === 0 && file && args.every(plain)) {
      const line = JSON.stringify(args);
      if (line.length <= ${MAX_CAPTURED_CALL_CHARS}) require('fs').appendFileSync(file, line + '\\n');
    }
    depth += 1;
    try {
      return original.apply(this, args);
    } finally {
      depth -= 1;
    }
  };
  if (module.exports === original) module.exports = traced;
  else if (module.exports && module.exports.${name} === original) module.exports.${name} = traced;
})();
`;
}
