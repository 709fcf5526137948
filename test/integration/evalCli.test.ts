import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { Evaluation } from '../../shared/evaluation';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { type DockerEngine, releaseDockerEngine, useDockerEngine } from '../fixtures/dockerEngine';
import { CLI, REPO, tempDir } from '../fixtures/paths';

// bad_sort's own evaluator where its verdict is the point: the timed score in each sandbox, and
// what it says of a candidate that calls sorted() or crashes (cheap: no timing). What only
// exercises the CLI (the executor it picks, what it prints, the daemon path) evaluates
// bad_sort_ops: the same program by counted instructions, in a fraction of a second.
const BAD_SORT = path.join(REPO, 'examples', 'bad_sort');
const OPS = badSortOpsDir();

describe('peagen eval (dist/cli.js, real sandboxes)', function () {
  this.timeout(180_000);
  const home = tempDir('eval-cli');
  let engine: DockerEngine;

  before(async () => {
    engine = await useDockerEngine();
  });
  after(async () => {
    await releaseDockerEngine();
  });

  function evaluate(example: string, args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; json: Evaluation & { sandbox: { executor: string; isolates: boolean; reason: string; via: string }; example: string }; stderr: string } {
    const run = spawnSync(process.execPath, [CLI, '--json', 'eval', example, '--quick', ...args], {
      cwd: REPO,
      env: { ...process.env, PEAGEN_HOME: home, ...env },
      encoding: 'utf8',
    });
    assert.ok(run.stdout, `no output; stderr:\n${run.stderr}`);
    return { code: run.status, json: JSON.parse(run.stdout), stderr: run.stderr };
  }

  for (const executor of ['bwrap', 'docker'] as const) {
    it(`scores the seed program in a ${executor} sandbox and says so`, () => {
      const { code, json } = evaluate(BAD_SORT, ['--executor', executor], { DOCKER_HOST: engine.dockerHost });
      assert.equal(code, 0);
      assert.equal(json.example, 'bad_sort');
      assert.equal(json.executor, executor);
      assert.equal(json.sandbox.executor, executor);
      assert.match(json.sandbox.reason, new RegExp(executor));
      assert.equal(json.sandbox.via, 'this process');
      assert.equal(json.correct, true);
      assert.ok(json.objective !== null && json.objective > 0.4 && json.objective < 2.5, `speedup ${json.objective}`);
      assert.equal(typeof json.metrics.candidate_ms, 'number');
    });

    it(`reports a candidate that calls sorted() as incorrect in ${executor}, exit code 1`, () => {
      const { code, json } = evaluate(BAD_SORT, ['--executor', executor, '--program', path.join(BAD_SORT, 'test_candidates', 'uses_sorted.py')], {
        DOCKER_HOST: engine.dockerHost,
      });
      assert.equal(code, 1);
      assert.equal(json.correct, false);
      assert.equal(json.failure?.reason, 'incorrect');
    });
  }

  it('auto picks docker when an engine and the image are there', () => {
    const { json } = evaluate(OPS, [], { DOCKER_HOST: engine.dockerHost });
    assert.equal(json.executor, 'docker');
    assert.match(json.sandbox.reason, /auto chose docker/);
  });

  it('auto falls back to bwrap, saying why docker was passed over', () => {
    const { json } = evaluate(OPS, [], { DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
    assert.equal(json.executor, 'bwrap');
    assert.match(json.sandbox.reason, /passed over: docker/);
  });

  it("prints a failing candidate's text once", () => {
    const run = spawnSync(process.execPath, [CLI, 'eval', BAD_SORT, '--quick', '--executor', 'bwrap', '--program', path.join(BAD_SORT, 'test_candidates', 'crashes.py')], {
      cwd: REPO,
      env: { ...process.env, PEAGEN_HOME: home },
      encoding: 'utf8',
    });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /^bad_sort: FAILED \(incorrect\) — .*raised ValueError: boom/m);
    assert.equal(run.stdout.split('this candidate always crashes').length - 1, 1, run.stdout);
  });

  it('prints the executor name, and its long reason only with --verbose', () => {
    const human = (...flags: string[]) =>
      spawnSync(process.execPath, [CLI, ...flags, 'eval', OPS, '--quick'], {
        cwd: REPO,
        env: { ...process.env, PEAGEN_HOME: home, DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
        encoding: 'utf8',
      });
    const plain = human();
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /^executor: bwrap; wall/m);
    assert.doesNotMatch(plain.stdout + plain.stderr, /passed over|auto chose/);
    assert.match(human('--verbose').stdout, /^sandbox: auto chose bwrap: .*passed over: docker/m);
  });

  describe('through a running daemon', () => {
    const daemon = new DaemonProcess();
    before(async () => {
      await daemon.start([], { PEAGEN_EXECUTOR: 'bwrap' });
    });
    after(() => daemon.stop());

    const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      spawnSync(process.execPath, [CLI, ...args, 'eval', OPS, '--quick'], {
        cwd: REPO,
        env: { ...process.env, PEAGEN_HOME: daemon.home, PEAGEN_EXECUTOR: '', ...env },
        encoding: 'utf8',
      });

    it('shows the task id and its progress on stderr, and the executor by name', () => {
      const human = run([]);
      assert.equal(human.status, 0, human.stderr);
      assert.match(human.stderr, /through the daemon \(bwrap sandbox\): task t-\S+; Ctrl-C cancels it/);
      const states = [...human.stderr.matchAll(/^task t-\S+: (\w+)/gm)].map((match) => match[1]);
      assert.deepEqual(states, ['queued', 'running', 'done'], human.stderr);
      assert.match(human.stdout, /^executor: bwrap, via the daemon; wall/m);
      assert.doesNotMatch(human.stdout + human.stderr, /as configured/, 'the reason is for `daemon status` and --verbose');
    });

    it('keeps the full reason in the JSON sandbox object', () => {
      const out = run(['--json']);
      assert.equal(out.status, 0, out.stderr);
      const json = JSON.parse(out.stdout) as { sandbox: { executor: string; via: string; reason: string } };
      assert.equal(json.sandbox.executor, 'bwrap');
      assert.equal(json.sandbox.via, 'daemon');
      assert.match(json.sandbox.reason, /bwrap \(as configured\)/);
    });

    it('warns once that an executor asked for in the environment is not the daemon\'s', () => {
      const out = run([], { PEAGEN_EXECUTOR: 'process' });
      assert.equal(out.status, 0, out.stderr);
      const warnings = out.stderr.split('\n').filter((line) => line.includes('warning'));
      assert.equal(warnings.length, 1, out.stderr);
      assert.match(warnings[0] ?? '', /ignores PEAGEN_EXECUTOR=process \(it uses bwrap\).*`peagen daemon stop`.*--sync/);
    });
  });

  it('explains a directory that is not an example, with exit code 2', () => {
    const run = spawnSync(process.execPath, [CLI, 'eval', REPO], { env: { ...process.env, PEAGEN_HOME: home }, encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /peagen\.example\.json/);
  });
});
