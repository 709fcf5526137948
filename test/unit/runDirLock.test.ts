/**
 * How a run is named (an id under the project's .peagen/runs, or a directory) and how a run
 * directory in use is marked (run.lock): what resume and merge rely on to refuse a run.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RunDir, RUNS_DIR } from '../../daemon/evolution/controller/runDir';
import { tempDir } from '../fixtures/paths';

describe('run directories: names and the run lock', () => {
  let root: string;
  let project: string;
  beforeEach(() => {
    root = tempDir('rundir');
    project = path.join(root, 'project');
    fs.mkdirSync(path.join(project, RUNS_DIR), { recursive: true });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const makeRun = (dir: string): string => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'run.json'), '{}');
    return dir;
  };

  it('finds a run by its id or by its directory', () => {
    const dir = makeRun(path.join(project, RUNS_DIR, '20250101-120000-bad_sort-1a2b'));
    assert.equal(RunDir.resolve('20250101-120000-bad_sort-1a2b', project).dir, dir);
    assert.equal(RunDir.resolve(dir, '/nowhere').dir, dir);
  });

  it('never looks an id up outside the runs directory: "../x" is only the directory it spells', () => {
    // A run directory two levels above the runs directory: joining "../../outside" to it would reach it.
    makeRun(path.join(project, '.peagen', '..', 'outside'));
    assert.throws(() => RunDir.resolve('../../outside', project), /"\.\.\/\.\.\/outside" is not a run id \(an id is a plain name under/);
    assert.throws(() => RunDir.resolve('/no/such/run', project), /is not a run directory \(it has no run\.json\)/);
    for (const name of ['..', '.', '', 'a/b', 'a\\b', '/abs']) assert.equal(RunDir.isIdForm(name), false, name);
    assert.equal(RunDir.isIdForm('20250101-120000-bad_sort-1a2b'), true);
  });
});
