/**
 * How a run is named (an id under the project's .peagen/runs, or a directory) and how a run
 * directory in use is marked (run.lock): what resume and merge rely on to refuse a run.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RunDir, RUNS_DIR } from '../../daemon/evolution/controller/runDir';
import { lockRun, RUN_LOCK_FILE, RunBusyError, runLockHolder } from '../../daemon/evolution/controller/runLock';
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

  it('names a run by latest (the run begun last, also within one second) or by any unique start of its id; an ambiguous start lists the runs, an unknown one says how to list them', () => {
    assert.throws(() => RunDir.resolve('latest', project), /no runs under .* yet, so there is no latest one: start one with `peagen evolve run EXAMPLE`/);
    const made = (id: string, createdAt: string): string => {
      const dir = path.join(project, RUNS_DIR, id);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ createdAt }));
      return dir;
    };
    const older = made('20250101-120000-bad_sort-ffff', '2025-01-01T12:00:00.100Z');
    const sameSecond = made('20250101-120000-bad_sort-0000', '2025-01-01T12:00:00.900Z');
    const other = made('20250102-080000-stats-1a2b', '2025-01-02T08:00:00.000Z');
    assert.equal(RunDir.resolve('latest', project).dir, other);
    fs.rmSync(other, { recursive: true });
    // Within one second the ids' random tails sort anyhow: run.json's time says which began last.
    assert.equal(RunDir.resolve('latest', project).dir, sameSecond);
    made('20250102-080000-stats-1a2b', '2025-01-02T08:00:00.000Z');
    assert.equal(RunDir.resolve('20250102', project).dir, other);
    assert.equal(RunDir.resolve('20250101-120000-bad_sort-f', project).dir, older);
    assert.throws(() => RunDir.resolve('20250101', project), /"20250101" is the start of 2 run ids; type more of the one you mean:\n {2}20250101-120000-bad_sort-ffff\n {2}20250101-120000-bad_sort-0000$/, 'oldest first');
    assert.throws(() => RunDir.resolve('2024', project), /no run "2024": no run id under .* is or begins with it \(list the runs with `peagen evolve list`; `latest` names the last one\)/);
  });

  it('never looks an id up outside the runs directory: "../x" is only the directory it spells', () => {
    // A run directory two levels above the runs directory: joining "../../outside" to it would reach it.
    makeRun(path.join(project, '.peagen', '..', 'outside'));
    assert.throws(() => RunDir.resolve('../../outside', project), /"\.\.\/\.\.\/outside" is not a run id \(an id is a plain name under/);
    assert.throws(() => RunDir.resolve('/no/such/run', project), /is not a run directory \(it has no run\.json\)/);
    for (const name of ['..', '.', '', 'a/b', 'a\\b', '/abs']) assert.equal(RunDir.isIdForm(name), false, name);
    assert.equal(RunDir.isIdForm('20250101-120000-bad_sort-1a2b'), true);
  });

  it('is locked by one user at a time; a second is refused with the holder and what to do', () => {
    const runDir = new RunDir(makeRun(path.join(project, RUNS_DIR, 'r1')));
    assert.equal(runLockHolder(runDir), undefined);
    const lock = lockRun(runDir);
    assert.equal(runLockHolder(runDir), process.pid);
    assert.throws(
      () => lockRun(runDir),
      (error: unknown) => error instanceof RunBusyError && error.holder === process.pid && /run r1 is in use by process \d+ .*wait until it stops/.test(error.message),
    );
    lock.release();
    assert.equal(fs.existsSync(path.join(runDir.dir, RUN_LOCK_FILE)), false);
    assert.equal(runLockHolder(runDir), undefined);
  });

  it('takes over the lock of a process that is gone (a run killed with kill -9)', () => {
    const runDir = new RunDir(makeRun(path.join(project, RUNS_DIR, 'r2')));
    // Far above any pid a test machine hands out.
    fs.writeFileSync(path.join(runDir.dir, RUN_LOCK_FILE), '2147483646\n');
    assert.equal(runLockHolder(runDir), undefined);
    lockRun(runDir).release();
  });
});
