import * as assert from 'node:assert/strict';
import { regionEdit, replacedRegion, replaceRegion, splitText } from '../../extension/proposals/regionText';

describe('proposal region replacement', () => {
  it('splits lines without inventing an empty last line', () => {
    assert.deepEqual(splitText('a\nb\n').lines, ['a', 'b']);
    assert.deepEqual(splitText('a\nb').lines, ['a', 'b']);
    assert.deepEqual(splitText('').lines, []);
    assert.deepEqual(splitText('\n').lines, ['']);
    assert.deepEqual(splitText('a\r\nb\r\n'), { lines: ['a', 'b'], starts: [0, 3], eol: '\r\n', finalNewline: true });
  });

  it('replaces lines in the middle, with a different number of lines', () => {
    assert.equal(replaceRegion('a\nb\nc\nd\n', { startLine: 1, endLine: 3 }, 'X\nY\nZ'), 'a\nX\nY\nZ\nd\n');
    assert.equal(replaceRegion('a\nb\nc\nd\n', { startLine: 1, endLine: 3 }, 'X'), 'a\nX\nd\n');
  });

  it('keeps CRLF line breaks, converting the replacement to them', () => {
    assert.equal(replaceRegion('a\r\nb\r\nc\r\n', { startLine: 1, endLine: 2 }, 'X\nY'), 'a\r\nX\r\nY\r\nc\r\n');
    assert.equal(replaceRegion('a\r\nb\r\nc', { startLine: 2, endLine: 3 }, 'X\r\nY'), 'a\r\nb\r\nX\r\nY');
  });

  it('keeps a last line without a newline without one', () => {
    assert.equal(replaceRegion('a\nb\nc', { startLine: 1, endLine: 3 }, 'X\nY'), 'a\nX\nY');
    assert.equal(replaceRegion('a\nb\nc', { startLine: 0, endLine: 1 }, 'X'), 'X\nb\nc');
  });

  it('replaces a region at the end of a file that ends with a newline, keeping it', () => {
    assert.equal(replaceRegion('a\nb\nc\n', { startLine: 2, endLine: 3 }, 'X\nY'), 'a\nb\nX\nY\n');
    assert.equal(replaceRegion('a\nb\nc\n', { startLine: 0, endLine: 3 }, 'X'), 'X\n');
  });

  it('removes the lines when the replacement is empty', () => {
    assert.equal(replaceRegion('a\nb\nc\n', { startLine: 1, endLine: 2 }, ''), 'a\nc\n');
    assert.equal(replaceRegion('a\nb\nc', { startLine: 2, endLine: 3 }, ''), 'a\nb');
    assert.equal(replaceRegion('a\nb\nc\n', { startLine: 1, endLine: 3 }, ''), 'a\n');
    assert.deepEqual(replacedRegion({ startLine: 1, endLine: 3 }, ''), { startLine: 1, endLine: 1 });
  });

  it('inserts with an empty region, also after the last line', () => {
    assert.equal(replaceRegion('a\nb\n', { startLine: 1, endLine: 1 }, 'X'), 'a\nX\nb\n');
    assert.equal(replaceRegion('a\nb\n', { startLine: 2, endLine: 2 }, 'X'), 'a\nb\nX\n');
    assert.equal(replaceRegion('a\nb', { startLine: 2, endLine: 2 }, 'X'), 'a\nb\nX');
    assert.equal(replaceRegion('', { startLine: 0, endLine: 0 }, 'X\nY'), 'X\nY');
  });

  it('gives an edit of character offsets that touches only the region', () => {
    assert.deepEqual(regionEdit('ab\ncd\nef\n', { startLine: 1, endLine: 2 }, 'X'), { start: 3, end: 6, newText: 'X\n' });
    assert.deepEqual(regionEdit('ab\r\ncd', { startLine: 1, endLine: 2 }, 'X'), { start: 4, end: 6, newText: 'X' });
  });

  it('refuses a region outside the file, saying which lines', () => {
    assert.throws(() => regionEdit('a\nb\n', { startLine: 1, endLine: 3 }, 'X'), /lines 1\.\.3 are not within the file's 2 lines/);
    assert.throws(() => regionEdit('a\nb\n', { startLine: 2, endLine: 1 }, 'X'), /not within/);
    assert.throws(() => regionEdit('a\nb\n', { startLine: -1, endLine: 1 }, 'X'), /not within/);
  });
});
