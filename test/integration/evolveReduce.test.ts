/**
 * Minimal-diff reduction, end to end through the real CLI: a scripted model's winning answer
 * makes the real improvement and a useless edit beside it. As the run ends, the best is tried
 * without each change in the sandbox; best/ holds the program without the useless edit,
 * best-full/ the answer as it was, and the report, the CLI's last lines and `evolve best` give
 * both figures. The reduced program is recorded in the run, and replay derives it again byte
 * for byte.
 *
 * The example's objective is deterministic (a computed score, not a timing), so which drop is
 * kept never depends on the machine's load.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EvolveProject, readJournalEvents, readReportJson } from '../fixtures/evolveFixtures';
import { startOpenAiServer, type WireServer } from '../fixtures/llmWireServers';
import { tempDir } from '../fixtures/paths';
import { pairSeed } from '../../daemon/evolution/confirm/confirmGain';
import { RunDir } from '../../daemon/evolution/controller/runDir';

const lines = (...parts: string[]): string => parts.map((line) => `${line}\n`).join('');

const SEED = lines('# EVOLVE-BLOCK-START', 'def width():', '    return 1', '', '', 'def height():', '    return 1', '', '', 'def label():', '    return "box"', '# EVOLVE-BLOCK-END');

/** The score is width × height; label() must still say "box". Deterministic, and fast. */
const EVALUATOR = `import json, runpy, sys
ns = runpy.run_path(sys.argv[1])
correct = ns["label"]() == "box"
score = float(ns["width"]() * ns["height"]()) if correct else None
print(json.dumps({"correct": correct, "objective": score, "direction": "maximize", "metrics": {"inputs_checked": 3}}))
`;

/** The real improvement (2 changed lines) and a useless edit (1 line: the same label, spelt otherwise). */
const REAL = { search: lines('def width():', '    return 1'), replace: lines('def width():', '    # three times wider', '    return 3') };
const USELESS = { search: lines('def label():', '    return "box"'), replace: lines('def label():', '    return "b" + "ox"') };
const block = (edit: { search: string; replace: string }): string => `<<<<<<< SEARCH\n${edit.search}=======\n${edit.replace}>>>>>>> REPLACE`;
const ANSWER = `Make the box wider, and build the label from its parts.\n\n\`\`\`python\n${block(REAL)}\n\n${block(USELESS)}\n\`\`\`\n`;

const FULL_BEST = SEED.replace(REAL.search, REAL.replace).replace(USELESS.search, USELESS.replace);
const REDUCED = SEED.replace(REAL.search, REAL.replace);

describe('minimal-diff reduction of the best (real CLI, scripted model)', function () {
  this.timeout(300_000);
  const project = new EvolveProject();
  const exampleDir = tempDir('reduce-example');
  let server: WireServer;
  let runDir: string;
  let stdout: string;

  before(async () => {
    fs.writeFileSync(path.join(exampleDir, 'program.py'), SEED);
    fs.writeFileSync(path.join(exampleDir, 'evaluate.py'), EVALUATOR);
    fs.writeFileSync(
      path.join(exampleDir, 'peagen.example.json'),
      JSON.stringify({ name: 'wide_box', language: 'python', program: 'program.py', evaluator: ['python3', 'evaluate.py', '{program}'], objective: { name: 'score', direction: 'maximize' }, limits: { timeoutMs: 30_000 } }),
    );
    // The same answer to every request: about the seed it applies; about anything else it repeats a known child or does not apply.
    server = await startOpenAiServer({ responder: () => ANSWER });
    const run = await project.run(['evolve', 'run', exampleDir, '--sync', '--evaluations', '1', '--workers', '1', '--project', project.dir], { OPENAI_BASE_URL: server.baseUrl });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    stdout = run.stdout;
    const dirs = project.runDirs();
    assert.equal(dirs.length, 1, 'one run directory');
    runDir = dirs[0]!;
  });
  after(async () => {
    await server.close();
    project.cleanup();
    fs.rmSync(exampleDir, { recursive: true, force: true });
  });

  it('writes the best without the useless edit to best/, and the full best to best-full/', () => {
    assert.equal(fs.readFileSync(path.join(runDir, 'best', 'program.py'), 'utf8'), REDUCED);
    assert.equal(fs.readFileSync(path.join(runDir, 'best-full', 'program.py'), 'utf8'), FULL_BEST);
  });

  it('says both figures in the report and the CLI\'s last lines', () => {
    // A score (no unit) reads as its value: 3.000, not '3.0x' the seed.
    const summary = 'score 3.000 with 2 changed lines, 3.000 with all 3';
    const report = readReportJson(runDir);
    assert.equal(report.reduction?.summary, summary);
    assert.equal(report.reduction?.reduced?.changedLines, 2);
    assert.deepEqual(report.reduction?.reduced?.checks, { inputs_checked: 3 });
    assert.equal(report.reduction?.file, path.join(runDir, 'best', 'program.py'));
    assert.equal(report.best?.file, path.join(runDir, 'best-full', 'program.py'), 'the report\'s best is the full best, where it is');
    assert.match(fs.readFileSync(path.join(runDir, 'report.md'), 'utf8'), new RegExp(`\\*\\*${summary}\\*\\*`));
    assert.ok(stdout.includes(`smallest diff that keeps the gain: ${summary}`), stdout);
  });

  it('records the reduced program in the run: lineage "reduce" from the best, measured against the seed by the test that confirmed the best', () => {
    const events = readJournalEvents(runDir);
    const reduce = events.find((event) => event.type === 'reduce');
    assert.ok(reduce && reduce.type === 'reduce' && reduce.program);
    const best = readReportJson(runDir).best!;
    assert.equal(reduce.best, best.id);
    assert.equal(reduce.program.code, REDUCED);
    assert.equal(reduce.program.lineage.mutator, 'reduce');
    assert.deepEqual(reduce.program.lineage.parents, [best.id]);
    // Each trial is the gain test of the best's confirmation: seed and trial interleaved, the
    // pairs' own evaluation seeds; a deterministic score decides in two pairs.
    const runSeed = (JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8')) as { settings: { seed: number } }).settings.seed;
    assert.deepEqual(reduce.program.measurements.map((m) => m.seed), [pairSeed(runSeed, 0), pairSeed(runSeed, 1)]);
    assert.equal(reduce.confirmation?.verdict, 'gain');
    assert.equal(events.find((event) => event.type === 'confirm')?.type, 'confirm', 'the best was confirmed first');
    // The larger change (the real one) was tried first and kept (without it, the same score as the seed on both pairs: no gain); the useless one was dropped.
    assert.deepEqual(reduce.trials.map((trial) => trial.kept), [false, true]);
    assert.equal(reduce.evaluations, 8, 'two trials of two pairs each');
    assert.equal(new RunDir(runDir).getProgram(reduce.program.id).code, reduce.program.code, "in the run's program store");
  });

  it('evolve best prints the reduced best with both figures, --full the full best', async () => {
    const reduced = await project.run(['evolve', 'best', path.basename(runDir), '--project', project.dir]);
    assert.equal(reduced.code, 0, reduced.stderr);
    assert.equal(reduced.stdout, REDUCED);
    assert.match(reduced.stderr, /the reduced best: score 3\.000 with 2 changed lines, 3\.000 with all 3/);
    const full = await project.run(['evolve', 'best', path.basename(runDir), '--full', '--project', project.dir]);
    assert.equal(full.stdout, FULL_BEST);
  });

  it('replays byte-identically: the reduced program is derived again, its trials are not re-measured', async () => {
    const replay = await project.run(['--json', 'evolve', 'replay', path.basename(runDir), '--no-measure', '--project', project.dir]);
    assert.equal(replay.code, 0, replay.stderr);
    const result = JSON.parse(replay.stdout) as { identical: boolean; reducedId?: string };
    assert.equal(result.identical, true);
    const reduce = readJournalEvents(runDir).find((event) => event.type === 'reduce');
    assert.equal(result.reducedId, reduce?.type === 'reduce' ? reduce.program?.id : undefined);
  });

  it("evolve apply writes the reduced best into the example's own program (the user's markers kept), --full the full best; --diff is a patch git apply takes", async () => {
    // A hand-written example: its program file is the user's own, markers and all.
    const git = (...args: string[]): string => {
      const result = spawnSync('git', ['-c', 'user.name=User', '-c', 'user.email=user@example.com', ...args], { cwd: exampleDir, encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      return result.stdout;
    };
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'the example');
    try {
      const apply = (...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => project.run(['evolve', 'apply', runDir, '--project', exampleDir, ...args]);
      const diff = await apply('--diff');
      assert.equal(diff.code, 0, diff.stderr);
      assert.match(diff.stdout, /^diff --git a\/program\.py b\/program\.py\n/);
      assert.equal(spawnSync('git', ['apply', '--check'], { cwd: exampleDir, input: diff.stdout }).status, 0, diff.stdout);
      const reduced = await apply();
      assert.equal(reduced.code, 0, reduced.stderr);
      assert.match(reduced.stdout, /applied the reduced best \(score 3\.000 with 2 changed lines, 3\.000 with all 3; --full for every change\) of run .* to program\.py/);
      assert.equal(fs.readFileSync(path.join(exampleDir, 'program.py'), 'utf8'), REDUCED, 'the reduced best, EVOLVE-BLOCK markers the user wrote included');
      assert.equal(git('status', '--porcelain'), ' M program.py\n');
      git('checkout', '--', 'program.py');
      const full = await apply('--full');
      assert.equal(full.code, 0, full.stderr);
      assert.equal(fs.readFileSync(path.join(exampleDir, 'program.py'), 'utf8'), FULL_BEST);
    } finally {
      // The run's other tests read the example as it was.
      fs.writeFileSync(path.join(exampleDir, 'program.py'), SEED);
      fs.rmSync(path.join(exampleDir, '.git'), { recursive: true, force: true });
    }
  });

  it('evolve apply refuses, saying why and writing nothing: a run whose confirmation found no measurable improvement, a run in use, files outside the project', async () => {
    const copy = path.join(tempDir('reduce-apply-refusals'), path.basename(runDir));
    fs.cpSync(runDir, copy, { recursive: true });
    const apply = (): Promise<{ code: number | null; stdout: string; stderr: string }> => project.run(['evolve', 'apply', copy, '--project', exampleDir]);
    try {
      const reportFile = path.join(copy, 'report.json');
      const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as { best: { id: string } };
      const before = fs.readFileSync(path.join(exampleDir, 'program.py'), 'utf8');
      const confirmation = { programId: report.best.id, measure: 'ratio', value: 1.02, low: 0.91, high: 1.14, pairs: 5, verdict: 'no measurable improvement', zeroSpread: false, measured: [], elapsedMs: 1000 };
      fs.writeFileSync(reportFile, JSON.stringify({ ...report, confirmation }));
      // Not a failure: the run's answer is that nothing beat the seed beyond the noise.
      const noise = await apply();
      assert.equal(noise.code, 0, noise.stderr);
      assert.match(noise.stdout, /nothing to apply: run \S+'s best, measured again beside your code, is 1\.02x \[95% CI 0\.91-1\.14\]: no measurable improvement, so your files are left as they are/);
      assert.equal(fs.readFileSync(path.join(exampleDir, 'program.py'), 'utf8'), before, 'nothing is written');
      fs.writeFileSync(reportFile, JSON.stringify(report));

      fs.writeFileSync(path.join(copy, 'run.lock'), `${process.pid}\n`);
      const busy = await apply();
      assert.equal(busy.code, 1);
      assert.match(busy.stderr, new RegExp(`is still running \\(process ${process.pid}\\)`));
      fs.rmSync(path.join(copy, 'run.lock'));

      // run.json names where the program goes: never written outside the project apply was given.
      const outside = await project.run(['evolve', 'apply', copy, '--project', project.dir]);
      assert.equal(outside.code, 1);
      assert.match(outside.stderr, /program\.py is outside the project .*: apply writes only inside it/);
      assert.equal(fs.readFileSync(path.join(exampleDir, 'program.py'), 'utf8'), SEED, 'nothing was written');
    } finally {
      fs.rmSync(path.dirname(copy), { recursive: true, force: true });
    }
  });

  it('refuses to replay a run whose recorded reduction does not derive from its seed and best', async () => {
    const copy = path.join(tempDir('reduce-tampered'), path.basename(runDir));
    fs.cpSync(runDir, copy, { recursive: true });
    const journal = path.join(copy, 'journal.jsonl');
    // The recorded reduction claims it kept both changes: that derives the full best, not the recorded program.
    const tampered = fs
      .readFileSync(journal, 'utf8')
      .split('\n')
      .map((line) => (line.includes('"type":"reduce"') ? JSON.stringify({ ...(JSON.parse(line) as object), keep: [0, 1] }) : line))
      .join('\n');
    fs.writeFileSync(journal, tampered);
    const replay = await project.run(['evolve', 'replay', copy, '--no-measure']);
    assert.notEqual(replay.code, 0);
    assert.match(replay.stderr, /the reduced program derived again \([0-9a-f]{12}\) is not the recorded [0-9a-f]{12}/);
  });
});
