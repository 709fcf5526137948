import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { applyPatch, createTwoFilesPatch } from 'diff';
import { applyAnswer, evolveBlocks, unifiedDiff, type ApplyResult } from '../../daemon/evolution/mutation/patch/applyAnswer';
import { REPO } from '../fixtures/paths';

const BAD_SORT = readFileSync(path.join(REPO, 'examples/bad_sort/bad_sort.py'), 'utf8');

const PROGRAM = [
  'import math',
  '# EVOLVE-BLOCK-START',
  'def area(r):',
  '    return 3.14 * r * r',
  '',
  'def total(xs):',
  '    s = 0',
  '    for x in xs:',
  '        s = s + x',
  '    return s',
  '# EVOLVE-BLOCK-END',
  'print(total([1, 2]))',
  '',
].join('\n');

function block(search: string, replace: string, markers = 7): string {
  return `${'<'.repeat(markers)} SEARCH\n${search}\n${'='.repeat(markers)}\n${replace}\n${'>'.repeat(markers)} REPLACE`;
}

function expectOk(result: ApplyResult): string {
  if (!result.ok) assert.fail(`expected the answer to apply, got ${result.reason}: ${result.message}`);
  return result.code;
}

function expectFailure(result: ApplyResult, reason: string): string {
  assert.equal(result.ok, false, 'expected a failure');
  if (result.ok) throw new Error('unreachable');
  assert.equal(result.reason, reason, result.message);
  return result.message;
}

describe('applyAnswer: SEARCH/REPLACE blocks', () => {
  it('applies a block wrapped in prose and a ```python fence', () => {
    const answer = `I will use math.pi.\n\n\`\`\`python\n${block('    return 3.14 * r * r', '    return math.pi * r * r')}\n\`\`\`\nThis is more precise.`;
    const result = applyAnswer(PROGRAM, answer);
    assert.equal(expectOk(result), PROGRAM.replace('3.14', 'math.pi'));
    assert.ok(result.ok && result.format === 'search-replace' && result.edits === 1);
  });

  for (const tag of ['diff', 'text', '', 'py']) {
    it(`finds a block inside a \`\`\`${tag} fence`, () => {
      const answer = `\`\`\`${tag}\n${block('    s = 0', '    s = 0.0')}\n\`\`\``;
      assert.equal(expectOk(applyAnswer(PROGRAM, answer)), PROGRAM.replace('s = 0\n', 's = 0.0\n'));
    });
  }

  for (const markers of [5, 6, 8, 9]) {
    it(`accepts markers of ${markers} characters`, () => {
      assert.equal(expectOk(applyAnswer(PROGRAM, block('    s = 0', '    s = 1', markers))), PROGRAM.replace('s = 0\n', 's = 1\n'));
    });
  }

  it('applies several blocks in order, each to the result of the previous', () => {
    const answer = [block('    s = 0', '    acc = 0'), 'and then', block('    acc = 0\n    for x in xs:', '    acc = 0\n    for x in sorted(xs):')].join('\n');
    const code = expectOk(applyAnswer(PROGRAM, answer));
    assert.match(code, / {4}acc = 0\n {4}for x in sorted\(xs\):\n/);
  });

  it('fails the whole answer when one block fails, naming it (1-based)', () => {
    const answer = [block('    s = 0', '    s = 1'), block('    return q', '    return s')].join('\n');
    const message = expectFailure(applyAnswer(PROGRAM, answer), 'no_match');
    assert.match(message, /^Block 2 of 2/);
  });

  it('reads a CRLF answer against an LF program', () => {
    const answer = block('    s = 0\n    for x in xs:', '    s = 1\n    for x in xs:').replaceAll('\n', '\r\n');
    assert.equal(expectOk(applyAnswer(PROGRAM, answer)), PROGRAM.replace('s = 0\n', 's = 1\n'));
  });

  it('keeps a CRLF program CRLF, new lines included', () => {
    const crlf = PROGRAM.replaceAll('\n', '\r\n');
    const code = expectOk(applyAnswer(crlf, block('    s = 0', '    s = 1\n    t = 2')));
    assert.equal(code, PROGRAM.replace('s = 0\n', 's = 1\n    t = 2\n').replaceAll('\n', '\r\n'));
  });

  it('matches despite trailing spaces and collapsed inner whitespace', () => {
    const code = expectOk(applyAnswer(PROGRAM, block('    for x in  xs:   \n        s = s + x ', '    for x in xs:\n        s += x')));
    assert.match(code, / {4}for x in xs:\n {8}s \+= x\n/);
  });

  it('matches space-indented SEARCH against a tab-indented program and writes tabs', () => {
    const tabbed = PROGRAM.replace(/^( {4})+/gm, (ws) => '\t'.repeat(ws.length / 4));
    const code = expectOk(applyAnswer(tabbed, block('    for x in xs:\n        s = s + x', '    for x in xs:\n        s += x\n        s -= 0')));
    assert.match(code, /\tfor x in xs:\n\t\ts \+= x\n\t\ts -= 0\n/);
  });

  it('matches SEARCH at another uniform indentation and re-indents REPLACE by the same offset', () => {
    const code = expectOk(applyAnswer(PROGRAM, block('for x in xs:\n    s = s + x', 'for x in xs:\n    if x:\n        s = s + x')));
    assert.match(code, /\n {4}for x in xs:\n {8}if x:\n {12}s = s \+ x\n {4}return s/);
  });

  it('reports a SEARCH that matches several places as ambiguous, never picking one', () => {
    const twice = PROGRAM.replace('    return s', '    s = s + 0\n    return s').replace('    s = 0', '    s = s + 0\n    s = 0');
    const message = expectFailure(applyAnswer(twice, block('    s = s + 0', '    pass')), 'ambiguous');
    assert.match(message, /matches 2 places/);
  });

  it('says where the closest lines are when SEARCH is not found, quoting SEARCH', () => {
    const message = expectFailure(applyAnswer(PROGRAM, block('    for y in xs:\n        s = s + y', 'x')), 'no_match');
    assert.match(message, /for y in xs:/, 'quotes the SEARCH text');
    assert.match(message, /lines 8-9/, 'names the closest lines');
    assert.match(message, / {3}8\| {5}for x in xs:/);
  });

  it('caps the quoted SEARCH text', () => {
    const huge = Array.from({ length: 2_000 }, (_, i) => `line_${i} = ${i}`).join('\n');
    const message = expectFailure(applyAnswer(PROGRAM, block(huge, 'x')), 'no_match');
    assert.ok(message.length < 8_000, `message of ${message.length} characters`);
  });

  it('refuses an empty SEARCH unless the program is empty', () => {
    expectFailure(applyAnswer(PROGRAM, block('', 'x = 1')), 'no_match');
    assert.equal(expectOk(applyAnswer('', block('', 'x = 1'))), 'x = 1');
  });

  it('tolerates a blank line at the ends of SEARCH that the program does not have there', () => {
    const code = expectOk(applyAnswer(PROGRAM, block('\n    return 3.14 * r * r\n\n\n', '\n    return r * r\n\n\n')));
    assert.equal(code, PROGRAM.replace('3.14 * r * r', 'r * r'));
  });
});

describe('applyAnswer: EVOLVE-BLOCK regions', () => {
  it('finds regions in any comment syntax', () => {
    const code = ['a', '// EVOLVE-BLOCK-START', 'b', '// EVOLVE-BLOCK-END', 'c', '-- EVOLVE-BLOCK-START x', 'd', '/* EVOLVE-BLOCK-END */'].join('\n');
    assert.deepEqual(evolveBlocks(code), [
      { startLine: 2, endLine: 4 },
      { startLine: 6, endLine: 8 },
    ]);
    assert.deepEqual(evolveBlocks(BAD_SORT), [{ startLine: 20, endLine: 95 }]);
  });

  it('refuses an edit outside the regions', () => {
    expectFailure(applyAnswer(PROGRAM, block('import math', 'import cmath')), 'outside_block');
    expectFailure(applyAnswer(PROGRAM, block('print(total([1, 2]))', 'print(1)')), 'outside_block');
  });

  it('refuses an edit of a marker line', () => {
    expectFailure(applyAnswer(PROGRAM, block('# EVOLVE-BLOCK-END', '')), 'outside_block');
    expectFailure(applyAnswer(PROGRAM, block('# EVOLVE-BLOCK-START\ndef area(r):', 'def area(r):')), 'outside_block');
  });

  it('refuses new marker lines written inside a region', () => {
    expectFailure(applyAnswer(PROGRAM, block('    s = 0', '    s = 0\n# EVOLVE-BLOCK-END')), 'outside_block');
  });

  it('accepts a marker line quoted unchanged as context, even with whitespace drift', () => {
    const code = expectOk(applyAnswer(PROGRAM, block('# EVOLVE-BLOCK-START  \ndef area(r):', '# EVOLVE-BLOCK-START\ndef area(radius):')));
    assert.equal(code, PROGRAM.replace('def area(r):', 'def area(radius):'));
  });

  it('lets a program without markers be edited anywhere', () => {
    const plain = 'import math\nx = 1\n';
    assert.equal(expectOk(applyAnswer(plain, block('import math', 'import cmath'))), 'import cmath\nx = 1\n');
  });

  it('applies edits in the last of several regions', () => {
    const two = `${PROGRAM}# EVOLVE-BLOCK-START\ny = 2\n# EVOLVE-BLOCK-END\n`;
    assert.equal(expectOk(applyAnswer(two, block('y = 2', 'y = 3'))), two.replace('y = 2', 'y = 3'));
  });
});

describe('applyAnswer: outcomes without a usable edit', () => {
  it('says `identical` when the edits change nothing', () => {
    expectFailure(applyAnswer(PROGRAM, block('    s = 0', '    s = 0')), 'identical');
  });

  it('says `no_edit` and explains the format when the answer holds no edit', () => {
    const message = expectFailure(applyAnswer(PROGRAM, 'I think the code is fine as it is.'), 'no_edit');
    assert.match(message, /<<<<<<< SEARCH/);
  });

  it('does not take a fenced code block as a rewrite unless allowed', () => {
    expectFailure(applyAnswer(PROGRAM, '```python\ndef area(r):\n    return r\n```'), 'no_edit');
  });

  it('says `bad_diff` for a block that is never closed, naming it', () => {
    const message = expectFailure(applyAnswer(PROGRAM, `${block('    s = 0', '    s = 1')}\n<<<<<<< SEARCH\n    s = 0\n=======\n`), 'bad_diff');
    assert.match(message, /Block 2/);
  });

  it('says `bad_diff` for a diff with a line that is not a diff line', () => {
    const diff = '```diff\n@@ -7,1 +7,1 @@\n-    s = 0\n+    s = 1\n*** what\n```';
    expectFailure(applyAnswer(PROGRAM, diff), 'bad_diff');
  });
});

describe('applyAnswer: unified diffs', () => {
  it('applies a diff made by createTwoFilesPatch', () => {
    const child = PROGRAM.replace('s = s + x', 's += x');
    const answer = `Here is the diff:\n\`\`\`diff\n${createTwoFilesPatch('a/p.py', 'b/p.py', PROGRAM, child)}\`\`\``;
    const result = applyAnswer(PROGRAM, answer);
    assert.equal(expectOk(result), child);
    assert.ok(result.ok && result.format === 'unified-diff');
  });

  it('applies a diff with wrong line numbers and counts, as the models write them', () => {
    const answer = '```diff\n--- a/p.py\n+++ b/p.py\n@@ -70,3 +70,3 @@\n     for x in xs:\n-        s = s + x\n+        s += x\n```';
    assert.equal(expectOk(applyAnswer(PROGRAM, answer)), PROGRAM.replace('s = s + x', 's += x'));
    const bare = '@@\n     for x in xs:\n-        s = s + x\n+        s += x\n     return s\n';
    assert.equal(expectOk(applyAnswer(PROGRAM, bare)), PROGRAM.replace('s = s + x', 's += x'));
  });

  it('applies a diff without fences in prose', () => {
    const answer = 'Change this:\n@@ -7,1 +7,1 @@\n-    s = 0\n+    s = 1\nThat is all.';
    assert.equal(expectOk(applyAnswer(PROGRAM, answer)), PROGRAM.replace('s = 0\n', 's = 1\n'));
  });

  it('refuses a diff hunk whose text occurs twice when its header points at neither place', () => {
    const twice = `${PROGRAM}# EVOLVE-BLOCK-START\n    s = 0\n# EVOLVE-BLOCK-END\n`;
    expectFailure(applyAnswer(twice, '@@ -1,1 +1,1 @@\n-    s = 0\n+    s = 1\n'), 'ambiguous');
    assert.equal(expectOk(applyAnswer(twice, '@@ -14,1 +14,1 @@\n-    s = 0\n+    s = 1\n')), twice.replace(/ {4}s = 0\n# EVOLVE-BLOCK-END\n$/, '    s = 1\n# EVOLVE-BLOCK-END\n'));
  });

  it('refuses a diff that changes lines outside the regions', () => {
    const child = PROGRAM.replace('import math', 'import cmath');
    expectFailure(applyAnswer(PROGRAM, createTwoFilesPatch('a', 'b', PROGRAM, child)), 'outside_block');
  });

  it('applies a diff with a context line that drifted, within the fuzz allowed for long hunks', () => {
    const answer = [
      '@@ -6,5 +6,5 @@',
      ' def total(xs):',
      '     s = 0  # start',
      '     for x in xs:',
      '-        s = s + x',
      '+        s += x',
      '     return s',
      ' # EVOLVE-BLOCK-END',
    ].join('\n');
    assert.equal(expectOk(applyAnswer(PROGRAM, answer)), PROGRAM.replace('s = s + x', 's += x'));
  });
});

describe('applyAnswer: rewrites', () => {
  it('replaces the only region with a fenced block when rewrites are allowed', () => {
    const result = applyAnswer(PROGRAM, 'New version:\n```python\ndef total(xs):\n    return sum(xs)\n```', { allowRewrite: true });
    assert.equal(expectOk(result), 'import math\n# EVOLVE-BLOCK-START\ndef total(xs):\n    return sum(xs)\n# EVOLVE-BLOCK-END\nprint(total([1, 2]))\n');
    assert.ok(result.ok && result.format === 'rewrite');
  });

  it('takes the regions of a rewritten whole file, keeping the fixed text of the parent', () => {
    const whole = '```python\nimport os\n# EVOLVE-BLOCK-START\ndef total(xs):\n    return sum(xs)\n# EVOLVE-BLOCK-END\n```';
    const code = expectOk(applyAnswer(PROGRAM, whole, { allowRewrite: true }));
    assert.equal(code, 'import math\n# EVOLVE-BLOCK-START\ndef total(xs):\n    return sum(xs)\n# EVOLVE-BLOCK-END\nprint(total([1, 2]))\n');
  });

  it('refuses a marker-less rewrite when the program has several regions', () => {
    const two = `${PROGRAM}# EVOLVE-BLOCK-START\ny = 2\n# EVOLVE-BLOCK-END\n`;
    expectFailure(applyAnswer(two, '```python\ny = 3\n```', { allowRewrite: true }), 'ambiguous');
  });

  it('rewrites the whole file of a program without regions', () => {
    assert.equal(expectOk(applyAnswer('x = 1\n', '```\nx = 2\n```', { allowRewrite: true })), 'x = 2\n');
  });
});

describe('unifiedDiff', () => {
  it('gives a patch that diff.applyPatch turns back into the child', () => {
    for (const [parent, child] of [
      [BAD_SORT, BAD_SORT.replace('    tail = list(work[start:])  # needless copy of the tail\n', '')],
      ['a\r\nb\r\n', 'a\r\nc\r\n'],
      ['a\nb', 'a\nb\n'],
      ['', 'x\n'],
    ] as const) {
      const patch = unifiedDiff(parent, child, 'bad_sort.py');
      assert.match(patch, /--- a\/bad_sort\.py/);
      assert.equal(applyPatch(parent, patch), child);
    }
  });
});
