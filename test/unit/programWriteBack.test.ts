/**
 * A run's program written back into the user's file (shared/programWriteBack.ts): what
 * `peagen evolve apply` writes, `--diff` prints and the editor's Accept places. The markers
 * `peagen init` added never reach the user's file; markers the user wrote stay as they are.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyPatch } from 'diff';
import { regionProgramFileText, unifiedPatch } from '../../shared/programWriteBack';
import { initExample } from '../../daemon/usecases/initExample';
import { readSelectionJob } from '../../daemon/usecases/selectionJob';
import { PEAGEN_GITIGNORE } from '../../daemon/usecases/peagenFolder';
import { programTarget } from '../../extension/evolve/programMapping';
import { replaceRegion } from '../../shared/regionText';

describe('program write-back', () => {
  let project: string;
  beforeEach(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-writeback-'));
  });
  afterEach(() => fs.rmSync(project, { recursive: true, force: true }));

  it("puts an init'ed example's evolved function back without init's markers, the user's own markers elsewhere kept (CRLF file)", async () => {
    // The user's own block around another function: init disarms it in its copy, and it must come back armed.
    const text = ['# EVOLVE-BLOCK-START', 'def mine(v):', '    return v', '# EVOLVE-BLOCK-END', '', '', 'def slow(v):', '    return sorted(v)[0]', ''].join('\r\n');
    const file = path.join(project, 'lib.py');
    fs.writeFileSync(file, text);
    const made = await initExample({ file, functionName: 'slow', projectDir: project });
    const job = readSelectionJob(made.dir);
    assert.ok(job, "init records where the example's program came from");
    assert.equal(job.record.sourceFile, file);
    assert.equal(job.baseText, text);
    const program = fs.readFileSync(path.join(made.dir, 'lib.py'), 'utf8');
    assert.match(program, /evolve-block-start \(not selected\)/, "the user's own markers are disarmed in init's copy");
    const evolved = program.replace('    return sorted(v)[0]', '    return min(v)');
    assert.notEqual(evolved, program);

    const back = regionProgramFileText(job.baseText, job.record, evolved);
    assert.equal(back, text.replace('    return sorted(v)[0]', '    return min(v)'), 'exactly the change, the rest byte for byte (markers, CRLF)');
    assert.equal(regionProgramFileText(job.baseText, job.record, program), text, 'the unchanged program is the user file itself');
    assert.equal(fs.readFileSync(path.join(project, '.peagen', '.gitignore'), 'utf8'), PEAGEN_GITIGNORE);

    // The editor's Accept of the run's proposal (the daemon places an init'ed example's program as a selection job's) writes the same text.
    const target = programTarget({ kind: 'selection', record: job.record, baseText: job.baseText }, 'speedup', { code: evolved, objective: 2, lineage: { parents: [], generation: 1, mutator: 'offline', exchanges: [], seed: 1, repairs: 0, island: 0, createdAt: '' } });
    assert.equal(target.file, file);
    assert.equal(replaceRegion(fs.readFileSync(file, 'utf8'), target.region, target.replacement), back);
  });

  it('makes a git-form patch per changed file that gives the new texts back; nothing changed, no patch', () => {
    const changes = [
      { path: 'src/a.py', before: 'a\nb\nc\n', after: 'a\nB\nc\n' },
      { path: 'src/same.py', before: 'x\n', after: 'x\n' },
      { path: 'lib/b.js', before: 'one\ntwo', after: 'one\nthree' },
    ];
    const patch = unifiedPatch(changes);
    assert.match(patch, /^diff --git a\/src\/a\.py b\/src\/a\.py\n--- a\/src\/a\.py\n\+\+\+ b\/src\/a\.py\n/);
    assert.match(patch, /^diff --git a\/lib\/b\.js b\/lib\/b\.js$/m);
    assert.doesNotMatch(patch, /same\.py/);
    assert.equal(applyPatch('a\nb\nc\n', patch.slice(0, patch.indexOf('diff --git a/lib'))), 'a\nB\nc\n');
    assert.equal(unifiedPatch([{ path: 'x', before: 'same', after: 'same' }]), '');
  });
});
