/**
 * Multi-file programs: the bundle is the program's text (its id the hash of all files), so it
 * must give every file back byte for byte, and an answer's SEARCH/REPLACE blocks must land in
 * the file they name and nowhere else.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyAnswer } from '../../daemon/evolution/mutation/patch/applyAnswer';
import { childCheckFor } from '../../daemon/evolution/mutation/childCheck';
import { OfflineMutator } from '../../daemon/evolution/mutation/OfflineMutator';
import { keepsFixedText } from '../../shared/evolveBlocks';
import { programTarget } from '../../extension/evolve/programMapping';
import type { Program } from '../../shared/evolution';
import { toDocument } from '../../shared/lines';
import { loadExample } from '../../daemon/evaluation/example';
import { bundleProgram, isProgramBundle, type ProgramFile, unbundleProgram } from '../../shared/programFiles';

const A = ['import b', '# EVOLVE-BLOCK-START', 'def total(xs):', '    return sum(b.items(xs))', '# EVOLVE-BLOCK-END', ''].join('\n');
const B = ['# EVOLVE-BLOCK-START', 'def items(xs):', '    return [x for x in xs]', '# EVOLVE-BLOCK-END', 'LIMIT = 3', ''].join('\n');
const PROGRAM = bundleProgram([
  { path: 'a.py', text: A },
  { path: 'lib/b.py', text: B },
]);

function applied(answer: string): string {
  const result = applyAnswer(PROGRAM, answer);
  assert.ok(result.ok, result.ok ? '' : result.message);
  return result.code;
}

function failure(answer: string): { reason: string; message: string } {
  const result = applyAnswer(PROGRAM, answer);
  assert.ok(!result.ok, 'the answer should be refused');
  return result;
}

describe('multi-file programs (shared/programFiles.ts)', () => {
  it('gives every file back byte for byte: no final newline, CRLF, lone CR, empty files, folders', () => {
    const files: ProgramFile[] = [
      { path: 'main.py', text: 'print(1)\n' },
      { path: 'src/no_newline.py', text: 'x = 1\ny = 2' },
      { path: 'src/crlf.py', text: 'a = 1\r\nb = 2\r\n' },
      { path: 'crlf_open.py', text: 'a = 1\r\nb = 2' },
      { path: 'lone_cr.txt', text: 'a\rb\r' },
      { path: 'empty.py', text: '' },
      { path: 'blank_lines.py', text: '\n\n' },
      { path: 'last.py', text: 'end' },
    ];
    const bundle = bundleProgram(files);
    assert.ok(isProgramBundle(bundle));
    assert.deepEqual(unbundleProgram(bundle), files);
    assert.equal(bundleProgram(unbundleProgram(bundle)), bundle);
  });

  it('names each file on one header line, so an edit in one file changes only its own lines', () => {
    const before = bundleProgram([
      { path: 'a.py', text: 'x = 1\n' },
      { path: 'b.py', text: 'y = 2\n' },
    ]);
    const after = bundleProgram([
      { path: 'a.py', text: 'x = 1\nz = 3\n' },
      { path: 'b.py', text: 'y = 2\n' },
    ]);
    const headers = (text: string): string[] => text.split('\n').filter((line) => line.startsWith('#==> peagen-file'));
    assert.deepEqual(headers(before), headers(after));
    assert.deepEqual(headers(before), ['#==> peagen-file "a.py"', '#==> peagen-file "b.py"']);
    assert.equal(after.split('\n').length - before.split('\n').length, 1);
  });

  it('refuses what would make the bundle ambiguous or escape the example', () => {
    assert.throws(() => bundleProgram([{ path: 'a.py', text: 'x = 1\n#==> peagen-file "b.py"\n' }]), /line 2 of a\.py starts with/);
    assert.throws(() => bundleProgram([{ path: 'a.py', text: 'x = 1\r#==> peagen-file' }]), /line 2 of a\.py/);
    assert.throws(() => bundleProgram([{ path: '../a.py', text: '' }]), /"\.\." part/);
    assert.throws(() => bundleProgram([{ path: '/etc/passwd', text: '' }]), /absolute/);
    assert.throws(() => bundleProgram([{ path: 'a.py', text: '' }, { path: 'a.py', text: '' }]), /named twice/);
    assert.throws(() => unbundleProgram('x = 1\n'), /not a multi-file bundle/);
  });

  it('applies blocks to the files they name, each after its path line (as coding assistants write them)', () => {
    const code = applied(
      [
        'Precompute in b, sum in a.',
        'lib/b.py',
        '```python',
        '<<<<<<< SEARCH',
        '    return [x for x in xs]',
        '=======',
        '    return list(xs)',
        '>>>>>>> REPLACE',
        '```',
        '',
        '`a.py`',
        '```python',
        '<<<<<<< SEARCH',
        '    return sum(b.items(xs))',
        '=======',
        '    return sum(xs)',
        '>>>>>>> REPLACE',
        '```',
      ].join('\n'),
    );
    assert.deepEqual(unbundleProgram(code), [
      { path: 'a.py', text: A.replace('sum(b.items(xs))', 'sum(xs)') },
      { path: 'lib/b.py', text: B.replace('[x for x in xs]', 'list(xs)') },
    ]);
  });

  it('refuses an edit to a file outside the program, or outside its EVOLVE-BLOCKs, with a reason to quote', () => {
    const outside = failure(['c.py', '```', '<<<<<<< SEARCH', 'LIMIT = 3', '=======', 'LIMIT = 4', '>>>>>>> REPLACE', '```'].join('\n'));
    assert.equal(outside.reason, 'outside_block');
    assert.match(outside.message, /c\.py, which is not a file of this program.*a\.py, lib\/b\.py/s);
    const fixed = failure(['lib/b.py', '```', '<<<<<<< SEARCH', 'LIMIT = 3', '=======', 'LIMIT = 4', '>>>>>>> REPLACE', '```'].join('\n'));
    assert.equal(fixed.reason, 'outside_block');
    assert.match(fixed.message, /\(lib\/b\.py\) changes lines outside the EVOLVE-BLOCK/);
  });

  it('applies a block without a path only where its SEARCH text is in exactly one file', () => {
    const code = applied(['<<<<<<< SEARCH', '    return [x for x in xs]', '=======', '    return list(xs)', '>>>>>>> REPLACE'].join('\n'));
    assert.equal(unbundleProgram(code)[1]!.text, B.replace('[x for x in xs]', 'list(xs)'));
    const both = failure(['<<<<<<< SEARCH', '# EVOLVE-BLOCK-START', '=======', '# EVOLVE-BLOCK-START', '# hi', '>>>>>>> REPLACE'].join('\n'));
    assert.equal(both.reason, 'ambiguous');
    assert.match(both.message, /found in a\.py and lib\/b\.py/);
  });

  it('the offline mutator edits one file at a time, inside its EVOLVE-BLOCKs, and keeps the bundle whole', async () => {
    const mutator = new OfflineMutator();
    const changed = new Set<string>();
    for (let seed = 1; seed <= 12; seed++) {
      const proposal = await mutator.propose({
        task: { name: 'test', objectiveName: 'speedup', direction: 'maximize', language: 'python' },
        parent: { id: 'p', code: PROGRAM, objective: 1 },
        inspirations: [],
        seed,
      });
      assert.ok(proposal.ok, proposal.ok ? '' : proposal.message);
      const before = unbundleProgram(PROGRAM);
      const after = unbundleProgram(proposal.code);
      assert.deepEqual(after.map((file) => file.path), ['a.py', 'lib/b.py']);
      const edited = after.filter((file, i) => file.text !== before[i]!.text);
      assert.equal(edited.length, 1, 'one file edited');
      const original = before.find((file) => file.path === edited[0]!.path)!;
      assert.ok(keepsFixedText(toDocument(original.text).lines, toDocument(edited[0]!.text).lines), 'only inside the EVOLVE-BLOCKs');
      changed.add(edited[0]!.path);
    }
    assert.deepEqual([...changed].sort(), ['a.py', 'lib/b.py'], 'both files get edits over seeds');
  });

  it('the syntax check judges each file and names the one that does not compile', async () => {
    const check = childCheckFor('python');
    const good = await check.check(PROGRAM);
    assert.ok(good.ok);
    const broken = bundleProgram([
      { path: 'a.py', text: A },
      { path: 'lib/b.py', text: B.replace('return [x for x in xs]', 'return [x for x in xs') },
    ]);
    const verdict = await check.check(broken);
    assert.ok(!verdict.ok, 'python3 (which the Python examples need) judges the broken file');
    assert.match(verdict.message, /^lib\/b\.py: the program does not compile/);
  });

  it('loads an example whose program is a list of paths and globs, in a fixed order', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-multifile-'));
    try {
      fs.mkdirSync(path.join(dir, 'pkg'));
      fs.writeFileSync(path.join(dir, 'main.py'), A);
      fs.writeFileSync(path.join(dir, 'pkg', 'z.py'), 'z = 1\n');
      fs.writeFileSync(path.join(dir, 'pkg', 'b.py'), B);
      const config = { name: 'multi', program: ['main.py', 'pkg/*.py'], evaluator: ['python3', 'evaluate.py', '{program}'], objective: { name: 'speedup', direction: 'maximize' } };
      fs.writeFileSync(path.join(dir, 'peagen.example.json'), JSON.stringify(config));
      const example = loadExample(dir);
      assert.deepEqual(example.programFiles, ['main.py', 'pkg/b.py', 'pkg/z.py']);
      assert.deepEqual(unbundleProgram(example.seedProgram()).map((file) => file.path), example.programFiles);
      fs.writeFileSync(path.join(dir, 'peagen.example.json'), JSON.stringify({ ...config, program: ['main.py', 'lib/*.py'] }));
      assert.throws(() => loadExample(dir), /glob "lib\/\*\.py" matches no file/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("maps a multi-file program to one proposal of the files it changes (the editor's placement)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-multifile-'));
    try {
      fs.mkdirSync(path.join(dir, 'lib'));
      fs.writeFileSync(path.join(dir, 'a.py'), A);
      fs.writeFileSync(path.join(dir, 'lib', 'b.py'), B);
      const placement = { kind: 'example' as const, exampleDir: dir, program: 'a.py', programFiles: ['a.py', 'lib/b.py'] };
      const child = { objective: 9, lineage: { generation: 1, mutator: 'llm-patch', model: 'm' } } as Program;
      const both = programTarget(placement, 'speedup', { ...child, code: applied(['lib/b.py', '<<<<<<< SEARCH', '    return [x for x in xs]', '=======', '    return list(xs)', '>>>>>>> REPLACE', 'a.py', '<<<<<<< SEARCH', '    return sum(b.items(xs))', '=======', '    return sum(xs)', '>>>>>>> REPLACE'].join('\n')) });
      assert.equal(both.file, path.join(dir, 'a.py'));
      assert.equal(both.replacement, A.replace('sum(b.items(xs))', 'sum(xs)').replace(/\n$/, ''));
      assert.deepEqual(both.others?.map((other) => [other.file, other.baseText, other.region, other.replacement]), [
        [path.join(dir, 'lib', 'b.py'), B, { startLine: 0, endLine: 5 }, B.replace('[x for x in xs]', 'list(xs)').replace(/\n$/, '')],
      ]);
      // Only the changed file: an ordinary single-file proposal.
      const one = programTarget(placement, 'speedup', { ...child, code: applied(['lib/b.py', '<<<<<<< SEARCH', '    return [x for x in xs]', '=======', '    return list(xs)', '>>>>>>> REPLACE'].join('\n')) });
      assert.equal(one.file, path.join(dir, 'lib', 'b.py'));
      assert.equal(one.others, undefined);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
