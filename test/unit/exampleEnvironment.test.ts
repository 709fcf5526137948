/**
 * The parts of example environments that need no installer: which file an example asks for
 * and what its environment is keyed by, the one line an install failure becomes, and the
 * install lock between processes.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { environmentDirName } from '../../daemon/evaluation/environment/environmentCache';
import { EnvironmentError } from '../../daemon/evaluation/environment/environmentError';
import { environmentSpecsOf } from '../../daemon/evaluation/environment/environmentSpec';
import { nodeRegistryDependencies, pythonRequirements } from '../../daemon/evaluation/environment/packageRequests';
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

    it('refuses a requirements.txt or package.json that links out of the example, without quoting what it links to', () => {
      const secret = path.join(tempDir('env-secret'), 'token.txt');
      fs.writeFileSync(secret, 'API_TOKEN=s3cr3t\n');
      for (const name of ['requirements.txt', 'package.json']) {
        const dir = example({});
        fs.symlinkSync(secret, path.join(dir, name));
        assert.throws(() => environmentSpecsOf(dir), (error: Error) => {
          assert.ok(error instanceof EnvironmentError);
          assert.match(error.message, /outside the example directory/);
          assert.doesNotMatch(error.message, /s3cr3t/);
          return true;
        });
      }
      // A link inside the example is its own file.
      const dir = example({ 'reqs.txt': 'numpy==2.0\n' });
      fs.symlinkSync('reqs.txt', path.join(dir, 'requirements.txt'));
      const [spec] = environmentSpecsOf(dir);
      assert.deepEqual(spec?.kind === 'python' && spec.requirements, ['numpy==2.0']);
    });

    it('refuses a package.json it cannot read, naming the file', () => {
      const dir = example({ 'package.json': '{"dependencies": ' });
      assert.throws(() => environmentSpecsOf(dir), (error: Error) => error instanceof EnvironmentError && error.message.includes(path.join(dir, 'package.json')));
      assert.throws(() => environmentSpecsOf(example({ 'package.json': '{"dependencies": ["lodash"]}' })), /"dependencies" must map package names to version strings/);
    });
  });

  describe('pythonRequirements (released packages by name and version, nothing else)', () => {
    it('takes PEP 508 requirements: names, extras, version specifiers, markers; skips comments and blank lines', () => {
      const text = ['numpy==2.1.0', 'scipy>=1.13,<2 ; python_version >= "3.10"', 'requests[socks, security] (>=2.31)', '', '# a comment', 'attrs  # pinned later', 'Foo.Bar_baz~=1.0.post1'].join('\n');
      assert.deepEqual(pythonRequirements(text, 'r.txt'), ['numpy==2.1.0', 'scipy>=1.13,<2 ; python_version >= "3.10"', 'requests[socks, security] (>=2.31)', 'attrs', 'Foo.Bar_baz~=1.0.post1']);
    });

    it('refuses every option, continuation, path, archive, URL and repository, naming the file and line', () => {
      for (const line of [
        '-e .', '-e./srcpkg', '-esrcpkg', '--edit ./srcpkg', '--editable=./srcpkg', '-f ./pkgs', '--find-links=./pkgs', '--only-binary=:none:', '--no-binary :all:',
        '--index-url http://127.0.0.1:9/', '-i http://x', '--extra-index-url http://x', '-r more.txt', '-c c.txt', '--trusted-host x', '--pre',
        '-\\', 'pkg \\', './srcpkg', '/abs/srcpkg', 'srcpkg/', '.', 'pkg-1.0.tar.gz ', './w/tiny-1.0-py3-none-any.whl', 'https://example.org/pkg-1.0.tar.gz',
        'git+https://example.org/pkg.git#egg=pkg', 'pkg @ git+https://example.org/pkg.git', 'pkg@file:///w/pkg.whl', 'file:./srcpkg', 'pkg==1.0 --hash=sha256:00',
        'pkg==${VERSION}', 'pkg; os_name == "posix/x"', 'pkg===1.0#frag', 'pkg ==',
      ]) {
        assert.throws(() => pythonRequirements(`numpy\n${line}\n`, '/ex/requirements.txt'), (error: Error) => {
          assert.ok(error instanceof EnvironmentError);
          assert.ok(error.message.startsWith(`/ex/requirements.txt:2: "${line.trim()}" `), error.message);
          assert.match(error.message, /released packages by name and version only/);
          return true;
        }, line);
      }
    });
  });

  describe('nodeRegistryDependencies (registry versions only)', () => {
    it('takes versions, semver ranges and dist-tags', () => {
      const dependencies = { a: '1.2.3', b: '^4.17.21', c: '~1.2.3', d: '>=1 <2 || 3.x', e: '1.0.0 - 2.0.0', f: 'latest', '@scope/g': '*', h: '2.0.0-beta.1' };
      assert.deepEqual(nodeRegistryDependencies(dependencies, 'package.json'), dependencies);
    });

    it('refuses files, links, git, URLs, tarballs, workspaces, aliases and odd names, naming the dependency', () => {
      for (const [name, spec] of [
        ['x', 'file:./helper'], ['x', 'link:../helper'], ['x', './helper'], ['x', '../helper'], ['x', '~/helper'], ['x', '/abs/helper'], ['x', '.'], ['x', 'helper.tgz'], ['x', 'helper.tar.gz'],
        ['x', 'git+ssh://git@example.org/x.git'], ['x', 'git://example.org/x.git'], ['x', 'github:user/repo'], ['x', 'user/repo'], ['x', 'user/repo#semver:^1'],
        ['x', 'https://example.org/x-1.0.0.tgz'], ['x', 'workspace:*'], ['x', 'npm:other@1.0.0'], ['../x', '1.0.0'], ['x y', '1.0.0'], ['x', ''],
      ] as const) {
        assert.throws(() => nodeRegistryDependencies({ ok: '1.0.0', [name]: spec }, '/ex/package.json'), (error: Error) => {
          assert.ok(error instanceof EnvironmentError);
          assert.ok(error.message.startsWith(`/ex/package.json: dependency "${name}": "${spec}" `), error.message);
          assert.match(error.message, /registry packages only/);
          return true;
        }, `${name}: ${spec}`);
      }
    });
  });

  describe('environmentDirName (what an environment is keyed by)', () => {
    const spec = (text: string) => {
      const dir = tempDir('env-key');
      fs.writeFileSync(path.join(dir, 'requirements.txt'), text);
      return environmentSpecsOf(dir)[0]!;
    };
    const runtime = { tag: 'python3.11', version: '3.11.7' };

    it('is the same for the same file, interpreter and installer settings, in any example', () => {
      assert.equal(environmentDirName(spec('numpy==2.0\n'), runtime, { PIP_INDEX_URL: 'http://a/' }), environmentDirName(spec('numpy==2.0\n'), runtime, { PIP_INDEX_URL: 'http://a/' }));
      assert.match(environmentDirName(spec('numpy==2.0\n'), runtime, {}), /^python3\.11-[0-9a-f]{16}$/);
    });

    it('changes with the file, the exact interpreter version and the index or registry', () => {
      const base = environmentDirName(spec('numpy==2.0\n'), runtime, { PIP_INDEX_URL: 'http://a/' });
      assert.notEqual(environmentDirName(spec('numpy==2.0\n# again\n'), runtime, { PIP_INDEX_URL: 'http://a/' }), base);
      assert.notEqual(environmentDirName(spec('numpy==2.0\n'), { ...runtime, version: '3.11.8' }, { PIP_INDEX_URL: 'http://a/' }), base);
      assert.notEqual(environmentDirName(spec('numpy==2.0\n'), runtime, { PIP_INDEX_URL: 'http://b/' }), base);
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
