/**
 * Ids read from a client or from a run's own files (run ids, program ids, exchange addresses)
 * are checked for their form before any path is built from them: a hand-edited journal or a
 * hostile client cannot make the daemon read outside the run directory.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RunEventSchema } from '../../daemon/evolution/runEvents';
import { RunDir, RUNS_DIR } from '../../daemon/evolution/controller/runDir';
import { RunIdSchema } from '../../shared/evolution';

describe('run, program and exchange ids are checked before a path is built', () => {
  let project: string;
  let runDir: RunDir;
  beforeEach(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-run-ids-'));
    runDir = RunDir.create(project, 'bad_sort');
    fs.writeFileSync(runDir.manifestFile, '{}');
    // Bait: files an escaping id would reach.
    fs.writeFileSync(path.join(runDir.dir, 'bait.json'), JSON.stringify({ secret: true }));
    fs.mkdirSync(path.join(project, 'elsewhere'));
    fs.writeFileSync(path.join(project, 'elsewhere', 'run.json'), '{}');
  });
  afterEach(() => fs.rmSync(project, { recursive: true, force: true }));

  it('the ids Peagen makes have the form it checks', () => {
    assert.ok(RunIdSchema.safeParse(runDir.id).success, runDir.id);
    assert.equal(RunDir.ofId(runDir.id, project).dir, runDir.dir);
  });

  it('a run id that is a path is refused, even where that path holds a run', () => {
    for (const id of ['../../elsewhere', path.join(project, 'elsewhere'), '..', '.', 'a/b', 'a\\b', '', '-x']) {
      assert.throws(() => RunDir.ofId(id, project), /is not a run id: a run id is the name of a directory under \.peagen\/runs/, JSON.stringify(id));
    }
    assert.throws(() => RunDir.ofId('20260101-000000-nope-0000', project), new RegExp(`no run "20260101-000000-nope-0000" under .*${RUNS_DIR.replace(/[./]/g, '\\$&')}`));
  });

  it('a program id or exchange address of the wrong form is refused, not read', () => {
    assert.throws(() => runDir.getProgram('../bait'), /"\.\.\/bait" is not a program id: a program id is the sha256 of its source/);
    assert.throws(() => runDir.getExchange('../bait'), /"\.\.\/bait" is not an exchange address: an exchange address is the sha256 of its record/);
    assert.throws(() => runDir.getProgram('f'.repeat(64)), /is missing program ffffffffffff/, 'a well-formed id that is absent: read and missing');
  });

  it('a journal event carrying an exchange address of the wrong form is not a valid event', () => {
    const proposal = { type: 'proposal', job: 1, ok: false, mutator: 'llm-patch', repairs: 0, usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0 };
    assert.ok(RunEventSchema.safeParse({ ...proposal, exchanges: ['a'.repeat(64)] }).success);
    assert.equal(RunEventSchema.safeParse({ ...proposal, exchanges: ['../../bait'] }).success, false);
  });
});
