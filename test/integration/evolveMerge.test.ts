/**
 * `peagen evolve merge RUN... --into RUN`: two short real runs of bad_sort_ops (bad_sort judged
 * by counted instructions, a fraction of a second per evaluation; offline mutator, --quick) are
 * merged with the CLI. The target's archive then holds the best elite of both per niche,
 * `evolve show` lists them, a resume continues from them and a replay replays the merge. A
 * merge that cannot be made (another example, other evaluator arguments or niches, a run in
 * use, a damaged or missing state, a misnamed run, the target among the sources) is refused
 * with exit code 2 and a message that says what to do, and leaves the target as it was.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MergeResult } from '../../daemon/evolution/controller/mergeRuns';
import { loadRunState } from '../../daemon/evolution/controller/loadRunState';
import type { RunReport } from '../../daemon/evolution/controller/report';
import { RunDir } from '../../daemon/evolution/controller/runDir';
import type { RunState } from '../../daemon/evolution/controller/RunState';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { type CliResult, EvolveProject, filesUnder, parseJson, readJournalEvents, type RunOutput, waitUntil } from '../fixtures/evolveFixtures';
import { REPO, tempDir } from '../fixtures/paths';

const SLOW_FIB_DIR = path.join(REPO, 'examples', 'slow_fib_js');
const EVALUATIONS = 6;

/** The run's state as a resume reads it (checkpoint, then the journal after it). */
function stateOf(runDir: string): RunState {
  const dir = new RunDir(runDir);
  return loadRunState(dir, dir.readManifest()).state;
}

/** Every file of a run directory and its bytes: to see that a refused merge wrote nothing. */
function contentsOf(runDir: string): Map<string, string> {
  return new Map(filesUnder(runDir).map((file) => [path.relative(runDir, file), fs.readFileSync(file, 'base64')]));
}

function eliteObjectives(state: RunState): Map<string, number> {
  return new Map(state.archive.niches().map((niche) => [`${niche.island}#${niche.key}`, niche.elite.objective!]));
}

interface ErrorOutput {
  error: { code: string; message: string; exitCode: number };
}

describe('peagen evolve merge (real CLI, real evaluations)', function () {
  this.timeout(300_000);
  const project = new EvolveProject();
  const copies = tempDir('merge-copies');
  /** The run merged into (the one with the lower best) and the run merged from. */
  let target: RunOutput;
  let source: RunOutput;
  let otherExample: RunOutput;

  const evolve = (...args: string[]) => project.run(['evolve', ...args, '--project', project.dir]);
  const evolveJson = (...args: string[]) => project.run(['--json', 'evolve', ...args, '--project', project.dir]);

  /** A copy of the source run (by directory: its id stays the source's) with run.json edited. */
  function editedCopy(name: string, edit: (manifest: Record<string, unknown>) => void): string {
    const dir = path.join(copies, name);
    fs.cpSync(source.runDir, dir, { recursive: true });
    const file = path.join(dir, 'run.json');
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    edit(manifest);
    fs.writeFileSync(file, JSON.stringify(manifest, null, 2));
    return dir;
  }

  /** Runs a merge that must be refused: exit 2, the message matching `why`, the target unchanged. */
  async function assertRefused(args: string[], why: RegExp): Promise<CliResult> {
    const before = contentsOf(target.runDir);
    const result = await evolveJson('merge', ...args);
    assert.equal(result.code, 2, `exit ${result.code}\n${result.stdout}\n${result.stderr}`);
    const { error } = parseJson<ErrorOutput>(result);
    assert.equal(error.code, 'usage');
    assert.match(error.message, why);
    assert.deepEqual(contentsOf(target.runDir), before, 'the target run is untouched');
    return result;
  }

  before(async () => {
    const runOf = (exampleDir: string, seed: number) =>
      evolveJson('run', exampleDir, '--sync', '--quick', '--mutator', 'offline', '--evaluations', String(EVALUATIONS), '--seed', String(seed));
    const results = await Promise.all([runOf(badSortOpsDir(), 2), runOf(badSortOpsDir(), 3), runOf(SLOW_FIB_DIR, 2)]);
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const [first, second, fib] = results.map((result) => parseJson<RunOutput>(result));
    [target, source] = first!.best!.objective <= second!.best!.objective ? [first!, second!] : [second!, first!];
    otherExample = fib!;
  });
  after(() => {
    project.cleanup();
    fs.rmSync(copies, { recursive: true, force: true });
  });

  it('refuses runs that do not compare, naming why and what to do, and leaves the target untouched', async () => {
    await assertRefused([otherExample.runId, '--into', target.runId], /evolved fib\.js of the example slow_fib_js .* the other bad_sort\.py of bad_sort_ops .*merge only runs of one example measured the same way/);
    const fullInputs = editedCopy('measured-without-quick', (manifest) => (manifest.evaluatorArgs = []));
    await assertRefused([fullInputs, '--into', target.runId], /its evaluator ran with no extra arguments, the other's with --quick .* their objectives do not compare/);
    const otherNiches = editedCopy('other-niches', (manifest) => {
      (manifest.settings as Record<string, unknown>).features = [{ name: 'lines', from: 'lines', bins: [10, 20] }];
    });
    await assertRefused([otherNiches, '--into', target.runId], /their niches differ \(the example's "features" changed between them/);
    const minimized = editedCopy('minimized', (manifest) => ((manifest.settings as Record<string, unknown>).direction = 'minimize'));
    await assertRefused([minimized, '--into', target.runId], /it minimizes speedup, the other maximizes speedup/);
  });

  it('refuses a damaged or missing state, a misnamed run, the target among the sources', async () => {
    const damaged = editedCopy('damaged-checkpoint', () => {});
    fs.writeFileSync(path.join(damaged, 'checkpoint.json'), '{"version": 1, "writtenAt": "x", "da');
    await assertRefused([damaged, '--into', target.runId], /checkpoint .* is corrupt .*nothing was merged\. Its journal holds every event: move .*checkpoint\.json aside/);
    const empty = editedCopy('no-state', () => {});
    fs.rmSync(path.join(empty, 'checkpoint.json'));
    fs.rmSync(path.join(empty, 'journal.jsonl'));
    await assertRefused([empty, '--into', target.runId], /run no-state: its state cannot be read \(no journal at .*\); nothing was merged/);

    await assertRefused(['../../x', '--into', target.runId], /source no run "\.\.\/\.\.\/x": .* is not a run directory .* is not a run id \(an id is a plain name under/);
    await assertRefused([source.runId, '--into', '/no/such/run'], /--into no run "\/no\/such\/run"/);
    await assertRefused([source.runId, target.runId, '--into', target.runId], /run .* is both --into and a source: name the run to merge into once, with --into, and only the other runs as sources/);
    await assertRefused([source.runId, target.runDir, '--into', target.runId], /is both --into and a source/);
    await assertRefused([source.runId, source.runDir, '--into', target.runId], /is named twice as a source/);
    const missing = await evolve('merge', source.runId);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /required option '--into <run>' not specified/);
  });

  it('refuses a run in use (running, or being resumed), naming its process; a resume of it is refused too', async () => {
    const busy = project.start(['evolve', 'run', badSortOpsDir(), '--sync', '--quick', '--mutator', 'offline', '--evaluations', '500', '--seed', '5', '--project', project.dir]);
    let exited = false;
    void busy.exited.then(() => (exited = true));
    const known = new Set([target.runDir, source.runDir, otherExample.runDir]);
    let busyDir: string | undefined;
    await waitUntil(
      () => exited || ((busyDir = project.runDirs().find((dir) => !known.has(dir))) !== undefined && readJournalEvents(busyDir).some((event) => event.type === 'seed')),
      120_000,
      'the busy run to evaluate its seed',
    );
    assert.ok(!exited, busy.stderr);
    const busyId = path.basename(busyDir!);
    const inUse = new RegExp(`run ${busyId} is in use by process ${busy.child.pid} \\(it is running, or being merged into\\); wait until it stops`);
    try {
      await assertRefused([busyId, '--into', target.runId], inUse);
      const into = await evolveJson('merge', source.runId, '--into', busyId);
      assert.equal(into.code, 2, into.stderr);
      assert.match(parseJson<ErrorOutput>(into).error.message, inUse);
      const resume = await evolve('run', '--resume', busyId, '--sync');
      assert.equal(resume.code, 2, resume.stderr);
      assert.match(resume.stderr, inUse);
    } finally {
      busy.child.kill('SIGINT');
      assert.equal((await busy.exited).code, 130);
    }
  });

  it('merges: the target holds the best elite of both runs per niche, and `evolve show` lists them', async () => {
    const theirs = stateOf(source.runDir);
    const ownBefore = stateOf(target.runDir);
    // Per niche, the better of the two runs' elites. A program both runs found (the seed, at
    // least) keeps the target's own measurement: the source's counts only for programs new to it.
    const expected = eliteObjectives(ownBefore);
    for (const program of theirs.archive.all()) {
      if (!program.correct || ownBefore.archive.has(program.id)) continue;
      const niche = `0#${program.niche}`; // the runs have one island
      expected.set(niche, Math.max(program.objective!, expected.get(niche) ?? -Infinity));
    }
    const journalBefore = readJournalEvents(target.runDir);

    const merged = await evolveJson('merge', source.runId, '--into', target.runId);
    assert.equal(merged.code, 0, merged.stderr);
    const result = parseJson<MergeResult>(merged);
    const newToTarget = theirs.archive.all().filter((program) => !ownBefore.archive.has(program.id));
    assert.ok(newToTarget.length > 0, 'the two runs found different programs');
    assert.equal(result.runId, target.runId);
    assert.equal(result.added, newToTarget.length);
    assert.deepEqual(result.sources.map(({ runId, added }) => ({ runId, added })), [{ runId: source.runId, added: newToTarget.length }]);
    assert.equal(result.best.after?.objective, Math.max(source.best!.objective, target.best!.objective));
    assert.equal(result.best.after?.id, source.best!.id, "the source's better best is the target's best now");
    assert.equal(result.best.after?.from, source.runId);
    assert.match(merged.stderr, new RegExp(`continue from the merged archive: peagen evolve run --resume ${target.runId} --project`));

    const after = stateOf(target.runDir);
    for (const program of theirs.archive.all()) assert.ok(after.archive.has(program.id), `program ${program.id.slice(0, 12)} of the source is in the target`);
    assert.deepEqual(eliteObjectives(after), expected, 'every niche holds the better of the two runs\' elites');
    assert.ok(after.archive.niches().some((niche) => !ownBefore.archive.has(niche.elite.id)), 'some elites came from the source');
    assert.equal(after.best?.id, source.best!.id);
    assert.equal(fs.readFileSync(path.join(target.runDir, 'best', 'bad_sort.py'), 'utf8'), theirs.best!.code, 'best/ holds the merged best');

    const journal = readJournalEvents(target.runDir);
    assert.deepEqual(journal.slice(0, journalBefore.length), journalBefore, 'the journal before the merge is kept as it was');
    assert.deepEqual(journal.slice(journalBefore.length).map((event) => event.type), ['merge'], 'the merge is one journal event');
    assert.equal(journal.at(-1)!.seq, journalBefore.at(-1)!.seq + 1);
    assert.equal(result.journalSeq, journal.at(-1)!.seq);

    const shown = parseJson<RunReport>(await evolveJson('show', target.runId));
    assert.equal(shown.best?.id, source.best!.id);
    const elites = new Set(after.archive.niches().map((niche) => niche.elite.id));
    assert.deepEqual(new Set(shown.niches!.map((niche) => niche.key)), new Set(after.archive.niches().map((niche) => niche.key)), 'every niche of the merged archive is shown');
    assert.ok(shown.niches!.every((niche) => elites.has(niche.best.id)), 'each shown niche names one of its elites');
    assert.ok(shown.niches!.some((niche) => niche.best.id === source.best!.id));
    assert.deepEqual(shown.merges?.map((merge) => merge.sources), [[{ runId: source.runId, programs: newToTarget.length }]]);
    const text = await evolve('show', target.runId);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`Merged in on .*: ${newToTarget.length} programs, from run ${source.runId} \\(${newToTarget.length}\\)`));
    assert.ok(text.stdout.includes(source.best!.id.slice(0, 12)), 'the merged best is among the elites shown');
    const untouched = stateOf(source.runDir);
    assert.equal(untouched.archive.size, theirs.archive.size, 'the source is only read');
  });

  it('a resume of the target continues from the merged archive, a replay replays the merge, and merging again adds nothing', async () => {
    const mergedBest = stateOf(target.runDir).best!;
    const resumed = await evolveJson('run', '--resume', target.runId, '--sync', '--evaluations', String(EVALUATIONS + 4));
    assert.equal(resumed.code, 0, resumed.stderr);
    const report = parseJson<RunOutput>(resumed);
    assert.equal(report.progress.evaluations, EVALUATIONS + 4);
    assert.ok(report.best!.objective >= mergedBest.objective!, `the best after the resume (${report.best!.objective}) is below the merged best (${mergedBest.objective})`);
    const after = stateOf(target.runDir);
    assert.ok(after.archive.has(mergedBest.id), 'the merged best survives the resume');
    assert.equal(after.merges.length, 1);
    const events = readJournalEvents(target.runDir);
    const mergeAt = events.findIndex((event) => event.type === 'merge');
    assert.ok(events.slice(mergeAt + 1).some((event) => event.type === 'plan'), 'the resumed run planned after the merge');

    const replay = parseJson<{ identical: boolean; bestId: string }>(await evolveJson('replay', target.runId, '--no-measure'));
    assert.equal(replay.identical, true, 'the replay, merge included, ends on the recorded best');
    assert.equal(replay.bestId, after.best!.id);

    const again = await evolveJson('merge', source.runId, '--into', target.runId);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(parseJson<MergeResult>(again).added, 0);
    assert.deepEqual(readJournalEvents(target.runDir), events, 'nothing was written');
  });
});
