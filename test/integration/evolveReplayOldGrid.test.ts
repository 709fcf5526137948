/**
 * A run made before the structural axes (its run.json records no `features`: it binned by
 * objective x code length) still replays byte-identically, with the same selections: a new
 * default grid must never move an existing run's niches. The fixture is a real 30-evaluation
 * offline bad_sort run made by the code of the commit before them (e6ca77e); with the new
 * grid in its place, its job 17 derives another child.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BAD_SORT_DIR, EvolveProject, parseJson } from '../fixtures/evolveFixtures';
import { REPO } from '../fixtures/paths';

const FIXTURE = path.join(REPO, 'test', 'fixtures', 'runs', 'bad_sort-before-structure-axes');

describe('evolve replay of a run made with the objective x code length grid (real CLI)', function () {
  this.timeout(120_000);
  const project = new EvolveProject();
  let runDir: string;

  before(() => {
    const manifest = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'run.json'), 'utf8')) as { runId: string; exampleDir: string; settings: { features?: unknown }; llm: { promptDir: string } };
    assert.equal(manifest.settings.features, undefined, 'the fixture is a run that recorded no grid');
    runDir = path.join(project.dir, '.peagen', 'runs', manifest.runId);
    fs.cpSync(FIXTURE, runDir, { recursive: true });
    fs.mkdirSync(path.join(runDir, 'llm'), { recursive: true });
    // The run was made elsewhere: its example and prompt folder are this checkout's and project's.
    manifest.exampleDir = BAD_SORT_DIR;
    manifest.llm.promptDir = path.join(project.dir, '.peagen', 'prompts');
    fs.writeFileSync(path.join(runDir, 'run.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  });
  after(() => project.cleanup());

  it('re-derives every child with the same selections and a byte-identical best', async () => {
    const result = await project.run(['--json', 'evolve', 'replay', runDir, '--no-measure', '--project', project.dir]);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    const replayed = parseJson<{ identical: boolean; children: number; plans: number }>(result);
    assert.equal(replayed.identical, true);
    assert.equal(replayed.children, 36);
  });
});
