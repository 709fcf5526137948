import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, REPO, TEST_PLUGIN, tempDir } from '../fixtures/paths';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('peagen CLI (dist/cli.js)', function () {
  this.timeout(60_000);
  const home = tempDir('cli');
  const cwd = tempDir('cli-project');
  const cliWithEnv = (env: NodeJS.ProcessEnv, ...args: string[]): Run => {
    const run = spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, PEAGEN_HOME: home, ...env }, encoding: 'utf8', timeout: 30_000 });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  const cli = (...args: string[]): Run => cliWithEnv({}, ...args);
  /** The --json error document of a failing command. */
  const jsonError = (run: Run): { code: string; message: string; exitCode: number } => {
    assert.equal(run.stderr, '', 'with --json the error is on stdout only');
    const document = JSON.parse(run.stdout) as { error: { code: string; message: string; exitCode: number } };
    assert.equal(document.error.exitCode, run.code);
    return document.error;
  };
  const json = <T>(...args: string[]): T => {
    const run = cli('--json', ...args);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as T;
  };

  before(() => {
    fs.writeFileSync(path.join(cwd, 'peagen.json'), JSON.stringify({ worker: { plugins: [TEST_PLUGIN] }, queue: { retryBaseMs: 10 } }));
  });
  after(() => {
    cli('daemon', 'stop', '--no-drain');
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it('--help lists the whole command tree of the brief, and every command has its own --help', () => {
    const help = cli('--help');
    assert.equal(help.code, 0);
    for (const command of ['init', 'render', 'mutate', 'evolve', 'worker', 'queue', 'daemon']) assert.match(help.stdout, new RegExp(`\\n  ${command}\\b`));
    for (const [parent, children] of Object.entries({
      evolve: ['step', 'run', 'list', 'show', 'best', 'apply', 'replay'],
      worker: ['start'],
      queue: ['stats', 'dlq'],
      'queue dlq': ['list', 'retry', 'inspect'],
      daemon: ['start', 'stop', 'status'],
    })) {
      const sub = cli(...parent.split(' '), '--help');
      assert.equal(sub.code, 0, sub.stderr);
      for (const child of children) assert.match(sub.stdout, new RegExp(`\\n  ${child}\\b`), `${parent} --help lacks ${child}`);
    }
    for (const leaf of [['render'], ['mutate'], ['evolve', 'step'], ['evolve', 'run'], ['worker', 'start'], ['daemon', 'start']]) {
      assert.equal(cli(...leaf, '--help').code, 0, `${leaf.join(' ')} --help`);
    }
    assert.match(cli('mutate', '--help').stdout, /--apply/);
    assert.match(cli('evolve', 'run', '--help').stdout, /--generations/);
    assert.match(cli('init', '--help').stdout, /--tests <cmd>[\s\S]*--objective <objective>/);
    assert.match(cli('worker', 'start', '--help').stdout, /--caps/);
  });

  it('render without its projects file is a usage error (exit code 2)', () => {
    const run = cli('render');
    assert.equal(run.code, 2);
    assert.match(run.stderr, /missing required argument 'projects-yaml'/);
  });

  it('a bad number names what is wrong with it and what is accepted', () => {
    for (const [args, expected] of [
      [['evolve', 'run', 'examples/bad_sort', '--evaluations', '-3'], /^peagen: --evaluations takes a whole number of 1 or more; "-3" is negative$/],
      [['evolve', 'run', 'examples/bad_sort', '--workers', '0'], /^peagen: --workers takes a whole number of 1 or more; "0" is less than 1$/],
      [['evolve', 'run', 'examples/bad_sort', '--generations', '2.5'], /^peagen: --generations takes a whole number of 1 or more; "2\.5" is not a whole number$/],
      [['eval', 'examples/bad_sort', '--seed', 'ten'], /^peagen: --seed takes a whole number of 0 or more; "ten" is not a number written in digits$/],
      [['task', 'result', 't-1', '--wait', '-1'], /^peagen: --wait takes a whole number of 0 or more; "-1" is negative$/],
    ] as const) {
      const run = cli(...args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr.trim(), expected);
    }
  });

  it('a mistyped command gets the suggestion and one line pointing to --help, not the whole help screen', () => {
    for (const [args, suggestion, help] of [
      [['evolv'], /\(Did you mean evolve\?\)/, '`peagen --help`'],
      [['evolve', 'lst'], /\(Did you mean list\?\)/, '`peagen evolve --help`'],
    ] as const) {
      const run = cli(...args);
      assert.equal(run.code, 2);
      assert.match(run.stderr, suggestion);
      assert.doesNotMatch(run.stderr, /Usage:|Options:|Commands:/, run.stderr);
      const lines = run.stderr.trim().split('\n');
      assert.equal(lines.length, 3, run.stderr);
      assert.equal(lines[2], `(see ${help})`);
    }
  });

  it('`daemon status` reports a broken configuration (exit code 2) instead of ignoring it', () => {
    const bad = tempDir('status-config');
    fs.writeFileSync(path.join(bad, 'peagen.json'), '{"worker": {"concurency": 2}}');
    const run = spawnSync(process.execPath, [CLI, 'daemon', 'status'], { cwd: bad, env: { ...process.env, PEAGEN_HOME: home }, encoding: 'utf8' });
    fs.rmSync(bad, { recursive: true });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /peagen\.json: unknown key "worker\.concurency"/);
  });

  it('`evolve list` in a fresh folder suggests commands that work there', () => {
    const fresh = tempDir('fresh-project');
    const list = (): string => {
      const run = spawnSync(process.execPath, [CLI, 'evolve', 'list'], { cwd: fresh, env: { ...process.env, PEAGEN_HOME: home }, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      return run.stdout;
    };
    try {
      const hint = list();
      assert.match(hint, /peagen init FILE --function NAME/);
      for (const [, command] of hint.matchAll(/`peagen evolve run ([^`]+)`/g)) {
        assert.ok(fs.existsSync(path.resolve(fresh, command!, 'peagen.example.json')), `${command} exists for this user: ${hint}`);
      }
      // Once `peagen init` made an example here, that is what to evolve.
      fs.mkdirSync(path.join(fresh, '.peagen', 'examples', 'stats-mean'), { recursive: true });
      fs.writeFileSync(path.join(fresh, '.peagen', 'examples', 'stats-mean', 'peagen.example.json'), '{}');
      assert.match(list(), /`peagen evolve run \.peagen\/examples\/stats-mean`/);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('`npm install -g .` in a checkout (after `npm ci`) puts a working `peagen` on PATH, offline', function () {
    this.timeout(180_000);
    const prefix = tempDir('global-prefix');
    try {
      const install = spawnSync('npm', ['install', '-g', '.', '--prefix', prefix, '--offline', '--no-audit', '--no-fund'], { cwd: REPO, encoding: 'utf8', timeout: 170_000 });
      assert.equal(install.status, 0, install.stderr);
      const run = spawnSync('peagen', ['--version'], { cwd, env: { ...process.env, PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH}` }, encoding: 'utf8' });
      assert.equal(run.status, 0, `${run.error ?? ''}${run.stderr}`);
      const { version } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
      assert.equal(run.stdout.trim(), version);
    } finally {
      fs.rmSync(prefix, { recursive: true, force: true });
    }
  });

  it('rejects unknown options with exit code 2', () => {
    assert.equal(cli('daemon', 'status', '--bogus').code, 2);
  });

  it('explains a malformed config file and exits 2', () => {
    const bad = tempDir('bad-config');
    fs.writeFileSync(path.join(bad, 'peagen.json'), '{"worker": {"concurrency": "many"}}');
    const run = cli('--config', path.join(bad, 'peagen.json'), 'task', 'submit', 'echo', '--sync');
    fs.rmSync(bad, { recursive: true });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /concurrency/);
  });

  it('names the file and the key path of a misspelt key inside a section', () => {
    const bad = tempDir('typo-config');
    fs.writeFileSync(path.join(bad, 'peagen.json'), JSON.stringify({ worker: { concurency: 4 }, sandbox: { excutor: 'bwrap' } }));
    const run = spawnSync(process.execPath, [CLI, 'task', 'submit', 'echo', '--sync'], { cwd: bad, env: { ...process.env, PEAGEN_HOME: home }, encoding: 'utf8' });
    fs.rmSync(bad, { recursive: true });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /peagen\.json: unknown key "worker\.concurency" \(did you mean "concurrency"\?\)/);
    assert.match(run.stderr, /peagen\.json: unknown key "sandbox\.excutor"/);
  });

  it('reports a bad queue address or environment value in one line naming the setting, exit code 2', () => {
    for (const [variable, value] of [
      ['QUEUE_URL', 'garbage'],
      ['QUEUE_URL', 'redis://localhost:notaport'],
      ['WORKER_CONCURRENCY', 'abc'],
      ['WORKER_IDLE_EXIT', '-1'],
      ['PEAGEN_EXECUTOR', 'foo'],
    ] as const) {
      const run = cliWithEnv({ [variable]: value }, 'task', 'submit', 'echo', '--sync');
      assert.equal(run.code, 2, `${variable}=${value}: ${run.stderr}`);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(run.stderr, new RegExp(`${variable}=`));
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    }
  });

  it('--json prints one error document on stdout for every kind of failure', () => {
    const bad = tempDir('json-config');
    fs.writeFileSync(path.join(bad, 'peagen.json'), '{"worker": {"concurency": 2}}');
    const cases: Array<[string[], NodeJS.ProcessEnv, string, number]> = [
      [['daemon', 'status', '--bogus'], {}, 'usage', 2],
      [['task', 'submit'], {}, 'usage', 2],
      [[], {}, 'usage', 2],
      [['--config', path.join(bad, 'peagen.json'), 'task', 'submit', 'echo', '--sync'], {}, 'config', 2],
      [['task', 'submit', 'echo', '--sync'], { QUEUE_URL: 'redis://localhost:notaport' }, 'config', 2],
      [['queue', 'stats'], {}, 'no_daemon', 3],
      [['render', 'no/such/projects.yaml'], {}, 'usage', 2],
      [['evolve', 'run', 'no/such/example', '--sync'], {}, 'usage', 2],
      [['evolve', 'show', 'no-such-run'], {}, 'usage', 2],
      [['evolve', 'run', 'examples/bad_sort', '--workers', '0'], {}, 'usage', 2],
      [['task', 'submit', 'refuse', '--sync', '--payload', 'not json'], {}, 'usage', 2],
    ];
    for (const [args, env, code, exitCode] of cases) {
      const run = cliWithEnv(env, '--json', ...args);
      const error = jsonError(run);
      assert.equal(error.code, code, `${args.join(' ')}: ${run.stdout}`);
      assert.equal(error.exitCode, exitCode);
      assert.ok(error.message.length > 0);
    }
    fs.rmSync(bad, { recursive: true });
    // Without --json the same failure is human text on stderr and nothing on stdout.
    const human = cli('queue', 'stats');
    assert.equal(human.code, 3);
    assert.equal(human.stdout, '');
    assert.match(human.stderr, /^peagen: no daemon is running/);
    // --help and --version are not errors.
    assert.doesNotMatch(cli('--json', '--help').stdout, /"error"/);
  });

  it('answers "no daemon" with exit code 3 and the command that fixes it', () => {
    const run = cli('daemon', 'status');
    assert.equal(run.code, 3);
    assert.match(run.stderr, /peagen daemon start/);
  });

  it('runs a task without any daemon with --sync', () => {
    const out = json<{ result: { status: string; data: unknown } }>('task', 'submit', 'echo', '--payload', '{"message":"local"}', '--sync');
    assert.equal(out.result.status, 'ok');
    assert.deepEqual(out.result.data, { message: 'local' });
  });

  it('starts a daemon, reports it, runs tasks through it, manages the dead-letter list and stops it', () => {
    const started = json<{ started: boolean; pid: number; address: string }>('daemon', 'start');
    assert.equal(started.started, true);
    assert.equal(json<{ alreadyRunning: boolean }>('daemon', 'start').alreadyRunning, true);

    const status = json<{ queue: { backend: string }; workers: { count: number; caps: string[] } }>('daemon', 'status');
    assert.equal(status.queue.backend, 'memory');
    assert.equal(status.workers.count, 2);

    const echo = json<{ result: { status: string; data: unknown } }>('task', 'submit', 'echo', '--payload', '{"message":"via daemon"}', '--wait', '10');
    assert.equal(echo.result.status, 'ok');
    assert.deepEqual(echo.result.data, { message: 'via daemon' });

    const quiet = cli('task', 'submit', 'echo', '--wait', '10');
    assert.doesNotMatch(quiet.stderr, /warning/, 'the same settings as the daemon: no warning');
    const ignored = cliWithEnv({ WORKER_CONCURRENCY: '7', QUEUE_URL: 'redis://queue.internal:6379' }, 'task', 'submit', 'echo', '--wait', '10');
    assert.equal(ignored.code, 0, ignored.stderr);
    const warnings = ignored.stderr.split('\n').filter((line) => line.includes('warning'));
    assert.equal(warnings.length, 1, ignored.stderr);
    assert.match(warnings[0] ?? '', /ignores QUEUE_URL=redis:\/\/queue\.internal:6379 \(it uses memory:\/\/\), WORKER_CONCURRENCY=7 \(it uses 2\)/);
    assert.match(warnings[0] ?? '', /`peagen daemon stop`.*--sync/);
    assert.match(cliWithEnv({ WORKER_CONCURRENCY: '7' }, 'queue', 'stats').stderr, /ignores WORKER_CONCURRENCY=7/);

    const refused = cli('--json', 'task', 'submit', 'refuse', '--wait', '10');
    assert.equal(refused.code, 1, 'a failed task exits 1');
    const refusedId = (JSON.parse(refused.stdout) as { taskId: string }).taskId;

    const flaky = cli('--json', 'task', 'submit', 'flaky', '--wait', '10');
    assert.equal(flaky.code, 1);
    const flakyId = (JSON.parse(flaky.stdout) as { taskId: string }).taskId;
    const dead = json<Array<{ task: { id: string; attempts: number }; reason: string }>>('queue', 'dlq', 'list');
    assert.deepEqual(dead.map((entry) => entry.task.id), [flakyId], 'only the retried-out task is dead; the refused one got a final error result');
    assert.equal(dead[0]?.task.attempts, 3);
    assert.match(dead[0]?.reason ?? '', /flaky/);
    assert.equal(json<{ task: { id: string } }>('queue', 'dlq', 'inspect', flakyId).task.id, flakyId);
    assert.equal(cli('queue', 'dlq', 'inspect', refusedId).code, 1);

    const stats = json<{ dead: number; pending: number }>('queue', 'stats');
    assert.equal(stats.dead, 1);
    assert.equal(json<{ retried: boolean }>('queue', 'dlq', 'retry', flakyId).retried, true);

    // A task running: `workers here` and the cluster's pool line count the same busy slot.
    const sleeping = json<{ taskId: string }>('task', 'submit', 'sleep', '--payload', '{"ms":60000}');
    type Busy = { workers: { busy: number }; cluster: { workers: Array<{ busy: number }> } };
    let busy = json<Busy>('queue', 'stats');
    for (let i = 0; i < 100 && busy.workers.busy === 0; i++) {
      spawnSync('sleep', ['0.1']);
      busy = json<Busy>('queue', 'stats');
    }
    assert.equal(busy.workers.busy, 1, JSON.stringify(busy));
    assert.deepEqual(busy.cluster.workers.map((pool) => pool.busy), [1], 'the cluster directory says the same');
    const text = cli('queue', 'stats').stdout;
    assert.match(text, /workers here: 2 in-process \(1 busy\)/, text);
    assert.match(text, /cluster: 1 worker pool on 1 host, 2 slots, 1 busy/, text);
    const pending = cli('task', 'result', sleeping.taskId);
    assert.equal(pending.code, 1);
    assert.match(pending.stderr, new RegExp(`task ${sleeping.taskId} has no result yet: it is queued or running; wait for it with .*--wait`));
    const unknown = cli('task', 'result', 't-no-such-task', '--wait', '30');
    assert.equal(unknown.code, 1, 'not waited for: nothing will answer it');
    assert.match(unknown.stderr, /^peagen: unknown task t-no-such-task: the daemon's queue holds no task by that id/);
    assert.match(unknown.stderr, /`peagen queue stats`/);
    assert.doesNotMatch(unknown.stderr, /\(yet\)/);
    assert.equal(json<{ cancelled: boolean }>('task', 'cancel', sleeping.taskId).cancelled, true);

    const stopped = json<{ stopped: boolean; pid: number }>('daemon', 'stop');
    assert.equal(stopped.stopped, true);
    assert.throws(() => process.kill(started.pid, 0), 'the daemon process is gone');
    assert.equal(cli('daemon', 'status').code, 3);
  });
});
