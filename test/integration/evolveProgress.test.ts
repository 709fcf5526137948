/**
 * A run that says what it is doing and why it ends as it does (issue 37, items 3 and 4), as a
 * user meets it: the real CLI on a small project whose every child's evaluation hangs. With a
 * small --eval-timeout the progress shows the evaluation in flight with its time and limit,
 * the sandbox kills it at that limit (in this process and through a daemon), and the end of
 * the run names "timed out" among the reasons; the offline mutator, having found nothing,
 * says what it cannot do and how to add a model.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { EvolveProject, NO_CONFIRMATION, parseJson, readJournalEvents, type RunOutput } from '../fixtures/evolveFixtures';
import { tempDir } from '../fixtures/paths';

/** The seed answers at once; every child (any other program) sleeps far past any limit the tests set. */
function stallingExample(): string {
  const dir = tempDir('stalling-example');
  fs.writeFileSync(
    path.join(dir, 'peagen.example.json'),
    JSON.stringify({
      name: 'stalling',
      language: 'python',
      program: 'prog.py',
      evaluator: ['python3', 'evaluate.py', '{program}'],
      objective: { name: 'score', direction: 'maximize' },
      // The example's own limit is long: only --eval-timeout can end a child's evaluation quickly.
      limits: { timeoutMs: 600_000 },
    }),
  );
  fs.writeFileSync(path.join(dir, 'prog.py'), '# EVOLVE-BLOCK-START\na = 1\nb = 2\nc = 3\n# EVOLVE-BLOCK-END\n');
  fs.writeFileSync(
    path.join(dir, 'evaluate.py'),
    [
      'import json, sys, time',
      'if open(sys.argv[1]).read() != open("prog.py").read():',
      '    time.sleep(120)',
      'print(json.dumps({"correct": True, "objective": 1.0, "direction": "maximize", "metrics": {}}))',
      '',
    ].join('\n'),
  );
  return dir;
}

/** The children's evaluations: each killed at the limit, well before the evaluator's sleep ends. */
function assertKilledAtLimit(runDir: string, limitMs: number): void {
  const children = readJournalEvents(runDir).flatMap((event) => (event.type === 'evaluation' ? [event.evaluation] : []));
  assert.ok(children.length >= 1, 'children were evaluated');
  for (const evaluation of children) {
    assert.equal(evaluation.failure?.reason, 'timeout');
    assert.ok(evaluation.wallMs >= limitMs - 200 && evaluation.wallMs < limitMs + 15_000, `killed at the --eval-timeout, after ${evaluation.wallMs} ms`);
  }
}

describe('evolve run: progress, --eval-timeout and the reasons at the end (real CLI)', function () {
  this.timeout(180_000);
  let project: EvolveProject;
  let example: string;

  beforeEach(() => {
    project = new EvolveProject();
    example = stallingExample();
  });
  afterEach(() => project.cleanup());

  it('shows the stalled evaluation with its elapsed time and limit, kills it at --eval-timeout, and ends with "timed out" among the reasons and the offline advice', async () => {
    const result = await project.run(['evolve', 'run', example, ...NO_CONFIRMATION, '--sync', '--evaluations', '2', '--workers', '1', '--eval-timeout', '3']);
    assert.equal(result.code, 0, result.stderr);
    // Piped (no TTY): plain progress lines, one of them naming the evaluation that runs long.
    assert.match(result.stderr, /1 running: #\d+ [12]s\/3s/, result.stderr);
    assert.doesNotMatch(result.stderr, /\r/, 'no redraws when piped');
    assert.match(result.stdout, /why children failed: 2 timed out after 3 s/, result.stdout);
    // Nothing improved on the offline mutator: it says what it cannot do and how to add a model.
    assert.match(result.stdout, /cannot change an algorithm/);
    for (const setting of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL']) assert.ok(result.stdout.includes(setting), `the advice names ${setting}`);
    const runDir = project.runDirs()[0]!;
    assertKilledAtLimit(runDir, 3_000);
    const report = fs.readFileSync(path.join(runDir, 'report.md'), 'utf8');
    assert.match(report, /## Why children failed[\s\S]*\| 2 \| timed out after 3 s \| evaluation \|/);
    assert.match(report, /## Without a model[\s\S]*OPENAI_BASE_URL/);
    // The limit is the run's: a resume keeps it.
    assert.equal((JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8')) as { evalTimeoutMs?: number }).evalTimeoutMs, 3_000);
  });

  it('--json keeps stdout one JSON report, with the reasons in it', async () => {
    const result = await project.run(['--json', 'evolve', 'step', example, '--sync', '--children', '1', '--workers', '1', '--reduce-budget', '0', '--eval-timeout', '2']);
    assert.equal(result.code, 0, result.stderr);
    const report = parseJson<RunOutput>(result);
    assert.deepEqual(report.failureReasons?.map((group) => [group.count, group.reason]), [[1, 'timed out after 2 s']]);
    assert.doesNotMatch(result.stderr, /running: /, 'no progress lines with --json');
  });

  it('refuses a bad --eval-timeout before anything runs, saying what it must be', async () => {
    for (const [value, why] of [
      ['0', /--eval-timeout must be a positive number of seconds \(got "0"\)/],
      ['-3', /--eval-timeout must be a positive number of seconds \(got "-3"\)/],
      ['soon', /--eval-timeout must be a positive number of seconds \(got "soon"\)/],
      ['4000', /--eval-timeout must be at most 3600 seconds \(got "4000"\)/],
    ] as const) {
      const result = await project.run(['evolve', 'run', example, '--sync', '--evaluations', '1', '--eval-timeout', value]);
      assert.equal(result.code, 2, `${value}: ${result.stderr}`);
      assert.match(result.stderr, why);
      assert.deepEqual(project.runDirs(), [], 'no run was made');
    }
  });

  describe('through a daemon', () => {
    const daemon = new DaemonProcess();
    before(async () => {
      await daemon.start([], { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_API_KEY: '' });
    });
    after(async () => {
      await daemon.stop();
    });

    it('--eval-timeout reaches the sandbox of the daemon\'s workers, and the summary names the reasons', async () => {
      const result = await project.run(['evolve', 'run', example, ...NO_CONFIRMATION, '--evaluations', '1', '--workers', '1', '--eval-timeout', '2', '--project', project.dir], { PEAGEN_HOME: daemon.home });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /started in the daemon/);
      assert.match(result.stdout, /why children failed: 1 timed out after 2 s/, result.stdout);
      assertKilledAtLimit(project.runDirs()[0]!, 2_000);
    });
  });
});
