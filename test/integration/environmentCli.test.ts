/**
 * What a user sees of an example's requirements.txt through `peagen eval` and `evolve run`: the
 * first evaluation installs it and says so, the next one reuses it, in bwrap and in Docker
 * (the private engine of the docker tests); a package pip cannot find is one line naming it.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type DockerEngine, releaseDockerEngine, useDockerEngine } from '../fixtures/dockerEngine';
import { buildTinyWheel, writePythonEnvironmentExample } from '../fixtures/environmentExamples';
import { type PackageIndex, startPackageIndex } from '../fixtures/packageIndex';
import { NO_CONFIRMATION } from '../fixtures/evolveFixtures';
import { CLI, REPO, tempDir } from '../fixtures/paths';

describe('peagen eval and evolve run of an example with a requirements.txt (dist/cli.js, real sandboxes)', function () {
  this.timeout(180_000);
  const home = tempDir('env-cli');
  const example = tempDir('env-cli-example');
  writePythonEnvironmentExample(example);
  let engine: DockerEngine;
  let index: PackageIndex;

  before(async () => {
    engine = await useDockerEngine();
    index = await startPackageIndex({ wheels: [buildTinyWheel(tempDir('env-cli-wheels'))] });
  });
  after(async () => {
    await releaseDockerEngine();
    await index?.close();
  });

  // The daemon's index setting is this test's local index (the example names its package only).
  // Asynchronous: the index answers from this process while the CLI installs.
  const cli = (args: string[], env: Record<string, string>) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, env: { ...process.env, PIP_CONFIG_FILE: '/dev/null', PIP_INDEX_URL: index.pipIndexUrl, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  const evaluate = (dir: string, executor: string) => cli(['eval', dir, '--executor', executor], { PEAGEN_HOME: home, DOCKER_HOST: engine.dockerHost });

  it('installs the environment at the first evaluation, reuses it in the next, in bwrap and docker', async () => {
    const first = await evaluate(example, 'bwrap');
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /^installing requirements\.txt of peagen-env-cli-example-\w+ \(once; later evaluations reuse it\) \.\.\.$/m);
    const installed = /^environment: requirements\.txt \(sha256 [0-9a-f]{12}…\) cached at (\S+), installed now$/m.exec(first.stdout);
    assert.ok(installed, first.stdout);
    assert.equal(path.dirname(installed[1]!), path.join(home, 'environments'));
    assert.match(first.stdout, /correct — score 1\.000[\s\S]*metrics: answer=22/);

    const second = await evaluate(example, 'docker');
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /^executor: docker/m);
    assert.ok(second.stdout.includes(`cached at ${installed[1]}, reused`), second.stdout);
    assert.doesNotMatch(second.stderr, /installing/);
    assert.match(second.stdout, /metrics: answer=22/);
  });

  it('evolve run says which environment the run used, at the end and in its report', async () => {
    const runHome = tempDir('env-cli-run-home');
    const project = tempDir('env-cli-project');
    const run = await cli(['evolve', 'run', example, ...NO_CONFIRMATION, '--evaluations', '1', '--mutator', 'offline', '--sync', '--project', project], { PEAGEN_HOME: runHome, PEAGEN_EXECUTOR: 'bwrap' });
    assert.equal(run.status, 0, run.stderr);
    const line = /^environment: requirements\.txt \(sha256 [0-9a-f]{12}…\) cached at (\S+), installed now$/m;
    const installed = line.exec(run.stdout);
    assert.ok(installed, run.stdout);
    assert.equal(path.dirname(installed[1]!), path.join(runHome, 'environments'));
    const [runDir] = fs.readdirSync(path.join(project, '.peagen', 'runs'));
    const report = fs.readFileSync(path.join(project, '.peagen', 'runs', runDir!, 'report.md'), 'utf8');
    assert.ok(report.includes(`cached at \`${installed[1]}\`, installed for this run.`), report);
  });

  it('names the package pip cannot find in one line, exit status 1, nothing cached', async () => {
    const bad = tempDir('env-cli-bad');
    writePythonEnvironmentExample(bad, 'nosuchpkg-peagen\n');
    const before = fs.readdirSync(path.join(home, 'environments'));
    const run = await evaluate(bad, 'bwrap');
    assert.equal(run.status, 1);
    const errors = run.stderr.split('\n').filter((line) => line.startsWith('peagen:'));
    assert.deepEqual(errors.length, 1, run.stderr);
    assert.match(errors[0]!, /^peagen: cannot install .*requirements\.txt: pip install failed on the package "nosuchpkg-peagen" .*No matching distribution found for nosuchpkg-peagen/);
    assert.doesNotMatch(run.stderr, /\n\s+at /); // no stack trace
    assert.deepEqual(fs.readdirSync(path.join(home, 'environments')), before);
  });
});
