/**
 * `evolve step` (one generation, for scripts and HPC) and the commands that read runs back:
 * `evolve list`, `evolve show` (with its niches in the example's units), `evolve best`. Real
 * CLI, real evaluations of bad_sort_ops (bad_sort judged by counted instructions, a fraction of
 * a second each), no LLM.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { EvolveProject, firstEvaluations, parseJson, readJournalEvents, type RunOutput } from '../fixtures/evolveFixtures';

describe('peagen evolve step, list, show, best (real CLI, real evaluations)', function () {
  this.timeout(300_000);
  const project = new EvolveProject();
  after(() => project.cleanup());

  it('step runs one generation of --children children; step --resume runs the next; list, show and best read the run back', async () => {
    const first = await project.run(['--json', 'evolve', 'step', badSortOpsDir(), '--sync', '--quick', '--children', '2', '--workers', '2', '--project', project.dir]);
    assert.equal(first.code, 0, first.stderr);
    const one = parseJson<RunOutput>(first);
    assert.equal(one.stopReason, 'generations');
    assert.equal(one.progress.evaluations, 2, 'one generation is --children evaluations');
    assert.equal(one.progress.generation, 1);

    const second = await project.run(['--json', 'evolve', 'step', '--resume', one.runId, '--sync', '--workers', '2', '--project', project.dir]);
    assert.equal(second.code, 0, second.stderr);
    const two = parseJson<RunOutput>(second);
    assert.equal(two.runId, one.runId);
    assert.equal(two.progress.evaluations, 4, 'the next generation adds --children evaluations');
    assert.equal(two.progress.generation, 2);
    const events = readJournalEvents(two.runDir);
    assert.equal(events.filter((event) => event.type === 'seed').length, 1, 'the seed is never re-added');
    const firsts = firstEvaluations(events);
    assert.equal(new Set(firsts.map((event) => event.childId)).size, firsts.length, 'no child evaluated twice');

    const list = parseJson<{ runs: { runId: string; state: string; evaluations: number }[] }>(await project.run(['--json', 'evolve', 'list', '--project', project.dir]));
    assert.deepEqual(list.runs.map((run) => [run.runId, run.state, run.evaluations]), [[one.runId, 'finished', 4]]);

    const show = await project.run(['evolve', 'show', one.runId, '--project', project.dir]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, new RegExp(`# Peagen run ${one.runId}`));
    assert.match(show.stdout, /Lineage of the best|No correct program beyond the seed/);
    // Niches as the user reads them: bad_sort_ops's speedup (unit x) and its structure on the default grid of a Python program.
    assert.match(show.stdout, /## Niches/);
    const rows = show.stdout.split('\n').filter((line) => line.startsWith('| ') && / (no maps or sets|maps|sets|maps and sets) \|/.test(line));
    assert.ok(rows.length > 0, `niche rows in:\n${show.stdout}`);
    for (const row of rows) {
      assert.match(row, /^\| (★ )?speedup ([<≥] [\d.]+|[\d.]+–[\d.]+)x · (no loops|loops \d\+?) · (no built-ins|1 built-in|\d–\d built-ins|\d\+ built-ins) · (not )?recursive · (no maps or sets|maps|sets|maps and sets) \| /, row);
    }
    assert.doesNotMatch(show.stdout, /bin \d|objective=\d/, 'no bin numbers or raw keys');
    // Each label is the truth about its elite: its speedup lies in the range the label names.
    const shown = parseJson<RunOutput>(await project.run(['--json', 'evolve', 'show', one.runId, '--project', project.dir]));
    assert.ok(shown.niches && shown.niches.length === rows.length, 'report.json lists the niches report.md shows');
    for (const niche of shown.niches) {
      const [, low, high] = /^speedup (?:< |≥ )?([\d.]+)(?:–([\d.]+))?x/.exec(niche.label) ?? [];
      const objective = niche.best.objective!;
      if (niche.label.startsWith('speedup < ')) assert.ok(objective < Number(low), `${objective} in ${niche.label}`);
      else assert.ok(objective >= Number(low) && (high === undefined || objective < Number(high)), `${objective} in ${niche.label}`);
    }

    const best = await project.run(['evolve', 'best', two.runDir]);
    assert.equal(best.code, 0, best.stderr);
    assert.equal(best.stdout, fs.readFileSync(path.join(two.runDir, 'best', 'bad_sort.py'), 'utf8'));
    assert.match(best.stdout, /def bad_sort\(/);

    const missing = await project.run(['evolve', 'show', 'no-such-run', '--project', project.dir]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no run "no-such-run"/);
  });
});
