/**
 * The parts of example environments that need no installer: which file an example asks for
 * and what its environment is keyed by, the one line an install failure becomes, and the
 * install lock between processes.
 */
import { sourceBuildOf } from '../../daemon/evaluation/environment/environmentCache';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EnvironmentError } from '../../daemon/evaluation/environment/environmentError';
import { environmentSpecsOf } from '../../daemon/evaluation/environment/environmentSpec';
import { describeInstallFailure } from '../../daemon/evaluation/environment/installFailure';
import { withInstallLock } from '../../daemon/evaluation/environment/installLock';
import { tempDir } from '../fixtures/paths';

describe('example environments: what is installed, and how failures and concurrent installs are handled', () => {
  describe('environmentSpecsOf', () => {
    const example = (files: Record<string, string>): string => {
      const dir = tempDir('env-spec');
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
      return dir;
    };

    it('asks for nothing without a requirements.txt, or with a package.json that has no dependencies', () => {
      assert.deepEqual(environmentSpecsOf(example({})), []);
      assert.deepEqual(environmentSpecsOf(example({ 'package.json': '{"type": "module", "devDependencies": {"x": "1"}}' })), []);
    });

    it('keys a requirements.txt by its content, and a package.json by its content and its lock file', () => {
      const [python] = environmentSpecsOf(example({ 'requirements.txt': 'numpy==2.0\n' }));
      assert.deepEqual({ kind: python?.kind, file: python?.file }, { kind: 'python', file: 'requirements.txt' });
      assert.equal(environmentSpecsOf(example({ 'requirements.txt': 'numpy==2.0\n' }))[0]?.sha256, python?.sha256);
      assert.notEqual(environmentSpecsOf(example({ 'requirements.txt': 'numpy==2.1\n' }))[0]?.sha256, python?.sha256);

      const manifest = '{"dependencies": {"lodash": "^4"}}';
      const [node] = environmentSpecsOf(example({ 'package.json': manifest }));
      assert.deepEqual({ kind: node?.kind, file: node?.file }, { kind: 'node', file: 'package.json' });
      assert.notEqual(environmentSpecsOf(example({ 'package.json': manifest, 'package-lock.json': '{}' }))[0]?.sha256, node?.sha256);
      assert.deepEqual(
        environmentSpecsOf(example({ 'package.json': manifest, 'requirements.txt': 'x\n' })).map((spec) => spec.kind),
        ['python', 'node'],
      );
    });

    it('refuses a package.json it cannot read, naming the file', () => {
      const dir = example({ 'package.json': '{"dependencies": ' });
      assert.throws(() => environmentSpecsOf(dir), (error: Error) => error instanceof EnvironmentError && error.message.includes(path.join(dir, 'package.json')));
      assert.throws(() => environmentSpecsOf(example({ 'package.json': '{"dependencies": ["lodash"]}' })), /"dependencies" must map package names to version strings/);
    });
  });

  describe('sourceBuildOf (requirements.txt lines pip would build, running their code)', () => {
    it('lets names, versions, options and wheels through', () => {
      for (const line of ['numpy==2.1.0', 'scipy>=1.13 ; python_version >= "3.10"', '', '# a comment', '--no-index', '--find-links ./wheels', './wheels/tiny-1.0-py3-none-any.whl', 'tiny @ file:///w/tiny-1.0-py3-none-any.whl']) {
        assert.equal(sourceBuildOf(line), null, line);
      }
    });
    it('refuses directories, archives, repositories, editable installs, --no-binary and nested files', () => {
      for (const line of ['./srcpkg', '/abs/srcpkg', 'srcpkg/', 'pkg-1.0.tar.gz ', 'https://example.org/pkg-1.0.tar.gz', 'git+https://example.org/pkg.git#egg=pkg', 'pkg @ git+https://example.org/pkg.git', 'file:./srcpkg', '-e .', '--editable ./srcpkg', '--no-binary :all:', '-r more.txt', '--constraint c.txt']) {
        assert.notEqual(sourceBuildOf(line), null, line);
      }
    });
  });

  describe('describeInstallFailure', () => {
    it("names the package pip could not find, with pip's conclusion", () => {
      const output = [
        'Looking in links: /opt/wheels',
        'ERROR: Could not find a version that satisfies the requirement numpyy (from versions: none)',
        'ERROR: No matching distribution found for numpyy',
      ].join('\n');
      assert.deepEqual(describeInstallFailure('python', output), { packageName: 'numpyy', reason: 'ERROR: No matching distribution found for numpyy' });
      assert.equal(describeInstallFailure('python', "ERROR: Invalid requirement: 'num py'\n").packageName, 'num py');
    });

    it('names the package npm could not get (npm 10+ and older output)', () => {
      const notFound = [
        'npm error code E404',
        'npm error 404 Not Found - GET https://registry.npmjs.org/lodashh - Not found',
        'npm error 404',
        "npm error 404  'lodashh@^4.0.0' is not in this registry.",
      ].join('\n');
      assert.deepEqual(describeInstallFailure('node', notFound), { packageName: 'lodashh', reason: '404 Not Found - GET https://registry.npmjs.org/lodashh - Not found' });
      const old = ['npm ERR! code ETARGET', 'npm ERR! notarget No matching version found for left-pad@99.0.0.'].join('\n');
      assert.equal(describeInstallFailure('node', old).packageName, 'left-pad@99.0.0');
      const scoped = 'npm error request to http://127.0.0.1:9/@scope%2fthing failed, reason: connect ECONNREFUSED 127.0.0.1:9';
      assert.equal(describeInstallFailure('node', scoped).packageName, '@scope/thing');
    });

    it('still gives the last line when the output names no package', () => {
      assert.deepEqual(describeInstallFailure('python', 'Traceback (most recent call last):\nOSError: disk full\n'), { reason: 'OSError: disk full' });
    });
  });

  describe('withInstallLock', () => {
    it('takes over a lock whose process died, and releases it after the work, also when the work fails', async () => {
      const lock = path.join(tempDir('env-lock'), 'x.lock');
      const dead = spawnSync(process.execPath, ['-e', '']).pid;
      fs.writeFileSync(lock, `${dead}\n`);
      assert.equal(await withInstallLock(lock, async () => fs.readFileSync(lock, 'utf8').trim()), String(process.pid));
      assert.equal(fs.existsSync(lock), false);
      await assert.rejects(withInstallLock(lock, async () => Promise.reject(new Error('pip failed'))), /pip failed/);
      assert.equal(fs.existsSync(lock), false);
    });

    it('waits while a live process holds the lock', async () => {
      const lock = path.join(tempDir('env-lock'), 'x.lock');
      const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      try {
        fs.writeFileSync(lock, `${holder.pid}\n`);
        let ran = false;
        const waiting = withInstallLock(lock, async () => {
          ran = true;
        });
        // Long enough for several looks at the lock; however long, the work cannot start while
        // the live holder's lock is there.
        await sleep(700);
        assert.equal(ran, false);
        fs.rmSync(lock); // the holder is done
        await waiting;
        assert.equal(ran, true);
      } finally {
        holder.kill('SIGKILL');
      }
    });
  });
});
