/**
 * Cheap rejection before a sandbox is spent: a child that declares a function (in Python, a
 * function or a class) a second time in one scope. The later declaration silently replaces the
 * earlier, so the program runs as before or as the copy, but the file now holds dead code every
 * linter refuses ("'simplify' is already defined", pyflakes' F811), and what is applied fails
 * the project's own checks. Models do it when they append a new version instead of editing the
 * old one (the LLM patch mutator asks for a repair). The offline mutator's copy does it too, but
 * is not checked here yet: recorded runs replay its draws, and a new refusal changes them. A repeat the parent has
 * already (Python's `if`/`else` definitions are in two blocks; decorated ones, such as
 * `@overload` or `@f.register`, are not counted) is the user's, and is not held against a child.
 */
import { normalizeNewlines } from '../../../shared/lines';
import { initialScanState, scanLine, type Syntax } from './scan';

/** Why `child` is refused (its first new repeat), or undefined. */
export function redeclaration(parent: string, child: string, syntax: Syntax): string | undefined {
  const before = new Set(repeatedDeclarations(parent, syntax).map((repeat) => repeat.name));
  const added = repeatedDeclarations(child, syntax).find((repeat) => !before.has(repeat.name));
  if (!added) return undefined;
  return `the program declares ${added.name}() twice in one scope (lines ${added.first} and ${added.line}): the later replaces the earlier, which is left as dead code (linters refuse it). Edit the one declaration instead of adding another.`;
}

interface Repeat {
  name: string;
  /** 1-based lines of the first declaration and of the repeat. */
  first: number;
  line: number;
}

const PYTHON_DECLARATION = /^\s*(?:async\s+def|def|class)\s+([A-Za-z_]\w*)/;
const BRACE_DECLARATION = /^\s*(?:export\s+(?:default\s+)?)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*[(<]/;

/** Declarations of a name already declared in the same scope, in order. */
function repeatedDeclarations(code: string, syntax: Syntax): Repeat[] {
  const state = initialScanState();
  const firstLine = new Map<string, number>();
  const repeats: Repeat[] = [];
  // Open blocks, innermost last: Python by indentation, brace code by `{`. Each has an id of its own.
  const blocks: { indent: number; id: number }[] = [{ indent: 0, id: 0 }];
  let nextId = 1;
  let decorated = false;
  const lines = normalizeNewlines(code).split('\n');
  lines.forEach((line, index) => {
    // Inside a string, a comment or an expression's brackets (brace code's blocks are `{`, not continuations).
    const innermost = state.brackets[state.brackets.length - 1];
    const continued = state.openString !== null || state.inBlockComment || (innermost !== undefined && (syntax === 'python' || innermost !== '{'));
    const scan = scanLine(line, state, syntax);
    if (scan.broken) return;
    let name: string | undefined;
    if (syntax === 'python') {
      if (continued || scan.commentOnly) return;
      const indent = line.length - line.trimStart().length;
      while (blocks.length > 1 && blocks[blocks.length - 1]!.indent > indent) blocks.pop();
      if (blocks[blocks.length - 1]!.indent < indent) blocks.push({ indent, id: nextId++ });
      if (/^\s*@/.test(scan.code)) {
        decorated = true;
        return;
      }
      name = decorated ? undefined : PYTHON_DECLARATION.exec(scan.code)?.[1];
      decorated = false;
    } else {
      // A declaration with a body (a TypeScript overload's signature ends with `;` and has none).
      name = continued ? undefined : BRACE_DECLARATION.exec(scan.code)?.[1];
      if (name !== undefined && !scan.code.includes('{') && scan.code.trimEnd().endsWith(';')) name = undefined;
    }
    if (name !== undefined) {
      const key = `${blocks[blocks.length - 1]!.id}\t${name}`;
      const first = firstLine.get(key);
      if (first === undefined) firstLine.set(key, index + 1);
      else repeats.push({ name, first, line: index + 1 });
    }
    if (syntax === 'brace') {
      for (const bracket of scan.brackets) {
        if (bracket === '{') blocks.push({ indent: 0, id: nextId++ });
        else if (bracket === '}' && blocks.length > 1) blocks.pop();
      }
    }
  });
  return repeats;
}
