/**
 * run.json is defined once (shared/runManifest.ts): the daemon writes and reads it with that
 * schema, the extension reads it, and StartRun asks for its stop conditions. Runs written by
 * older versions, before the fields with defaults existed, still load.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RunDir } from '../../daemon/evolution/controller/runDir';
import { StartRun } from '../../shared/protocol';
import { RUN_MANIFEST_FILE, RunManifestSchema, StopConditionsSchema } from '../../shared/runManifest';

/** A run.json as the first runs wrote it: no objectiveUnit, policy, ablate, allowRewrite or choices. */
const OLD_MANIFEST = `{
  "version": 1,
  "runId": "20250101-120000-bad_sort-1a2b",
  "createdAt": "2025-01-01T12:00:00.000Z",
  "exampleDir": "/work/examples/bad_sort",
  "exampleName": "bad_sort",
  "program": "sort.py",
  "settings": {
    "direction": "maximize",
    "objectiveName": "speedup",
    "islands": 2,
    "selector": "adaptive",
    "mutator": "offline",
    "usesLlm": false,
    "backends": [],
    "routing": "weighted",
    "childrenPerGeneration": 4,
    "inspirations": 2,
    "repairFailedChildren": true,
    "confirmBest": true,
    "seed": 7
  },
  "stop": {
    "evaluations": 40
  },
  "evaluatorArgs": [],
  "llm": {
    "temperature": 0.7,
    "maxTokens": 4096,
    "repairAttempts": 1
  },
  "workers": 2
}
`;

describe('run.json (shared/runManifest.ts)', () => {
  let project: string;
  beforeEach(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-run-manifest-'));
  });
  afterEach(() => fs.rmSync(project, { recursive: true, force: true }));

  it('a run written before the fields with defaults existed still loads, with those defaults', () => {
    const dir = RunDir.create(project, 'bad_sort');
    assert.equal(dir.manifestFile, path.join(dir.dir, RUN_MANIFEST_FILE));
    fs.writeFileSync(dir.manifestFile, OLD_MANIFEST);
    const manifest = dir.readManifest();
    assert.equal(manifest.settings.direction, 'maximize');
    assert.equal(manifest.settings.objectiveUnit, undefined);
    assert.equal(manifest.settings.policy, undefined);
    assert.deepEqual(manifest.stop, { evaluations: 40 });
    assert.equal(manifest.llm.allowRewrite, false);
    assert.equal(manifest.llm.choices, 1);
  });

  it('what the daemon writes reads back the same, byte for byte once written again', () => {
    const dir = RunDir.create(project, 'bad_sort');
    const manifest = RunManifestSchema.parse(JSON.parse(OLD_MANIFEST));
    const current = RunManifestSchema.parse({ ...manifest, settings: { ...manifest.settings, objectiveUnit: 'x', policy: 5, ablate: ['split'] } });
    dir.writeManifest(current);
    const text = fs.readFileSync(dir.manifestFile, 'utf8');
    assert.deepEqual(dir.readManifest(), current);
    dir.writeManifest(dir.readManifest());
    assert.equal(fs.readFileSync(dir.manifestFile, 'utf8'), text);
  });

  it('a manifest this Peagen cannot read is refused, saying which file', () => {
    const dir = RunDir.create(project, 'bad_sort');
    fs.writeFileSync(dir.manifestFile, OLD_MANIFEST.replace('"maximize"', '"sideways"'));
    assert.throws(() => dir.readManifest(), /run\.json is not a run manifest this Peagen can read/);
  });

  it('StartRun asks for the stop conditions run.json records (one schema)', () => {
    const stops = [{}, { evaluations: 10 }, { wallMs: 60_000, target: 2.5 }, { budgetUsd: 0.5, maxLlmCalls: 3 }, { generations: 0 }, { budgetUsd: -1 }, { evaluations: 1.5 }];
    for (const stop of stops) {
      const asked = StartRun.params.safeParse({ exampleDir: '/e', projectDir: '/p', stop });
      const recorded = StopConditionsSchema.safeParse(stop);
      assert.equal(asked.success, recorded.success, JSON.stringify(stop));
      if (asked.success && recorded.success) assert.deepEqual(asked.data.stop, recorded.data);
    }
    assert.deepEqual(StartRun.params.parse({ exampleDir: '/e', projectDir: '/p' }).stop, {});
  });
});
