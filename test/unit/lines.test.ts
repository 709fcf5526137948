/**
 * One line model (shared/lines.ts) and one rule for LF, CRLF, a lone CR and a final line
 * break: the daemon's patches, the selection's region and the extension's proposals all count
 * and rebuild lines by it, so a region the editor names is the region a proposal replaces and
 * an edit gives the text the daemon's patch would.
 */
import * as assert from 'node:assert/strict';
import { FeatureSpace } from '../../daemon/evolution/evodb/features';
import { resolveRegion, splitLines } from '../../extension/evolve/region';
import { regionEdit, replaceRegion, splitText } from '../../extension/proposals/regionText';
import { fromDocument, lineBreakCount, lineCount, lineStarts, splitJoined, toDocument } from '../../shared/lines';

/** LF, CRLF, no final line break, empty lines, a lone CR, and mixed breaks. */
const TEXTS = ['', '\n', '\r\n', 'a', 'a\n', 'a\nb', 'a\nb\n', 'a\n\n', 'a\r\nb\r\n', 'a\r\nb', 'a\r\n\r\n', 'a\rb\n', 'a\r', 'a\r\nb\nc\n', 'a\nb\r\nc', '\r\n\n'];

describe('the line model (shared/lines.ts)', () => {
  it('a line break is LF or CRLF; a final break ends the last line and starts none', () => {
    assert.deepEqual(toDocument('a\nb\n'), { lines: ['a', 'b'], eol: '\n', finalNewline: true });
    assert.deepEqual(toDocument('a\nb'), { lines: ['a', 'b'], eol: '\n', finalNewline: false });
    assert.deepEqual(toDocument('a\r\nb\r\n'), { lines: ['a', 'b'], eol: '\r\n', finalNewline: true });
    assert.deepEqual(toDocument('a\r\nb'), { lines: ['a', 'b'], eol: '\r\n', finalNewline: false });
    assert.deepEqual(toDocument('\n'), { lines: [''], eol: '\n', finalNewline: true });
    assert.deepEqual(toDocument('').lines, []);
  });

  it('a lone CR is a character of its line, not a break', () => {
    assert.deepEqual(toDocument('a\rb\n'), { lines: ['a\rb'], eol: '\n', finalNewline: true });
    assert.deepEqual(toDocument('a\r').lines, ['a\r']);
  });

  it('a mixed document is LF, its CRLF lines keeping their CR, so nothing changes silently', () => {
    assert.deepEqual(toDocument('a\r\nb\nc\n'), { lines: ['a\r', 'b', 'c'], eol: '\n', finalNewline: true });
  });

  it('every text comes back byte for byte, and the counts and offsets agree with the lines', () => {
    for (const text of TEXTS) {
      const doc = toDocument(text);
      assert.equal(fromDocument(doc), text, JSON.stringify(text));
      assert.equal(lineCount(text), doc.lines.length, JSON.stringify(text));
      assert.equal(lineBreakCount(text), text.split('\n').length - 1, JSON.stringify(text));
      lineStarts(doc).forEach((start, index) => {
        const line = doc.lines[index]!;
        assert.equal(text.slice(start, start + line.length), line, `${JSON.stringify(text)} line ${index}`);
      });
    }
  });

  it('a join of lines splits back into them, with either line ending', () => {
    for (const lines of [['X'], ['X', 'Y'], ['X', ''], ['', 'Y']]) {
      assert.deepEqual(splitJoined(lines.join('\n')), lines);
      assert.deepEqual(splitJoined(lines.join('\r\n')), lines);
    }
  });
});

describe('every line splitter follows the one rule', () => {
  it('the selection region, the proposals and the lines feature count the same lines', () => {
    const space = new FeatureSpace([{ name: 'lines', from: 'lines', bins: [1] }]);
    for (const text of TEXTS) {
      const { lines } = toDocument(text);
      assert.deepEqual(splitLines(text), lines, `region ${JSON.stringify(text)}`);
      assert.deepEqual(splitText(text).lines, lines, `proposals ${JSON.stringify(text)}`);
      assert.equal(space.value(space.descriptors[0]!, { code: text, objective: null }), lines.length, `feature ${JSON.stringify(text)}`);
    }
  });

  it('a proposal replaces the lines a selection names, in a CRLF file without a final newline', () => {
    const text = 'def f():\r\n    return 1\r\nx = f()';
    const region = resolveRegion(text, { start: { line: 1, character: 0 }, end: { line: 1, character: 12 } });
    assert.deepEqual(region, { startLine: 1, endLine: 2 });
    assert.equal(replaceRegion(text, region, '    return 2'), 'def f():\r\n    return 2\r\nx = f()');
  });

  it('a region edit gives the text the daemon would rebuild from the same lines, mixed breaks included', () => {
    const cases: { text: string; startLine: number; endLine: number; replacement: string[] }[] = [
      { text: 'a\r\nb\nc\n', startLine: 1, endLine: 2, replacement: ['X', 'Y'] },
      { text: 'a\nb\r\nc\r\n', startLine: 0, endLine: 1, replacement: ['X', 'Y'] },
      { text: 'a\r\nb\r\nc', startLine: 2, endLine: 3, replacement: ['X', 'Y'] },
      { text: 'a\nb\nc\n', startLine: 1, endLine: 3, replacement: ['X'] },
      { text: 'a\r\nb\r\n', startLine: 1, endLine: 1, replacement: ['X'] },
    ];
    for (const { text, startLine, endLine, replacement } of cases) {
      const doc = toDocument(text);
      const lines = [...doc.lines.slice(0, startLine), ...replacement, ...doc.lines.slice(endLine)];
      const edit = regionEdit(text, { startLine, endLine }, replacement.join('\n'));
      const edited = text.slice(0, edit.start) + edit.newText + text.slice(edit.end);
      assert.equal(edited, fromDocument({ ...doc, lines }), JSON.stringify({ text, startLine, endLine }));
    }
  });
});
