/** The one safe-relative-path check (shared/relativePath.ts) every boundary uses. */
import * as assert from 'node:assert/strict';
import { filesByRelativePath, MAX_RELATIVE_PATH_LENGTH, relativePathProblem } from '../../shared/relativePath';
import * as z from 'zod';

describe('safe relative paths (shared/relativePath.ts)', () => {
  it('accepts plain paths inside a folder', () => {
    for (const path of ['a.py', 'src/a.py', 'a b/c-d_e.txt', '.hidden/x', '..x/y', 'x..']) assert.equal(relativePathProblem(path), null, path);
  });

  it('refuses every way out of the folder, and names why', () => {
    const cases: [string, RegExp][] = [
      ['', /empty/],
      ['../x', /empty, "\." or "\.\." part/],
      ['a/../../x', /empty, "\." or "\.\." part/],
      ['a//b', /empty, "\." or "\.\." part/],
      ['./a', /empty, "\." or "\.\." part/],
      ['a/', /empty/],
      ['/etc/passwd', /is absolute/],
      ['C:/x', /is absolute/],
      ['a\\..\\b', /backslash/],
      ['evil\u0000.py', /control character such as NUL/],
      ['a\nb', /control character/],
      ['a\u007fb', /control character/],
      ['x'.repeat(MAX_RELATIVE_PATH_LENGTH + 1), /longer than 1024 characters/],
    ];
    for (const [path, reason] of cases) assert.match(relativePathProblem(path) ?? 'accepted', reason, JSON.stringify(path));
  });

  it('a record of files: the count is refused before any entry is looked at, then each path with its reason', () => {
    const schema = filesByRelativePath(z.string(), 3);
    assert.deepEqual(schema.parse({ 'a.py': 'x', 'b/c.py': 'y' }), { 'a.py': 'x', 'b/c.py': 'y' });
    let looked = 0;
    const many = new Proxy({ a: '', b: '', c: '', d: '' }, { get: (target, key) => (looked++, Reflect.get(target, key)) });
    assert.match(schema.safeParse(many).error?.issues[0]?.message ?? '', /more than 3 files/);
    assert.equal(looked, 0, 'no entry was read');
    const refused = schema.safeParse({ 'ok.py': '', '../up.py': '' });
    assert.deepEqual(refused.error?.issues.map((issue) => [issue.path, issue.message.slice(0, 40)]), [[['../up.py'], 'not a safe relative path: "../up.py" has']]);
  });
});
