/**
 * The functions `peagen init` can make an example for, found by reading lines: a top-level
 * `def`, `function`, `export function`, `const f = (...) =>` or `exports.f = function`, and a
 * function-valued member of an exported object literal (`module.exports = { f(x) {…} }`,
 * `export default { f: (x) => … }`). One module for both sides, so
 * the editor's "Evolve this function" lens is shown above exactly the functions init serves
 * (daemon/usecases/initExample.ts finds and checks the function with the same code). No
 * language server is needed: code-server and offline editors often have no Python extension.
 */
import type { LineRegion } from './lines';

export type FunctionLanguage = 'python' | 'javascript';

/** The patterns of a definition line; group 1 is the function's name. */
const FUNCTION_DEFINITIONS: Record<FunctionLanguage, RegExp[]> = {
  python: [/^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/],
  javascript: [/^\s*(?:export\s+(?:default\s+)?)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*[(<]/, /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|(?:<[^>]*>\s*)?\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)/, /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/],
};

/** A function-valued member of an object literal: `f(x) {`, `f: function (`, `f: (x) =>`; group 1 is its name. */
const OBJECT_MEMBER =
  /^\s+(?:async\s+)?([A-Za-z_$][\w$]*)\s*(?:(?:<[^>]*>\s*)?\([^)]*\)\s*(?::[^{]+)?\{|:\s*(?:async\s+)?(?:function\b|(?:<[^>]*>\s*)?\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>))/;
/** Statements and accessors that look like a member `NAME(...) {`. */
const NOT_MEMBERS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'with', 'do', 'else', 'get', 'set', 'constructor']);
/**
 * The top-level line that opens an object literal the module may export: group 1
 * `module.exports` / `exports.api`, group 2 `default` (`export default {`), group 3 a binding.
 */
const OBJECT_OPENER = /^(?:((?:module\.)?exports(?:\.[A-Za-z_$][\w$]*)?)\s*=|export\s+(default)|(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=)\s*\{\s*$/;

/**
 * What holds the function-valued member defined on line `at`, when it is a member of an
 * exported top-level object literal: the expression naming the object (`module.exports`,
 * `exports.api`, a binding, or `default` for `export default {`), else undefined. A binding's
 * object counts only when the module exports it (`export const`, `module.exports = NAME`,
 * `export default NAME`, `export { NAME }`): the evaluators reach the function through the
 * module's exports.
 */
export function memberHolderAt(lines: readonly string[], at: number): string | undefined {
  const found = OBJECT_MEMBER.exec(lines[at]!);
  if (!found || NOT_MEMBERS.has(found[1]!)) return undefined;
  const indent = indentOf(lines[at]!);
  for (let index = at - 1; index >= 0; index--) {
    const line = lines[index]!;
    if (line.trim() === '' || indentOf(line) >= indent) continue;
    // The nearest line less indented opens the object: it must be a top-level opener.
    return holderOfOpener(lines, line);
  }
  return undefined;
}

/**
 * How the evaluators reach the function `name` from the module's exports, read from the trusted
 * original: `exports.NAME` (an `exports.NAME = function`, or a member of `module.exports = {`),
 * `exports.default.NAME` (`export default {`), `exports.api.NAME` (`export const api = {`), or
 * NAME itself for a top-level function (its export of that name, else its own binding). A
 * path is followed through the exports' own data properties only, never through a binding: a
 * candidate that adds a top-level function of that name beside the object (its block can
 * close the object literal) is judged by what the module exports, as the tests use it.
 */
export function entryPathOf(text: string, name: string): string {
  const lines = text.split(/\r?\n/);
  const region = functionLines(lines, name, 'javascript');
  if (!region) return name;
  const head = lines[region.startLine]!;
  if (/^(?:module\.)?exports\./.test(head)) return `exports.${name}`;
  const holder = memberHolderAt(lines, region.startLine);
  if (holder === undefined) return name;
  if (holder === 'module.exports' || holder === 'exports') return `exports.${name}`;
  if (holder === 'default') return `exports.default.${name}`;
  const property = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/.exec(holder);
  if (property) return `exports.${property[1]}.${name}`;
  // A binding: as the module exports it.
  const escaped = holder.replace(/\$/g, '\\$');
  if (lines.some((line) => new RegExp(`^\\s*module\\.exports\\s*=\\s*${escaped}\\s*;?\\s*$`).test(line))) return `exports.${name}`;
  if (lines.some((line) => new RegExp(`^\\s*export\\s+default\\s+${escaped}\\s*;?\\s*$`).test(line))) return `exports.default.${name}`;
  return `exports.${holder}.${name}`;
}

/** Whether line `at` defines a member of an exported object literal (see memberHolderAt). */
export function isExportedMemberAt(lines: readonly string[], at: number, language: FunctionLanguage): boolean {
  return language === 'javascript' && memberHolderAt(lines, at) !== undefined;
}

function holderOfOpener(lines: readonly string[], opener: string): string | undefined {
  const open = OBJECT_OPENER.exec(opener);
  if (!open) return undefined;
  if (open[1] !== undefined) return open[1];
  if (open[2] !== undefined) return 'default';
  const name = open[3]!;
  if (/^export\s/.test(opener)) return name;
  const escaped = name.replace(/\$/g, '\\$');
  const exportedBy = new RegExp(`^\\s*(?:module\\.exports\\s*=\\s*${escaped}\\s*;?\\s*$|export\\s+default\\s+${escaped}\\s*;?\\s*$|export\\s*\\{[^}]*(?<![\\w$])${escaped}(?![\\w$]))`);
  return lines.some((line) => exportedBy.test(line)) ? name : undefined;
}

/**
 * The language init handles for a file name (.py; .js, .cjs, .mjs; TypeScript's .ts, .mts,
 * .cts, scanned as JavaScript: its types are stripped before it runs). Not .tsx.
 */
export function functionLanguageOfFile(fileName: string): FunctionLanguage | undefined {
  const extension = /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase();
  if (extension === 'py') return 'python';
  if (extension === 'js' || extension === 'cjs' || extension === 'mjs' || isTypeScriptFile(fileName)) return 'javascript';
  return undefined;
}

/** .ts, .mts, .cts: TypeScript whose types Node strips (not .tsx, not .d.ts). */
export function isTypeScriptFile(fileName: string): boolean {
  return /\.(c|m)?ts$/i.test(fileName) && !/\.d\.(c|m)?ts$/i.test(fileName);
}

const indentOf = (line: string): number => /^\s*/.exec(line)![0].length;

/** `const NAME = (` with its parameters on the lines below: an arrow function when `=>` follows them. */
const OPEN_ARROW_HEAD = /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:<[^>]*>\s*)?\([^)]*$/;
/** How many lines an arrow function's parameter list may span. */
const MAX_PARAMETER_LINES = 30;

/**
 * The name of the function whose definition starts on line `at`, if any. An arrow function
 * may spread its parameters over several lines (TypeScript's formatters do:
 * `export const f = (\n  a: string,\n) => {`); its lines are read together.
 */
export function nameDefinedAt(lines: readonly string[], at: number, language: FunctionLanguage): string | undefined {
  const line = lines[at]!;
  for (const pattern of FUNCTION_DEFINITIONS[language]) {
    const found = pattern.exec(line);
    if (found) return found[1];
  }
  if (language !== 'javascript') return undefined;
  if (memberHolderAt(lines, at) !== undefined) return OBJECT_MEMBER.exec(line)![1];
  const open = OPEN_ARROW_HEAD.exec(line);
  if (!open) return undefined;
  const joined = lines.slice(at, at + MAX_PARAMETER_LINES).join(' ');
  const arrow = /^\s*(?:export\s+)?(?:const|let|var)\s+[A-Za-z_$][\w$]*\s*=\s*(?:async\s+)?(?:<[^>]*>\s*)?\([^)]*\)\s*(?::[^=]+)?=>/;
  return arrow.test(joined) ? open[1] : undefined;
}

/**
 * The lines of the top-level-most definition of `name` (0-based, end exclusive): Python from
 * its decorators to the last line indented under it; JavaScript from the definition to the
 * brace (or, for a bodiless arrow function, the semicolon) that closes it. Undefined when the
 * file defines no such function, or its end cannot be told.
 */
export function functionLines(lines: readonly string[], name: string, language: FunctionLanguage): LineRegion | undefined {
  const starts = lines.map((line, index) => ({ line, index })).filter(({ index }) => nameDefinedAt(lines, index, language) === name);
  const sorted = starts.sort((a, b) => indentOf(a.line) - indentOf(b.line) || a.index - b.index);
  for (const start of sorted) {
    const region = definitionLines(lines, start.index, language);
    // A TypeScript overload signature (`function f(a: string): string;`) has no body: the
    // implementation below it is the function.
    if (region && language === 'javascript' && isOverloadSignature(lines.slice(region.startLine, region.endLine))) continue;
    return region;
  }
  return undefined;
}

function isOverloadSignature(definition: readonly string[]): boolean {
  const text = definition.join('\n');
  return /^\s*(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:async\s+)?function\b/.test(text) && !text.includes('{') && /;\s*$/.test(text);
}

function definitionLines(lines: readonly string[], at: number, language: FunctionLanguage, member = isExportedMemberAt(lines, at, language)): LineRegion | undefined {
  const head = lines[at]!;
  let start = at;
  if (language === 'python') {
    while (start > 0 && lines[start - 1]!.trim().startsWith('@') && indentOf(lines[start - 1]!) === indentOf(head)) start--;
    return { startLine: start, endLine: pythonDefinitionEnd(lines, at) };
  }
  // A member's bodiless arrow ends at its comma (`f: (x) => x + 1,`).
  const end = closingLine(lines, at, member);
  return end === undefined ? undefined : { startLine: start, endLine: end + 1 };
}

/**
 * The line after the last of the Python `def` at `at`: its header runs until its brackets
 * close (black's `def f(\n    a: int,\n) -> int:` puts the closing line at the def's own
 * indentation), its body while lines are indented deeper; lines inside a triple-quoted string
 * (a docstring's text at column 0), blank lines and comments do not end it.
 */
function pythonDefinitionEnd(lines: readonly string[], at: number): number {
  const indent = indentOf(lines[at]!);
  const state: PythonScan = { depth: 0, triple: undefined };
  let end = at + 1;
  for (let index = at; index < lines.length; index++) {
    const line = lines[index]!;
    const inside = state.depth > 0 || state.triple !== undefined;
    if (index > at && !inside) {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      if (indentOf(line) <= indent) break;
    }
    scanPythonLine(line, state);
    end = index + 1;
  }
  return end;
}

interface PythonScan {
  /** Open brackets. */
  depth: number;
  /** The quotes of the triple-quoted string open at the line's end. */
  triple: string | undefined;
}

/** Brackets and triple-quoted strings of one line of Python (strings and the comment skipped). */
function scanPythonLine(line: string, state: PythonScan): void {
  let quote: string | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (state.triple !== undefined) {
      if (char === '\\') index++;
      else if (line.startsWith(state.triple, index)) {
        index += 2;
        state.triple = undefined;
      }
    } else if (quote !== undefined) {
      if (char === '\\') index++;
      else if (char === quote) quote = undefined;
    } else if (char === '#') return;
    else if (char === '"' || char === "'") {
      if (line.startsWith(char.repeat(3), index)) {
        state.triple = char.repeat(3);
        index += 2;
      } else quote = char;
    } else if ('([{'.includes(char)) state.depth++;
    else if (')]}'.includes(char)) state.depth = Math.max(0, state.depth - 1);
  }
}

/** After these (or a line's start, or a keyword like `return`), a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);
const KEYWORDS_BEFORE_REGEX = /\b(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/;

/** The index of the `/` that closes the regular expression literal opening at `at` (classes and escapes skipped), or -1. */
function regexEnd(line: string, at: number): number {
  let inClass = false;
  for (let index = at + 1; index < line.length; index++) {
    const char = line[index]!;
    if (char === '\\') index++;
    else if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    else if (char === '/' && !inClass) return index;
  }
  return -1;
}

/** The line where the JavaScript definition starting at `from` ends (strings, templates, regular expressions and comments skipped). */
function closingLine(lines: readonly string[], from: number, member: boolean): number | undefined {
  let depth = 0;
  let opened = false;
  let quote: string | undefined;
  let blockComment = false;
  for (let index = from; index < lines.length; index++) {
    const line = lines[index]!;
    let before = '';
    for (let at = 0; at < line.length; at++) {
      const char = line[at]!;
      const previous = before;
      if (!blockComment && !quote && char.trim() !== '') before = char;
      if (blockComment) {
        if (char === '*' && line[at + 1] === '/') {
          blockComment = false;
          at++;
        }
      } else if (quote) {
        if (char === '\\') at++;
        else if (char === quote) quote = undefined;
      } else if (char === '/' && line[at + 1] === '/') break;
      else if (char === '/' && line[at + 1] === '*') {
        blockComment = true;
        at++;
      } else if (char === '/' && (BEFORE_REGEX.has(previous) || KEYWORDS_BEFORE_REGEX.test(line.slice(0, at).trimEnd()))) {
        // A regular expression literal: its quotes and brackets are not the code's.
        const end = regexEnd(line, at);
        if (end > at) {
          at = end;
          before = '/';
        }
      } else if (char === '"' || char === "'" || char === '`') quote = char;
      else if (char === '{' || char === '(' || char === '[') {
        depth++;
        if (char === '{' && depth === 1) opened = true;
      } else if (char === '}' || char === ')' || char === ']') {
        depth--;
        if (opened && depth === 0 && char === '}') return index;
        // A bodiless arrow, the last member of its object: the object's brace ends the line before.
        if (!opened && depth < 0) return index > from ? index - 1 : undefined;
      } else if ((char === ';' || (char === ',' && member)) && depth === 0 && !opened) return index;
    }
    // A template literal or a string may not span lines except a template: keep only that one open.
    if (quote && quote !== '`') quote = undefined;
  }
  return undefined;
}

/**
 * Why init cannot serve the function whose definition (decorators first) is `definition`: a
 * method or nested function, a JavaScript generator, an async function. Undefined when it can. The
 * evaluators call a plain top-level function and compare what it returns.
 */
export function unservedFunctionReason(definition: readonly string[], name: string, language: FunctionLanguage, exportedMember = false): string | undefined {
  const head = definition.find((line) => !line.trim().startsWith('@')) ?? '';
  // A member of an exported object is called as a plain function (no `this`).
  if (exportedMember && /\bthis\b/.test(definition.join('\n'))) return `${name} uses \`this\`: the evaluator calls it as a plain function; move its work to a top-level function the member calls`;
  if (/^\s+/.test(head) && !exportedMember) return `${name} is a method or a nested function: peagen init evolves top-level functions; move it to the top level (a method can call it)`;
  // A Python generator is read whole inside the timed call (and in the candidate's process
  // behind the boundary), its items compared as the answer; a JavaScript one is not.
  if (language !== 'python' && /function\s*\*/.test(head)) return `${name} is a generator: the evaluator compares returned answers; wrap it (function ${name}List(...) { return [...${name}(...)]; }) and evolve that`;
  if (/^\s*(export\s+)?(async\s+def|async\s+function)\b|=\s*async\b/.test(head)) return `${name} is async: the evaluator calls plain functions; evolve the synchronous function it awaits`;
  return undefined;
}

/** A longer file is not scanned (generated or bundled code): init copies whole projects, not these. */
export const MAX_SCANNED_CHARS = 2_000_000;

export interface ServableFunction {
  name: string;
  /** The definition's lines, decorators included (0-based, end exclusive). */
  region: LineRegion;
  /** The line of `def` / `function` / `const` itself: where a lens goes. */
  definitionLine: number;
}

/**
 * Every top-level function of the file that `peagen init` can serve, in file order: the first
 * definition of each name (init takes the top-level-most one), not a generator, not async,
 * with an end that can be told. Lines inside a Python triple-quoted string are not read as
 * definitions.
 */
export function servableFunctions(text: string, language: FunctionLanguage): ServableFunction[] {
  if (text.length > MAX_SCANNED_CHARS) return [];
  const lines = text.split(/\r?\n/);
  const found: ServableFunction[] = [];
  const seen = new Set<string>();
  let inPythonString: string | undefined;
  let topLevel = -1;
  let leastIndentSinceTop = Infinity;
  const holders = new Map<number, string | undefined>();
  const openerHolder = (at: number): string | undefined => {
    if (!holders.has(at)) holders.set(at, holderOfOpener(lines, lines[at]!));
    return holders.get(at);
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (language === 'python') {
      const wasInString = inPythonString !== undefined;
      inPythonString = tripleQuoteStateAfter(line, inPythonString);
      if (wasInString) continue;
    }
    // A member of an exported object literal: its opener is the last top-level line, with no
    // line less indented between (tracked here, so a long object is not searched per member).
    const indent = indentOf(line);
    const memberName =
      language === 'javascript' && indent > 0 && indent <= leastIndentSinceTop && topLevel >= 0 && line.trim() !== '' ? OBJECT_MEMBER.exec(line)?.[1] : undefined;
    const member = memberName !== undefined && !NOT_MEMBERS.has(memberName) && openerHolder(topLevel) !== undefined;
    if (line.trim() !== '') {
      if (indent === 0) {
        topLevel = index;
        leastIndentSinceTop = Infinity;
      } else leastIndentSinceTop = Math.min(leastIndentSinceTop, indent);
    }
    if (indent !== 0 && !member) continue;
    const name = member ? memberName : nameDefinedAt(lines, index, language);
    if (name === undefined || seen.has(name)) continue;
    seen.add(name);
    // init works on the top-level-most definition of the name, the first at indent 0: this one.
    // (Its lines found from here: searching the file again per function would make a lens
    // refresh of a long file quadratic.)
    const region = definitionLines(lines, index, language, member);
    if (!region) continue;
    if (unservedFunctionReason(lines.slice(region.startLine, region.endLine), name, language, member)) continue;
    found.push({ name, region, definitionLine: index });
  }
  return found;
}

/** Whether a Python triple-quoted string is open after `line` (the quote that opened it), given the state before it. */
function tripleQuoteStateAfter(line: string, open: string | undefined): string | undefined {
  let state = open;
  const code = state === undefined ? line.replace(/#.*$/, '') : line;
  for (let at = 0; at < code.length; at++) {
    const quote = code.startsWith('"""', at) ? '"""' : code.startsWith("'''", at) ? "'''" : undefined;
    if (!quote) continue;
    if (state === undefined) state = quote;
    else if (state === quote) state = undefined;
    at += 2;
  }
  return state;
}
