/**
 * A plugin's executor, chosen by name (`--executor`, `sandbox.executor`): the candidate really
 * runs through it, and a name nothing provides is a usage error that says what is offered.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { badSortOpsDir } from '../fixtures/badSortOps';
import { CLI, REPO, tempDir } from '../fixtures/paths';

/** bad_sort by counted instructions (badSortOps.ts): what matters is which executor ran it, not its speed. */
const EXAMPLE = badSortOpsDir();

describe('a plugin executor (peagen eval --executor NAME)', function () {
  this.timeout(120_000);
  let project: string;
  let marker: string;

  before(() => {
    project = tempDir('plugin-executor');
    marker = path.join(project, 'runs.log');
    const dir = path.join(project, 'node_modules', 'logged-executor');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'logged-executor', version: '1.0.0', peagen: { executors: './index.js' } }));
    // A third party's executor: Peagen's process executor with a line logged per run.
    fs.writeFileSync(
      path.join(dir, 'index.js'),
      [
        `const { ProcessExecutor } = require(${JSON.stringify(path.join(REPO, 'out', 'daemon', 'sandbox', 'ProcessExecutor.js'))});`,
        `const fs = require('fs');`,
        `exports.executors = [{ name: 'logged-process', create(settings, warn) {`,
        `  const inner = new ProcessExecutor(warn);`,
        `  return Object.assign(Object.create(inner), {`,
        `    async run(request, ...rest) { fs.appendFileSync(${JSON.stringify(marker)}, 'run\\n'); return inner.run(request, ...rest); },`,
        `  });`,
        `} }];`,
      ].join('\n'),
    );
    fs.writeFileSync(path.join(project, 'peagen.json'), JSON.stringify({ plugins: ['logged-executor'] }));
  });
  after(() => fs.rmSync(project, { recursive: true, force: true }));

  function evaluate(executor: string): { code: number | null; stdout: string; stderr: string } {
    const run = spawnSync(process.execPath, [CLI, '--json', 'eval', EXAMPLE, '--quick', '--executor', executor], {
      cwd: project,
      env: { ...process.env, PEAGEN_HOME: path.join(project, 'home') },
      encoding: 'utf8',
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  it('evaluates the candidate through the allowed plugin executor', () => {
    const { code, stdout, stderr } = evaluate('logged-process');
    assert.equal(code, 0, stderr);
    const json = JSON.parse(stdout) as { correct: boolean; sandbox: { executor: string; reason: string } };
    assert.equal(json.correct, true);
    assert.match(json.sandbox.reason, /logged-process \(a plugin's executor/);
    assert.ok(fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').includes('run'), 'the plugin executor never ran the candidate');
  });

  it('refuses an executor nothing provides, naming what is offered (exit 2)', () => {
    const { code, stdout } = evaluate('firecracker');
    assert.equal(code, 2);
    const json = JSON.parse(stdout) as { error: { code: string; message: string } };
    assert.equal(json.error.code, 'config');
    assert.match(json.error.message, /sandbox\.executor "firecracker" is neither built in \(auto, docker, bwrap, process\) nor provided by an allowed plugin; allowed plugins provide: logged-process/);
  });
});
