/**
 * The structure a program's text shows (daemon/evolution/evodb/structure.ts): loop nesting,
 * distinct native built-ins, recursion, the hashed containers built; what is in a comment, a string, a template literal or
 * a regular expression is no code.
 */
import * as assert from 'node:assert/strict';
import { CONTAINS_MAP, CONTAINS_SET, structureLanguage, structureOf } from '../../daemon/evolution/evodb/structure';

const python = (code: string) => structureOf(code, 'python');
const js = (code: string) => structureOf(code, 'javascript');

describe('program structure: Python', () => {
  it('nests statement loops, and a def inside a loop starts again from none', () => {
    const code = [
      'def bubble(xs):',
      '    for i in range(len(xs)):',
      '        for j in range(len(xs) - 1):',
      '            if xs[j] > xs[j + 1]:',
      '                xs[j], xs[j + 1] = xs[j + 1], xs[j]',
      '    while False:',
      '        pass',
      '    return xs',
      '',
    ].join('\n');
    assert.equal(python(code).loops, 2);
    const defInLoop = ['for name in names:', '    def helper(x):', '        return x', '    total = helper(name)', ''].join('\n');
    assert.equal(python(defInLoop).loops, 1);
  });

  it('counts comprehensions and generator expressions as loop levels, nested ones deeper', () => {
    assert.equal(python('squares = [x * x for x in xs]\n').loops, 1);
    assert.equal(python('pairs = [(a, b) for a in xs for b in ys]\n').loops, 2);
    assert.equal(python('grid = [[c for c in row] for row in rows]\n').loops, 2);
    assert.equal(python('def f(rows):\n    for row in rows:\n        yield sum(v for v in row)\n').loops, 2);
    // Spread over lines inside its brackets: one logical line.
    assert.equal(python('total = sum(\n    x\n    for x in xs\n)\nfor y in ys: pass\n').loops, 1);
  });

  it('counts distinct native built-ins: bare, through their module, imported from it, native methods', () => {
    const code = [
      'import heapq',
      'from collections import Counter',
      'from bisect import insort as put',
      'def f(xs):',
      '    heapq.heapify(xs)',
      '    heapq.heapify(xs)',
      '    counts = Counter(xs)',
      '    put(xs, 3)',
      '    return ",".join(sorted(set(xs))), max(xs), len(xs), range(3)',
      '',
    ].join('\n');
    // heapq.heapify, Counter, put (bisect.insort: "as" names it), .join, sorted, set, max; not len or range.
    assert.equal(python(code).builtins, 7);
    assert.equal(python('@functools.lru_cache(maxsize=None)\ndef f(n):\n    return n\n').builtins, 1);
  });

  it('reads no code in comments, strings, triple-quoted and prefixed strings', () => {
    const code = [
      '"""for x in xs: sorted(x)"""',
      "r'sorted(x)'",
      'f"{sorted(x)}"',
      "b'''",
      'for y in ys:',
      "    sorted(y)'''",
      'def f(xs):  # for x in xs: sorted(xs), f(xs)',
      '    text = "for i in range(3): max(i) \\" sum(i)"',
      '    return xs',
      '',
    ].join('\n');
    assert.deepEqual(python(code), { loops: 0, builtins: 0, recursion: 0, containers: 0 });
  });

  it('sees recursion in a def, a nested def, a method through self and a named lambda; not a call of another function', () => {
    assert.equal(python('def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n').recursion, 1);
    assert.equal(python('def outer(xs):\n    def walk(node):\n        return [walk(c) for c in node]\n    return walk(xs)\n').recursion, 1);
    assert.equal(python('class T:\n    def size(self, node):\n        return 1 + self.size(node.left)\n').recursion, 1);
    assert.equal(python('fact = lambda n: 1 if n < 2 else n * fact(n - 1)\n').recursion, 1);
    assert.equal(python('def f(n):\n    return g(n)\ndef g(n):\n    return n\nf(3)\n').recursion, 0);
    assert.equal(python('async def f(n):\n    await other.f(n)\n').recursion, 0, 'a method of the same name elsewhere is not this function');
  });

  it('sees the maps and sets a program builds: calls, brace literals and comprehensions; not a list, a slice or a string', () => {
    const containers = (code: string) => python(code).containers;
    assert.equal(containers('def f(xs):\n    out = []\n    for x in xs:\n        out.append(x[1:2])\n    return out\n'), 0);
    assert.equal(containers('counts = {}\n'), CONTAINS_MAP, 'an empty brace literal is a dict');
    assert.equal(containers('d = {k: v for k, v in pairs}\n'), CONTAINS_MAP);
    assert.equal(containers('d = {"a": [x[1:2] for x in xs]}\n'), CONTAINS_MAP);
    assert.equal(containers('from collections import Counter\nc = Counter(xs)\n'), CONTAINS_MAP);
    assert.equal(containers('import collections\nc = collections.defaultdict(int)\n'), CONTAINS_MAP);
    assert.equal(containers('seen = set()\n'), CONTAINS_SET);
    assert.equal(containers('s = {x % 7 for x in xs}\nt = {1, 2}\n'), CONTAINS_SET, 'a brace literal without its own colon is a set');
    assert.equal(containers('s = {x[1:2] for x in xs}\n'), CONTAINS_SET, "a slice's colon is the subscript's, not the literal's");
    assert.equal(containers('seen = set()\nd = dict(zip(a, b))\n'), CONTAINS_MAP | CONTAINS_SET);
    assert.equal(containers('merged = {**a, **b}\n'), CONTAINS_MAP, 'unpacking mappings builds a map');
    assert.equal(containers('s = {*a, *b}\n'), CONTAINS_SET, 'unpacking iterables builds a set');
    assert.equal(containers('s = "{}"\nt = f"{x}"\n# d = {}\n'), 0, 'braces in strings and comments build nothing');
  });
});

describe('program structure: JavaScript', () => {
  it('nests for/while loops, with or without braces, and iteration callbacks', () => {
    const code = [
      'function g(a) {',
      '  for (let i = 0; i < a.length; i++)',
      '    for (let j = 0; j < i; j++) a[j] += i;',
      '  while (a.length) { a.pop(); }',
      '  return a;',
      '}',
    ].join('\n');
    assert.equal(js(code).loops, 2);
    assert.equal(js('const r = xs.map((x) => xs.filter((y) => y < x).length);').loops, 2);
    assert.equal(js('xs.forEach(function (x) { for (const y of ys) use(x, y); });').loops, 2);
    assert.equal(js('do { i++; } while (i < 3);').loops, 1);
    // A function declared inside a loop's body is not run per iteration by being there.
    assert.equal(js('for (const x of xs) { const f = function () { return 1; }; }\nfunction h() { return 2; }').loops, 1);
  });

  it('counts distinct native built-ins: constructors, Math/Array/Object calls, native methods', () => {
    const code = 'const m = new Map(); const s = new Set(xs); Math.max(1, 2); Math.max(3, 4); Array.from(s).sort((a, b) => a - b).join(","); xs.indexOf(3); xs.includes(4); xs.push(1);';
    // Map, Set, Math.max, Array.from, .sort, .join, .indexOf, .includes; not .push.
    assert.equal(js(code).builtins, 8);
  });

  it('reads no code in comments, strings, template text or regular expressions, but does in a template expression', () => {
    const code = [
      '// for (;;) Math.max(1)',
      '/* while (x) { new Map() } */',
      'const a = "for (;;) { Math.min(1) }";',
      "const b = 'new Set()';",
      'const c = `for (;;) ${xs.map((x) => Math.abs(x)).length} {Math.max(1)} ${`nested ${new Map()}`}`;',
      'const d = /for \\(\\) { Math\\.max\\(/g.test(a);',
      'const e = a.length / 2 / 3;',
    ].join('\n');
    // Only the template expressions: .map (a loop), Math.abs and the nested template's new Map (a map).
    assert.deepEqual(js(code), { loops: 1, builtins: 2, recursion: 0, containers: 1 });
  });

  it('sees recursion in a function declaration, an async function, an arrow, a method through this', () => {
    assert.equal(js('function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }').recursion, 1);
    assert.equal(js('async function walk(dir) { for (const d of dir.children) await walk(d); }').recursion, 1);
    assert.equal(js('const fact = (n) => { return n < 2 ? 1 : n * fact(n - 1); };').recursion, 1);
    assert.equal(js('const down = n => n ? down(n - 1) : 0;').recursion, 1);
    assert.equal(js('class T { size(node) { if (!node) { return 0; } return 1 + this.size(node.left); } }').recursion, 1);
    assert.equal(js('function f(n) { return g(n); }\nfunction g(n) { return n; }\nf(1); const h = (n) => n; h(2);').recursion, 0);
    assert.equal(js('function f(n) { return other.f(n); }').recursion, 0);
  });

  it('sees the maps and sets a program builds: Map, Set, an empty object literal, Object.create(null); not a block', () => {
    const containers = (code: string) => js(code).containers;
    assert.equal(containers('function f(xs) { const out = []; for (const x of xs) { if (x) {} out.push(x); } return out; }'), 0, 'an empty block is no object');
    assert.equal(containers('const counts = {};\nfor (const x of xs) counts[x] = (counts[x] || 0) + 1;'), CONTAINS_MAP);
    assert.equal(containers('const m = new Map();'), CONTAINS_MAP);
    assert.equal(containers('const m = Object.create(null);'), CONTAINS_MAP);
    assert.equal(containers('function f(o = {}) { return o; }'), CONTAINS_MAP);
    assert.equal(containers('const n = new Set(window).size;'), CONTAINS_SET);
    assert.equal(containers('const m = new Map(); const s = new WeakSet();'), CONTAINS_MAP | CONTAINS_SET);
    assert.equal(containers('const point = { x: 1, y: 2 };\nconst f = () => {};'), 0, 'a record and an empty arrow body are no map');
    assert.equal(containers('const s = "new Set()"; // new Map()\nconst t = `${a}{}`;'), 0);
  });

  it('reads TypeScript: a return type between the parameters and the body', () => {
    assert.equal(js('function fib(n: number): number { return n < 2 ? n : fib(n - 1) + fib(n - 2); }').recursion, 1);
    assert.equal(js('class T { async size(node: Node | null): Promise<number> { return node ? 1 + (await this.size(node.left)) : 0; } }').recursion, 1);
    assert.equal(js('export function sum(xs: number[]): number { let t = 0; for (const x of xs) { t += x; } return t; }').loops, 1);
    // A ternary's branch after a call is no return type: the object literal is not a body of f.
    assert.deepEqual(js('const o = ok ? f(x) : { a: f(1) };\nfunction f(y) { return y; }'), { loops: 0, builtins: 0, recursion: 0, containers: 0 });
  });
});

describe('structure language', () => {
  it('follows the declared language, else the program file, and knows no other', () => {
    assert.equal(structureLanguage('python'), 'python');
    assert.equal(structureLanguage('TypeScript'), 'javascript');
    assert.equal(structureLanguage(undefined, 'fib.mjs'), 'javascript');
    assert.equal(structureLanguage(undefined, 'dir/sort.py'), 'python');
    assert.equal(structureLanguage('rust', 'main.py'), undefined, 'a declared language wins over the extension');
    assert.equal(structureLanguage(undefined, 'main.rs'), undefined);
  });
});
