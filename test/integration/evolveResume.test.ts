/**
 * A run survives its process: kill -9 in the middle (the controller runs in the CLI process
 * with --sync) or Ctrl-C, then `peagen evolve run --resume <id>` continues exactly where the
 * journal left off: the seed is not evaluated again, no child is evaluated twice, and the
 * run ends with exactly the evaluations it was asked for. The run is bad_sort_ops (counted
 * instructions, a fraction of a second per evaluation): the continuation is the point, not the
 * timing.
 */
import * as assert from 'node:assert/strict';
import { RunDir } from '../../daemon/evolution/controller/runDir';
import { loadRunState } from '../../daemon/evolution/controller/loadRunState';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { EvolveProject, firstEvaluations, type JournalEntry, NO_CONFIRMATION, parseJson, readJournalEvents, type RunOutput, waitUntil } from '../fixtures/evolveFixtures';

// bad_sort_ops evaluates in about 0.3 s: 24 leave the interruption (after 2 or 3) seconds of room.
const LIMIT = 24;

/** The best objective the run's files hold now (checkpoint + journal), as resume reads them. */
function recordedBest(runDir: string): number | undefined {
  const dir = new RunDir(runDir);
  return loadRunState(dir, dir.readManifest()).state.best?.objective ?? undefined;
}

function assertExactContinuation(events: readonly JournalEntry[]): void {
  assert.equal(events.filter((event) => event.type === 'seed').length, 1, 'the seed is evaluated once');
  const firsts = firstEvaluations(events);
  const ids = firsts.map((event) => event.childId);
  assert.equal(new Set(ids).size, ids.length, `a child was evaluated twice: ${ids.map((id) => id.slice(0, 8)).join(' ')}`);
  assert.equal(firsts.length, LIMIT, 'the evaluations before and after the interruption add up to the limit');
  const jobs = firsts.map((event) => event.job);
  assert.equal(new Set(jobs).size, jobs.length, 'no job was measured twice');
  assert.ok(events.some((event) => event.type === 'resume'), 'the resume is journaled');
  const seqs = events.map((event) => event.seq);
  assert.deepEqual(seqs, seqs.map((_, index) => index + 1), 'journal sequence numbers run on without gaps or repeats');
}

describe('peagen evolve run --resume after kill -9 and Ctrl-C (real CLI, real evaluations)', function () {
  this.timeout(300_000);
  let project: EvolveProject;

  beforeEach(() => {
    project = new EvolveProject();
  });
  afterEach(() => project.cleanup());

  const startRun = () => project.start(['evolve', 'run', badSortOpsDir(), ...NO_CONFIRMATION, '--sync', '--evaluations', String(LIMIT), '--quick', '--project', project.dir]);

  /** Waits until the only run of the project has journaled `count` first-round evaluations. */
  async function waitForEvaluations(count: number, exited: Promise<unknown>): Promise<string> {
    let finished = false;
    void exited.then(() => (finished = true));
    await waitUntil(() => finished || (project.runDirs().length === 1 && firstEvaluations(readJournalEvents(project.runDirs()[0]!)).length >= count), 180_000, `${count} evaluations`);
    assert.ok(!finished, 'the run ended before it could be interrupted');
    return project.runDirs()[0]!;
  }

  it('kill -9 mid-run, then --resume: one seed, no child evaluated twice, exactly the limit of evaluations, the best never worse', async () => {
    const run = startRun();
    const runDir = await waitForEvaluations(3, run.exited);
    run.child.kill('SIGKILL');
    const killed = await run.exited;
    assert.equal(killed.signal, 'SIGKILL');

    const before = readJournalEvents(runDir);
    const evaluatedBefore = firstEvaluations(before).length;
    assert.ok(evaluatedBefore >= 3 && evaluatedBefore < LIMIT, `${evaluatedBefore} evaluations before the kill`);
    assert.ok(!before.some((event) => event.type === 'stop'), 'the killed run did not stop on its own');
    const bestBefore = recordedBest(runDir);
    assert.ok(bestBefore !== undefined);

    const runId = new RunDir(runDir).id;
    const resumed = await project.run(['--json', 'evolve', 'run', '--resume', runId, '--project', project.dir, '--sync']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, new RegExp(`resuming run ${runId}`));
    const report = parseJson<RunOutput>(resumed);
    assert.equal(report.runDir, runDir);
    assert.equal(report.stopReason, 'evaluations');
    assert.equal(report.progress.evaluations, LIMIT);

    const events = readJournalEvents(runDir);
    assertExactContinuation(events);
    assert.deepEqual(events.slice(0, before.length).map((event) => event.seq), before.map((event) => event.seq), 'the journal before the kill is kept as it was');
    assert.ok(report.best && report.best.objective >= bestBefore, `best after resume ${report.best?.objective} < ${bestBefore} before the kill`);
    assert.equal(recordedBest(runDir), report.best.objective, 'the files and the report agree on the best');
  });

  it('Ctrl-C: exit code 130 naming the resume command; --resume finishes the run', async () => {
    const run = startRun();
    const runDir = await waitForEvaluations(2, run.exited);
    run.child.kill('SIGINT');
    const interrupted = await run.exited;
    assert.equal(interrupted.code, 130, interrupted.stderr);
    const runId = new RunDir(runDir).id;
    assert.ok(interrupted.stderr.includes(`peagen evolve run --resume ${runId} --project ${project.dir}`), interrupted.stderr);
    const evaluatedBefore = firstEvaluations(readJournalEvents(runDir)).length;
    assert.ok(evaluatedBefore < LIMIT);

    const resumed = await project.run(['--json', 'evolve', 'run', '--resume', runId, '--project', project.dir, '--sync']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const report = parseJson<RunOutput>(resumed);
    assert.equal(report.stopReason, 'evaluations');
    assert.equal(report.progress.evaluations, LIMIT);
    assertExactContinuation(readJournalEvents(runDir));
  });
});
