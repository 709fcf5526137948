/**
 * What a program's text says about its algorithm family, for the MAP-Elites grid's structural
 * axes (`structure:loops`, `structure:builtins`, `structure:recursion`, `structure:containers`):
 * how deeply its loops nest, how many distinct native built-ins it calls, whether a function
 * calls itself, and which hashed containers it builds (maps, sets). A stepping stone of another
 * family (a heap where the seed nests two loops, a recursion where it iterates, a running count
 * in a map where the quick gain builds a set per window) then lands in a niche of its own
 * instead of competing with the seed's neutral variants or the quick gain's.
 *
 * No parser of Python or JavaScript is among the dependencies, and a candidate need not even
 * parse: a token scan that knows where strings, comments, template literals and regular
 * expressions begin and end is enough, so that a `sorted` in a comment or a string is no call.
 * It is a measure, not a compiler: a construct it misreads moves a program to a neighbouring
 * niche, never fails it. Linear in the text (a few microseconds per candidate).
 */

/** The languages whose structure is read; any other language keeps the objective x length grid. */
export const STRUCTURE_LANGUAGES = ['python', 'javascript'] as const;
export type StructureLanguage = (typeof STRUCTURE_LANGUAGES)[number];

/** The structural axes a descriptor can read (`from: "structure:loops"`). */
export const STRUCTURE_AXES = ['loops', 'builtins', 'recursion', 'containers'] as const;
export type StructureAxis = (typeof STRUCTURE_AXES)[number];

export interface ProgramStructure {
  /** The deepest nesting of loops (comprehensions in Python, iteration callbacks in JS count). */
  loops: number;
  /** Distinct calls into native built-ins (`sorted`, `heapq.heappush`, `.sort`, `Math.max`, `new Map`). */
  builtins: number;
  /** 1 when a function calls itself, else 0. */
  recursion: number;
  /**
   * The hashed containers the program builds: MAP when it builds a map (a dict or `{}`, a
   * Counter, a `Map`), plus SET when it builds a set; 0 when neither. Counting with a map and
   * deduplicating with a set are different algorithms even at the same loop depth and built-in
   * count (trap_windows_js: a running count per value, against a `new Set` per window).
   */
  containers: number;
}

/** `containers` flags: the program builds a map, a set. */
export const CONTAINS_MAP = 1;
export const CONTAINS_SET = 2;

/**
 * The structural language of an example: its declared `language` (python; javascript,
 * typescript and node read as javascript), else its program file's extension; undefined for
 * any other.
 */
export function structureLanguage(language: string | undefined, programFile?: string): StructureLanguage | undefined {
  const declared = language?.trim().toLowerCase();
  if (declared) {
    if (declared === 'python' || declared === 'py' || declared === 'python3') return 'python';
    if (['javascript', 'js', 'typescript', 'ts', 'node', 'nodejs'].includes(declared)) return 'javascript';
    return undefined;
  }
  const extension = /\.([A-Za-z]+)$/.exec(programFile ?? '')?.[1]?.toLowerCase();
  if (extension === 'py') return 'python';
  if (extension && ['js', 'mjs', 'cjs', 'ts', 'mts', 'cts'].includes(extension)) return 'javascript';
  return undefined;
}

export function structureOf(code: string, language: StructureLanguage): ProgramStructure {
  return language === 'python' ? pythonStructure(code) : javascriptStructure(code);
}

// ---------------------------------------------------------------------------------------------
// Python

/** Names that are C-level built-ins when called bare. len, range, print, int, str and list are
 * in nearly every program and say nothing about its family, so they are left out. */
const PYTHON_BUILTINS = new Set([
  'sorted', 'sum', 'min', 'max', 'set', 'frozenset', 'dict', 'map', 'filter', 'any', 'all', 'zip', 'bytearray',
  'Counter', 'defaultdict', 'OrderedDict', 'deque',
]);
/** Modules whose every function is native (or a thin layer over native code). */
const PYTHON_NATIVE_MODULES = new Set(['heapq', 'bisect', 'itertools', 'collections', 'functools', 'operator', 'math', 'statistics', 'array']);
/** Calls that build a map, bare or as a module's attribute (`collections.Counter(`), and sets. */
const PYTHON_MAP_CALLS = new Set(['dict', 'Counter', 'defaultdict', 'OrderedDict', 'ChainMap', 'fromkeys']);
const PYTHON_SET_CALLS = new Set(['set', 'frozenset']);
/** Methods of the built-in types that do their loop in C. */
const PYTHON_NATIVE_METHODS = new Set(['sort', 'join', 'count', 'index', 'most_common', 'intersection', 'union', 'difference', 'translate', 'setdefault', 'fromkeys']);

interface Token {
  text: string;
  kind: 'name' | 'punct' | 'string' | 'number';
}

interface LogicalLine {
  indent: number;
  tokens: Token[];
}

const PYTHON_STRING_PREFIX = /^(?:[rRbBuUfFtT]|[rR][bBfFtT]|[bBfFtT][rR])$/;

/** Python's logical lines (physical lines joined inside brackets and after `\`), comments dropped, strings as one token. */
function pythonLines(code: string): LogicalLine[] {
  const lines: LogicalLine[] = [];
  let tokens: Token[] = [];
  let indent = 0;
  let atLineStart = true;
  let depth = 0;
  let at = 0;
  const end = code.length;
  const finishLine = (): void => {
    if (tokens.length > 0) lines.push({ indent, tokens });
    tokens = [];
    atLineStart = true;
  };
  while (at < end) {
    const char = code[at]!;
    if (atLineStart) {
      let width = 0;
      while (at < end && (code[at] === ' ' || code[at] === '\t')) {
        width += code[at] === '\t' ? 8 - (width % 8) : 1;
        at++;
      }
      indent = width;
      atLineStart = false;
      continue;
    }
    if (char === '\n') {
      at++;
      if (depth === 0) finishLine();
      continue;
    }
    if (char === ' ' || char === '\t' || char === '\r' || char === '\f') {
      at++;
      continue;
    }
    if (char === '\\' && code[at + 1] === '\n') {
      at += 2;
      continue;
    }
    if (char === '#') {
      while (at < end && code[at] !== '\n') at++;
      continue;
    }
    if (char === '"' || char === "'") {
      at = skipPythonString(code, at);
      tokens.push({ text: '"', kind: 'string' });
      continue;
    }
    if (isNameStart(char)) {
      const start = at;
      while (at < end && isNamePart(code[at]!)) at++;
      const text = code.slice(start, at);
      if ((code[at] === '"' || code[at] === "'") && PYTHON_STRING_PREFIX.test(text)) {
        at = skipPythonString(code, at);
        tokens.push({ text: '"', kind: 'string' });
        continue;
      }
      tokens.push({ text, kind: 'name' });
      continue;
    }
    if (isDigit(char)) {
      const start = at;
      while (at < end && (isNamePart(code[at]!) || code[at] === '.')) at++;
      tokens.push({ text: code.slice(start, at), kind: 'number' });
      continue;
    }
    if (char === '(' || char === '[' || char === '{') depth++;
    else if ((char === ')' || char === ']' || char === '}') && depth > 0) depth--;
    tokens.push({ text: char, kind: 'punct' });
    at++;
  }
  finishLine();
  return lines;
}

/** The index just past the string literal whose quote is at `at` (single, triple; unterminated: the line's or text's end). */
function skipPythonString(code: string, at: number): number {
  const quote = code[at]!;
  const triple = code[at + 1] === quote && code[at + 2] === quote;
  let index = at + (triple ? 3 : 1);
  while (index < code.length) {
    const char = code[index]!;
    if (char === '\\') {
      index += 2;
      continue;
    }
    if (triple) {
      if (char === quote && code[index + 1] === quote && code[index + 2] === quote) return index + 3;
    } else {
      if (char === quote) return index + 1;
      if (char === '\n') return index;
    }
    index++;
  }
  return index;
}

interface PythonBlock {
  indent: number;
  kind: 'loop' | 'def';
  name?: string;
}

function pythonStructure(code: string): ProgramStructure {
  const lines = pythonLines(code);
  const blocks: PythonBlock[] = [];
  const builtins = new Set<string>();
  /** Names imported from a native module (`from heapq import heappush`): calling them is calling it. */
  const imported = new Map<string, string>();
  let loops = 0;
  let recursion = 0;
  let containers = 0;
  for (const { indent, tokens } of lines) {
    containers |= pythonContainers(tokens);
    while (blocks.length > 0 && blocks[blocks.length - 1]!.indent >= indent) blocks.pop();
    let first = 0;
    if (tokens[0]?.text === 'async') first = 1;
    const head = tokens[first]?.text;
    // Loops open around the statements below them, up to the nearest function (a def inside a
    // loop is not run per iteration by being there).
    let statementLoops = 0;
    for (let index = blocks.length - 1; index >= 0 && blocks[index]!.kind !== 'def'; index--) statementLoops++;
    if (head === 'for' || head === 'while') {
      statementLoops++;
      blocks.push({ indent, kind: 'loop' });
    } else if (head === 'def' && tokens[first + 1]?.kind === 'name') {
      blocks.push({ indent, kind: 'def', name: tokens[first + 1]!.text });
      statementLoops = 0;
    } else if (head === 'class') {
      blocks.push({ indent, kind: 'def' });
      statementLoops = 0;
    }
    if (head === 'from' && tokens[1] && PYTHON_NATIVE_MODULES.has(tokens[1].text) && tokens[2]?.text === 'import') {
      for (const token of tokens.slice(3)) if (token.kind === 'name' && token.text !== 'as') imported.set(token.text, `${tokens[1].text}.${token.text}`);
    }
    // `name = lambda ...: ... name(...)` calls itself as surely as a def does.
    const lambdaName = tokens[0]?.kind === 'name' && tokens[1]?.text === '=' && tokens[2]?.text === 'lambda' ? tokens[0].text : undefined;
    const functions = blocks.filter((block) => block.kind === 'def' && block.name).map((block) => block.name!);
    if (lambdaName) functions.push(lambdaName);
    const decorator = tokens[0]?.text === '@';
    loops = Math.max(loops, statementLoops + comprehensionDepth(tokens));
    for (let index = 0; index < tokens.length; index++) {
      const token = tokens[index]!;
      if (token.kind !== 'name') continue;
      const previous = tokens[index - 1]?.text;
      const next = tokens[index + 1]?.text;
      const called = next === '(' || (decorator && index === 1);
      if (previous === '.') {
        const owner = tokens[index - 2];
        if (owner?.kind === 'name' && PYTHON_NATIVE_MODULES.has(owner.text) && (called || decorator)) builtins.add(`${owner.text}.${token.text}`);
        else if (next === '(' && PYTHON_NATIVE_METHODS.has(token.text)) builtins.add(`.${token.text}`);
        else if (next === '(' && owner?.text === 'self' && tokens[index - 3]?.text !== '.' && functions.includes(token.text)) recursion = 1;
        continue;
      }
      if (!called || previous === 'def' || previous === 'class') continue;
      if (PYTHON_BUILTINS.has(token.text)) builtins.add(token.text);
      else if (imported.has(token.text)) builtins.add(imported.get(token.text)!);
      if (next === '(' && functions.includes(token.text) && !(token.text === lambdaName && index === 0)) recursion = 1;
    }
  }
  return { loops, builtins: builtins.size, recursion, containers };
}

/**
 * The hashed containers one logical line builds: a call of dict, Counter, defaultdict... or
 * set, frozenset; a brace literal or comprehension, a map when it is empty, has a `:` of its
 * own or unpacks a mapping (`{}`, `{k: v}`, `{k: v for ...}`, `{**a, **b}`), else a set
 * (`{a, b}`, `{x for ...}`).
 */
function pythonContainers(tokens: readonly Token[]): number {
  let found = 0;
  /** Per open bracket: a `{` literal's state (whether a `:` or anything stood at its own depth). */
  const stack: { brace: boolean; colon: boolean; items: boolean }[] = [];
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    const text = token.text;
    if (token.kind === 'name' && tokens[index + 1]?.text === '(' && tokens[index - 1]?.text !== 'def') {
      if (PYTHON_MAP_CALLS.has(text)) found |= CONTAINS_MAP;
      else if (PYTHON_SET_CALLS.has(text) && tokens[index - 1]?.text !== '.') found |= CONTAINS_SET;
    }
    const inner = stack[stack.length - 1];
    if (text === '(' || text === '[' || text === '{') {
      if (inner) inner.items = true;
      if (token.kind === 'punct') stack.push({ brace: text === '{', colon: false, items: false });
      continue;
    }
    if (token.kind === 'punct' && (text === ')' || text === ']' || text === '}')) {
      const closed = stack.pop();
      if (closed?.brace && text === '}') found |= closed.colon || !closed.items ? CONTAINS_MAP : CONTAINS_SET;
      continue;
    }
    if (!inner) continue;
    if (token.kind === 'punct' && (text === ':' || (text === '*' && tokens[index + 1]?.text === '*' && inner.brace && !inner.items))) inner.colon = true;
    else inner.items = true;
  }
  return found;
}

/**
 * The loop levels comprehensions and generator expressions add on one logical line: each `for`
 * inside brackets is a level, and a bracket's levels add to those of the brackets around it.
 */
function comprehensionDepth(tokens: readonly Token[]): number {
  /** Per open bracket: the `for`s directly in it and the deepest bracket closed inside it. */
  const stack: { fors: number; inner: number }[] = [];
  let deepest = 0;
  for (const token of tokens) {
    if (token.kind !== 'punct' && token.text !== 'for') continue;
    const text = token.text;
    if (text === '(' || text === '[' || text === '{') stack.push({ fors: 0, inner: 0 });
    else if ((text === ')' || text === ']' || text === '}') && stack.length > 0) {
      const closed = stack.pop()!;
      const levels = closed.fors + closed.inner;
      if (stack.length > 0) stack[stack.length - 1]!.inner = Math.max(stack[stack.length - 1]!.inner, levels);
      else deepest = Math.max(deepest, levels);
    } else if (text === 'for' && stack.length > 0) stack[stack.length - 1]!.fors++;
  }
  // Unclosed brackets (a candidate cut short) still count.
  while (stack.length > 0) {
    const closed = stack.pop()!;
    const levels = closed.fors + closed.inner;
    if (stack.length > 0) stack[stack.length - 1]!.inner = Math.max(stack[stack.length - 1]!.inner, levels);
    else deepest = Math.max(deepest, levels);
  }
  return deepest;
}

// ---------------------------------------------------------------------------------------------
// JavaScript (and TypeScript, read as JavaScript)

/** Globals whose calls are native: `Math.max(`, `Array.from(`, `new Map(`. */
const JS_NATIVE_OBJECTS = new Set(['Math', 'Array', 'Object', 'JSON', 'Number', 'String', 'Atomics', 'Reflect']);
const JS_NATIVE_CONSTRUCTORS = new Set([
  'Map', 'Set', 'WeakMap', 'WeakSet', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
  'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'ArrayBuffer',
]);
/** Methods of the built-in types that do their loop natively. */
const JS_NATIVE_METHODS = new Set(['sort', 'join', 'indexOf', 'lastIndexOf', 'includes', 'fill', 'reverse', 'split', 'concat', 'copyWithin', 'toSorted', 'localeCompare']);
/** Array methods whose callback runs once per element: a loop level. */
const JS_ITERATION_METHODS = new Set(['map', 'forEach', 'reduce', 'reduceRight', 'filter', 'some', 'every', 'find', 'findIndex', 'findLast', 'findLastIndex', 'flatMap']);
/** After these, a `/` starts a regular expression, not a division. */
const JS_KEYWORDS_BEFORE_EXPRESSION = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await']);
/** A `(...) {` after these is a block, not a function. */
const JS_BLOCK_KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with']);

/** JavaScript's tokens, comments dropped, strings, template literals' text and regular expressions as one string token each. */
function javascriptTokens(code: string): Token[] {
  const tokens: Token[] = [];
  /** Per template literal whose `${` is open: the brace depth its expression started at. */
  const templates: number[] = [];
  let braces = 0;
  let at = 0;
  const end = code.length;
  const regexAllowed = (): boolean => {
    const last = tokens[tokens.length - 1];
    if (!last) return true;
    if (last.kind === 'name') return JS_KEYWORDS_BEFORE_EXPRESSION.has(last.text);
    if (last.kind === 'number' || last.kind === 'string') return false;
    return last.text !== ')' && last.text !== ']' && last.text !== '}';
  };
  /** Reads template text from `index` (after a backtick or a closing `}`) to its end or its next `${`. */
  const templateText = (index: number): number => {
    while (index < end) {
      const char = code[index]!;
      if (char === '\\') index += 2;
      else if (char === '`') return index + 1;
      else if (char === '$' && code[index + 1] === '{') {
        templates.push(braces);
        braces++;
        return index + 2;
      } else index++;
    }
    return index;
  };
  while (at < end) {
    const char = code[at]!;
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
      at++;
      continue;
    }
    if (char === '/' && code[at + 1] === '/') {
      while (at < end && code[at] !== '\n') at++;
      continue;
    }
    if (char === '/' && code[at + 1] === '*') {
      const close = code.indexOf('*/', at + 2);
      at = close < 0 ? end : close + 2;
      continue;
    }
    if (char === '"' || char === "'") {
      at++;
      while (at < end && code[at] !== char && code[at] !== '\n') at += code[at] === '\\' ? 2 : 1;
      at++;
      tokens.push({ text: '"', kind: 'string' });
      continue;
    }
    if (char === '`') {
      at = templateText(at + 1);
      tokens.push({ text: '"', kind: 'string' });
      continue;
    }
    if (char === '/' && regexAllowed()) {
      at++;
      let inClass = false;
      while (at < end && code[at] !== '\n') {
        const inner = code[at]!;
        if (inner === '\\') at++;
        else if (inner === '[') inClass = true;
        else if (inner === ']') inClass = false;
        else if (inner === '/' && !inClass) break;
        at++;
      }
      at++;
      while (at < end && isNamePart(code[at]!)) at++;
      tokens.push({ text: '"', kind: 'string' });
      continue;
    }
    if (isNameStart(char) || char === '$') {
      const start = at;
      while (at < end && (isNamePart(code[at]!) || code[at] === '$')) at++;
      tokens.push({ text: code.slice(start, at), kind: 'name' });
      continue;
    }
    if (isDigit(char)) {
      const start = at;
      while (at < end && (isNamePart(code[at]!) || code[at] === '.')) at++;
      tokens.push({ text: code.slice(start, at), kind: 'number' });
      continue;
    }
    if (char === '=' && code[at + 1] === '>') {
      tokens.push({ text: '=>', kind: 'punct' });
      at += 2;
      continue;
    }
    if (char === '{') braces++;
    if (char === '}') {
      if (templates.length > 0 && templates[templates.length - 1] === braces - 1) {
        // The end of a template's `${...}`: back to its text (the whole literal is one token).
        templates.pop();
        braces--;
        at = templateText(at + 1);
        continue;
      }
      braces = Math.max(0, braces - 1);
    }
    tokens.push({ text: char, kind: 'punct' });
    at++;
  }
  return tokens;
}

interface JsGroup {
  /** `(`, `[` or `{`. */
  open: string;
  /** Loop levels around the code inside. */
  loops: number;
  /** The function this group is the body of. */
  fn?: string;
  /** The callback of an iteration method (`.map(`): a function opened directly inside keeps its loop level. */
  iteration?: boolean;
  /** A `for (...)` / `while (...)` header: its body is one level deeper. */
  loopHeader?: boolean;
  /** The name before an opening `(` (a call's or a definition's), for a `{` after its `)`. */
  owner?: string;
  /** Where a definition's parameters can be (`function f(`, a method `f(` after `{`, `;`, `}`, `async`...): a `:` after them starts a return type, not a ternary's branch. */
  definition?: boolean;
}

/** Before a method's name (`async f(`, `static f(`), or where a statement starts. */
const JS_BEFORE_DEFINITION = new Set(['function', '{', '}', ';', 'async', 'static', 'get', 'set', 'public', 'private', 'protected', 'override']);

function javascriptStructure(code: string): ProgramStructure {
  const tokens = javascriptTokens(code);
  const groups: JsGroup[] = [];
  const builtins = new Set<string>();
  let loops = 0;
  let recursion = 0;
  /** Loops without braces (`for (...) total += x;`): levels that end at the statement's `;`, by group depth. */
  let statementLoops: { depth: number }[] = [];
  /** The `)` just closed, when its group was a loop header or had an owner. */
  let closed: JsGroup | undefined;
  /** A TypeScript signature's parameters while its return type is read (`f(x: T): T {`), at the depth they closed. */
  let signature: { group: JsGroup; depth: number } | undefined;
  /** The name a function expression or arrow being assigned will have (`const fib = (n) =>`). */
  let assigned: string | undefined;
  /** An arrow function with an expression body: its name is active until its statement ends. */
  let expressionArrows: { name: string; depth: number }[] = [];
  const top = (): JsGroup | undefined => groups[groups.length - 1];
  const currentLoops = (): number => (top()?.loops ?? 0) + statementLoops.filter((loop) => loop.depth === groups.length).length;
  const activeFunctions = (): string[] => [
    ...groups.filter((group) => group.fn !== undefined).map((group) => group.fn!),
    ...expressionArrows.map((arrow) => arrow.name),
  ];
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    const previous = tokens[index - 1];
    const next = tokens[index + 1];
    let justClosed = closed;
    closed = undefined;
    if (signature && token.text === '{' && groups.length === signature.depth) {
      // The body after a return type: as if it followed the parameters' `)`.
      justClosed = signature.group;
      signature = undefined;
    } else if (signature && (token.text === ';' || token.text === '=>' || token.text === '=' || groups.length < signature.depth)) signature = undefined;
    if (token.kind === 'name') {
      if (previous?.text !== '.' && next?.text === '=' && tokens[index + 2]?.text !== '=') assigned = token.text;
      if (token.text === 'do' && next?.text === '{') {
        // `do { ... } while (...)`: the braces are the loop's body.
        groups.push({ open: '{', loops: currentLoops() + 1 });
        loops = Math.max(loops, top()!.loops);
        index++;
        continue;
      }
      if (next?.text === '(') {
        if (previous?.text === '.') {
          const owner = tokens[index - 2];
          if (JS_NATIVE_METHODS.has(token.text)) builtins.add(`.${token.text}`);
          else if (owner?.kind === 'name' && JS_NATIVE_OBJECTS.has(owner.text)) builtins.add(`${owner.text}.${token.text}`);
          else if (owner?.text === 'this' && activeFunctions().includes(token.text)) recursion = 1;
        } else {
          if (JS_NATIVE_CONSTRUCTORS.has(token.text)) builtins.add(token.text);
          if (previous?.text !== 'function' && activeFunctions().includes(token.text)) recursion = 1;
        }
      } else if (previous?.text === 'new' && JS_NATIVE_CONSTRUCTORS.has(token.text)) builtins.add(token.text);
      continue;
    }
    if (token.kind !== 'punct') continue;
    const text = token.text;
    if (text === '(') {
      const owner = previous?.kind === 'name' ? previous.text : undefined;
      const iteration = owner !== undefined && tokens[index - 2]?.text === '.' && JS_ITERATION_METHODS.has(owner);
      const loopHeader = owner === 'for' || owner === 'while';
      const before = tokens[index - 2];
      const definition = owner !== undefined && (owner === 'function' || before === undefined || JS_BEFORE_DEFINITION.has(before.text));
      groups.push({
        open: '(',
        loops: currentLoops() + (iteration ? 1 : 0),
        ...(iteration && { iteration }),
        ...(loopHeader && { loopHeader }),
        ...(owner !== undefined && { owner }),
        ...(definition && { definition }),
      });
      loops = Math.max(loops, top()!.loops);
    } else if (text === '[') {
      groups.push({ open: '[', loops: currentLoops() });
    } else if (text === '{') {
      const around = top();
      const keepLoops = around?.iteration === true;
      let group: JsGroup;
      const afterParameters = previous?.text === ')' || justClosed !== undefined;
      if (previous?.text === '=>' || (afterParameters && justClosed?.owner === 'function')) {
        group = { open: '{', loops: keepLoops ? currentLoops() : 0, ...(assigned !== undefined && { fn: assigned }) };
        assigned = undefined;
      } else if (afterParameters && justClosed?.loopHeader) {
        group = { open: '{', loops: currentLoops() + 1 };
      } else if (afterParameters && justClosed?.owner !== undefined && !JS_BLOCK_KEYWORDS.has(justClosed.owner)) {
        // `function fib(n) {` or a method `fib(n) {`.
        group = { open: '{', loops: keepLoops ? currentLoops() : 0, fn: justClosed.owner };
      } else {
        group = { open: '{', loops: currentLoops() };
      }
      groups.push(group);
      loops = Math.max(loops, group.loops);
    } else if (text === ')' || text === ']' || text === '}') {
      const depth = groups.length;
      statementLoops = statementLoops.filter((loop) => loop.depth < depth);
      expressionArrows = expressionArrows.filter((arrow) => arrow.depth < depth);
      const group = groups.pop();
      if (text === ')' && group) {
        closed = group;
        if (next?.text === ':' && group.definition) signature = { group, depth: groups.length };
        // `for (...) statement;` without braces: the statement is one level deeper.
        if (group.loopHeader && next?.text !== '{') {
          statementLoops.push({ depth: groups.length });
          loops = Math.max(loops, currentLoops());
        }
      }
    } else if (text === '=>') {
      if (next?.text !== '{') {
        // An expression body: it ends with its statement (`;`, `,` or the group around it closing).
        if (assigned !== undefined) expressionArrows.push({ name: assigned, depth: groups.length });
        assigned = undefined;
      }
    } else if (text === ';' || text === ',') {
      statementLoops = statementLoops.filter((loop) => loop.depth < groups.length);
      expressionArrows = expressionArrows.filter((arrow) => arrow.depth < groups.length);
      if (text === ';') assigned = undefined;
    }
  }
  return { loops, builtins: builtins.size, recursion, containers: javascriptContainers(tokens) };
}

/** After these, a `{` starts an object literal (an expression), not a block. */
const JS_BEFORE_OBJECT_LITERAL = new Set(['=', '(', ',', '[', ':', '?', '|', '&', 'return']);

/**
 * The hashed containers a JavaScript program builds: `new Map` or `new WeakMap`, an
 * `Object.create(null)` or an empty object literal in an expression (`const counts = {}`: an
 * object that starts empty is filled by computed keys, as a map), and `new Set` or `new WeakSet`.
 */
function javascriptContainers(tokens: readonly Token[]): number {
  let found = 0;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    const previous = tokens[index - 1]?.text;
    if (token.kind === 'name' && previous === 'new') {
      if (token.text === 'Map' || token.text === 'WeakMap') found |= CONTAINS_MAP;
      else if (token.text === 'Set' || token.text === 'WeakSet') found |= CONTAINS_SET;
    } else if (token.text === 'create' && previous === '.' && tokens[index - 2]?.text === 'Object' && tokens[index + 2]?.text === 'null') {
      found |= CONTAINS_MAP;
    } else if (token.kind === 'punct' && token.text === '{' && tokens[index + 1]?.text === '}' && previous !== undefined && JS_BEFORE_OBJECT_LITERAL.has(previous)) {
      found |= CONTAINS_MAP;
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------

function isNameStart(char: string): boolean {
  return (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || char === '_' || char > '\x7f';
}

function isNamePart(char: string): boolean {
  return isNameStart(char) || isDigit(char);
}

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}
