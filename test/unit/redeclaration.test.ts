import * as assert from 'node:assert/strict';
import { redeclaration } from '../../daemon/evolution/mutation/redeclaration';

const js = (...lines: string[]): string => lines.join('\n');

describe('redeclaration: a child that declares a function twice in one scope', () => {
  it('JavaScript: a copy of the function inside a UMD wrapper is refused, naming both lines', () => {
    const parent = js('(function () {', "'use strict';", 'function simplify(points) {', '    return points;', '}', 'module.exports = simplify;', '})();');
    const child = js('(function () {', "'use strict';", 'function simplify(points) {', '    return points;', '}', 'function simplify(points) {', '    return points.slice();', '}', 'module.exports = simplify;', '})();');
    assert.match(redeclaration(parent, child, 'brace') ?? '', /declares simplify\(\) twice in one scope \(lines 3 and 6\)/);
    assert.equal(redeclaration(parent, parent.replace('return points;', 'return points.slice();'), 'brace'), undefined, 'an edit of the one declaration');
  });

  it('JavaScript: helpers of one name in two functions, TypeScript overloads and a repeat the parent has are not held against it', () => {
    const parent = js('function a() {', '  function inner() { return 1; }', '  return inner();', '}', 'function b() {', '  return 2;', '}',
      'export function pad(text: string): string;', 'export function pad(text: number): string;', 'export function pad(text: any): string {', '  return String(text);', '}',
      'function twice() {}', 'function twice() {}');
    const child = parent.replace('  return 2;', '  function inner() { return 2; }\n  return inner();').replace('function twice() {}', 'function twice() { return 0; }');
    assert.equal(redeclaration(parent, child, 'brace'), undefined);
    assert.equal(redeclaration(parent, child.replace('// none', ''), 'brace'), undefined);
    assert.match(redeclaration(parent, `${child}\nfunction a() {}`, 'brace') ?? '', /declares a\(\) twice/);
  });

  it('Python: a second def at module level is refused; if/else definitions, methods of two classes, decorated overloads and nested helpers are not', () => {
    const parent = js('import sys', 'if sys.version_info > (3,):', '    def text(x):', '        return str(x)', 'else:', '    def text(x):', '        return unicode(x)',
      'class A:', '    def __init__(self):', '        pass', 'class B:', '    def __init__(self):', '        pass',
      '@overload', 'def f(x: int) -> int: ...', '@overload', 'def f(x: str) -> str: ...', 'def f(x):', '    return x',
      'def total(values):', '    def step(a, b):', '        return a + b', '    s = 0', '    for v in values:', '        s = step(s, v)', '    return s');
    assert.equal(redeclaration(parent, parent.replace('        s = step(s, v)', '        s += v'), 'python'), undefined);
    const nested = `${parent}\ndef other():\n    def step(a, b):\n        return a - b\n    return step(1, 2)`;
    assert.equal(redeclaration(parent, nested, 'python'), undefined);
    assert.match(redeclaration(parent, `${parent}\n\ndef total(values):\n    return sum(values)`, 'python') ?? '', /declares total\(\) twice in one scope \(lines 20 and 28\)/);
    assert.match(redeclaration(parent, parent.replace('        pass\nclass B:', '        pass\n    def __init__(self):\n        self.x = 1\nclass B:'), 'python') ?? '', /declares __init__\(\) twice/);
  });
});
