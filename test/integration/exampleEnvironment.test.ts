/**
 * An example's requirements.txt / package.json: installed once per host, in a sandbox of the
 * evaluation's executor, into a cached environment keyed by what it installs, mounted
 * read-only into every sandbox of the example, importable by the evaluator and (within its
 * allow-list) by the candidate, under the process and bwrap executors. Only released packages
 * by name and version are installed: every way to make an installer build or link code of the
 * example's choosing is refused before any installer starts. Offline: the packages come from a
 * local index and registry (packageIndex.ts).
 */
import * as assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { EnvironmentError } from '../../daemon/evaluation/environment/environmentError';
import { evaluateProgram } from '../../daemon/evaluation/evaluateProgram';
import { loadExample } from '../../daemon/evaluation/example';
import { BwrapExecutor } from '../../daemon/sandbox/bwrap/BwrapExecutor';
import { DockerExecutor } from '../../daemon/sandbox/docker/DockerExecutor';
import type { Executor } from '../../daemon/sandbox/Executor';
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import { releaseDockerEngine, useDockerEngine } from '../fixtures/dockerEngine';
import { buildTinyWheel, packTinyNodePackage, writeNodeEnvironmentExample, writePythonEnvironmentExample } from '../fixtures/environmentExamples';
import { type PackageIndex, startPackageIndex } from '../fixtures/packageIndex';
import { REPO, tempDir } from '../fixtures/paths';

/** Everything in the cache directory (finished environments, locks, half installs). */
const cached = (cacheDir: string): string[] => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []);

describe('example environments: requirements.txt and package.json', function () {
  this.timeout(240_000);
  const processExecutor = new ProcessExecutor(() => {});
  const bwrap = new BwrapExecutor();
  let index: PackageIndex;
  /** The only index and registry the installers know: this test's. */
  let settings: Record<string, string>;

  before(async () => {
    const availability = await bwrap.available();
    assert.ok(availability.ok, availability.ok ? '' : availability.reason);
    const packages = tempDir('env-packages');
    index = await startPackageIndex({ wheels: [buildTinyWheel(packages)], npm: [{ name: 'peagen-tinylib', version: '1.0.0', file: packTinyNodePackage(packages) }] });
    settings = { PIP_CONFIG_FILE: '/dev/null', PIP_INDEX_URL: index.pipIndexUrl, npm_config_registry: index.npmRegistry, npm_config_fetch_retries: '0' };
  });
  after(async () => {
    await bwrap.close();
    await index?.close();
  });

  const options = (cacheDir: string) => ({ environments: { cacheDir, installerEnv: settings } });
  const evaluate = (executor: Executor, dir: string, cacheDir: string, program?: string) => {
    const example = loadExample(dir);
    return evaluateProgram(executor, example, program ?? example.seedProgram(), options(cacheDir));
  };

  describe('Python (pip into a venv)', () => {
    const cacheDir = tempDir('env-cache-py');
    const dir = tempDir('env-example-py');
    writePythonEnvironmentExample(dir);

    it('installs requirements.txt once; the evaluator and the candidate import from it under process and bwrap', async () => {
      const first = await evaluate(processExecutor, dir, cacheDir);
      assert.equal(first.correct, true, first.errorText);
      assert.equal(first.metrics.answer, 22);
      const [use] = first.environments ?? [];
      assert.ok(use);
      assert.deepEqual({ kind: use.kind, file: use.file, installed: use.installed }, { kind: 'python', file: 'requirements.txt', installed: true });
      assert.match(use.sha256, /^[0-9a-f]{64}$/);
      assert.deepEqual(cached(cacheDir), [path.basename(use.dir)]);

      const again = await evaluate(bwrap, dir, cacheDir);
      assert.equal(again.correct, true, again.errorText);
      assert.equal(again.executor, 'bwrap');
      assert.deepEqual(again.environments, [{ ...use, installed: false }]);
      assert.deepEqual(cached(cacheDir), [path.basename(use.dir)]);
    });

    it('lets the candidate import only what its evaluator allows, installed or not', async () => {
      const sneaky = 'from peagen_tinyextra import SECRET\n\n\ndef solve(x):\n    return SECRET\n';
      for (const executor of [processExecutor, bwrap]) {
        const evaluation = await evaluate(executor, dir, cacheDir, sneaky);
        assert.equal(evaluation.correct, false, executor.name);
        assert.match(evaluation.errorText ?? '', /import of module 'peagen_tinyextra' \(allowed: peagen_tinylib\)/, executor.name);
      }
    });

    it('installs a new environment when requirements.txt changes', async () => {
      const changed = tempDir('env-example-py2');
      writePythonEnvironmentExample(changed);
      fs.appendFileSync(path.join(changed, 'requirements.txt'), '# pinned again\n');
      const before = cached(cacheDir);
      const evaluation = await evaluate(bwrap, changed, cacheDir);
      assert.equal(evaluation.correct, true, evaluation.errorText);
      const [use] = evaluation.environments ?? [];
      assert.equal(use?.installed, true);
      assert.ok(!before.includes(path.basename(use.dir)));
      assert.equal(cached(cacheDir).length, before.length + 1);
    });

    it('fails with one error naming a package pip cannot find, and caches nothing', async () => {
      const bad = tempDir('env-example-py-bad');
      writePythonEnvironmentExample(bad, 'nosuchpkg-peagen==1.0\n');
      const badCache = tempDir('env-cache-py-bad');
      await assert.rejects(evaluate(processExecutor, bad, badCache), (error: Error) => {
        assert.ok(error instanceof EnvironmentError, error.stack);
        assert.equal(error.packageName, 'nosuchpkg-peagen==1.0');
        assert.match(error.message, /requirements\.txt: pip install failed on the package "nosuchpkg-peagen==1.0" .*No matching distribution found for nosuchpkg-peagen==1\.0.*nothing was cached/);
        return true;
      });
      assert.deepEqual(cached(badCache), []);
    });

    it("refuses every way to make pip build or link a package's own code, before any installer starts", async () => {
      // A source package whose in-tree build backend would leave a mark when pip imports it,
      // and a wheel directory for -f: every line below made pip build it on the host before.
      const source = tempDir('env-example-py-source');
      const mark = path.join(tempDir('env-mark'), 'backend-ran');
      fs.mkdirSync(path.join(source, 'srcpkg'));
      fs.mkdirSync(path.join(source, 'pkgs'));
      fs.writeFileSync(path.join(source, 'srcpkg', 'pyproject.toml'), '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n');
      fs.writeFileSync(path.join(source, 'srcpkg', 'backend.py'), `open(${JSON.stringify(mark)}, "w").write("ran")\n`);
      const before = index.requests.length;
      for (const [requirements, refusal] of [
        ['./srcpkg\n', /requirements\.txt:1: "\.\/srcpkg" names a location/],
        ['-e ./srcpkg\n', /requirements\.txt:1: "-e \.\/srcpkg" is an installer option/],
        ['--edit ./srcpkg\n', /requirements\.txt:1: "--edit \.\/srcpkg" is an installer option/],
        ['-e./srcpkg\n', /requirements\.txt:1: "-e\.\/srcpkg" is an installer option/],
        ['-esrcpkg\n', /requirements\.txt:1: "-esrcpkg" is an installer option/],
        ['peagen_tinylib==1.0\n-\\\ne ./srcpkg\n', /requirements\.txt:2: "-\\" ends with a line continuation/],
        ['--only-binary=:none:\n-f ./pkgs\nsrcpkg\n', /requirements\.txt:1: "--only-binary=:none:" is an installer option/],
        ['peagen_tinylib==1.0\n-f ./pkgs\n', /requirements\.txt:2: "-f \.\/pkgs" is an installer option/],
        ['--index-url http://127.0.0.1:9/\npeagen_tinylib\n', /requirements\.txt:1: .* is an installer option/],
        ['srcpkg @ file:///tmp/srcpkg\n', /names a location/],
        ['git+https://example.org/pkg.git#egg=pkg\n', /names a location/],
      ] as const) {
        writePythonEnvironmentExample(source, requirements);
        const cache = tempDir('env-cache-py-source');
        for (const executor of [processExecutor, bwrap]) {
          await assert.rejects(evaluate(executor, source, cache), (error: Error) => {
            assert.ok(error instanceof EnvironmentError, error.stack);
            assert.match(error.message, refusal);
            assert.match(error.message, /released packages by name and version only/);
            return true;
          });
        }
        assert.equal(fs.existsSync(mark), false, `the package's build backend ran (${JSON.stringify(requirements)})`);
        assert.deepEqual(cached(cache), []);
      }
      assert.equal(index.requests.length, before, 'an installer ran');
    });

    it('installs in the executor\'s sandbox: the venv is made at the path evaluations see, not at a host path', async () => {
      // pip runs in the executor's sandbox, so its environment is made where evaluations see it.
      const cache = tempDir('env-cache-py-sandboxed');
      const evaluation = await evaluate(bwrap, dir, cache);
      assert.equal(evaluation.correct, true, evaluation.errorText);
      const [use] = evaluation.environments ?? [];
      const config = fs.readFileSync(path.join(use!.dir, 'pyvenv.cfg'), 'utf8');
      assert.match(config, /\/peagen-env\/python/);
      assert.ok(!config.includes(cache), config);
    });
  });

  describe('Node (npm into a node_modules)', () => {
    const cacheDir = tempDir('env-cache-node');
    const dir = tempDir('env-example-node');
    writeNodeEnvironmentExample(dir);

    it('installs package.json once; the evaluator and the candidate require from it under process and bwrap', async () => {
      const first = await evaluate(bwrap, dir, cacheDir);
      assert.equal(first.correct, true, first.errorText);
      assert.equal(first.metrics.answer, 22);
      const [use] = first.environments ?? [];
      assert.deepEqual({ kind: use?.kind, file: use?.file, installed: use?.installed }, { kind: 'node', file: 'package.json', installed: true });
      assert.ok(index.requests.includes('/peagen-tinylib'), 'npm asked the registry');

      const again = await evaluate(processExecutor, dir, cacheDir);
      assert.equal(again.correct, true, again.errorText);
      assert.deepEqual(again.environments, [{ ...use, installed: false }]);
    });

    it('lets the candidate require only what its evaluator allows', async () => {
      const sneaky = "const os = require('os');\nexports.solve = () => os.cpus().length;\n";
      const evaluation = await evaluate(bwrap, dir, cacheDir, sneaky);
      assert.equal(evaluation.correct, false);
      assert.match(evaluation.errorText ?? '', /require\("os"\) is not allowed here \(allowed: peagen-tinylib\)/);
    });

    it('installs once when two processes need the same new environment at the same time', async () => {
      const shared = tempDir('env-cache-node-race');
      const script = `
        const { ensureEnvironment } = require(${JSON.stringify(path.join(REPO, 'out', 'daemon', 'evaluation', 'environment', 'environmentCache.js'))});
        const { environmentSpecsOf } = require(${JSON.stringify(path.join(REPO, 'out', 'daemon', 'evaluation', 'environment', 'environmentSpec.js'))});
        const { ProcessExecutor } = require(${JSON.stringify(path.join(REPO, 'out', 'daemon', 'sandbox', 'ProcessExecutor.js'))});
        ensureEnvironment(new ProcessExecutor(() => {}), environmentSpecsOf(process.argv[1])[0], JSON.parse(process.argv[2]))
          .then((env) => console.log(JSON.stringify({ dir: env.dir, installed: env.installed })));`;
      const args = ['-e', script, dir, JSON.stringify(options(shared).environments)];
      const outcomes = await Promise.all([promisify(execFile)(process.execPath, args), promisify(execFile)(process.execPath, args)]);
      const [a, b] = outcomes.map(({ stdout }) => JSON.parse(stdout) as { dir: string; installed: boolean });
      assert.equal(a!.dir, b!.dir);
      assert.deepEqual([a!.installed, b!.installed].sort(), [false, true]);
      assert.deepEqual(cached(shared), [path.basename(a!.dir)]);
    });

    it('refuses file:, link:, git, URL, tarball, workspace: and alias dependencies before npm starts, naming the dependency', async () => {
      const before = index.requests.length;
      for (const spec of ['file:./tinylib', 'link:./tinylib', './tinylib', '../x', 'tinylib.tgz', 'git+https://example.org/x.git', 'github:user/repo', 'user/repo', 'https://example.org/x-1.0.0.tgz', 'workspace:*', 'npm:peagen-tinylib@1.0.0']) {
        const refused = tempDir('env-example-node-refused');
        writeNodeEnvironmentExample(refused, { 'peagen-tinylib': spec });
        await assert.rejects(evaluate(processExecutor, refused, tempDir('env-cache-node-refused')), (error: Error) => {
          assert.ok(error instanceof EnvironmentError, error.stack);
          assert.ok(error.message.includes(`package.json: dependency "peagen-tinylib": "${spec}" names a location`), error.message);
          assert.match(error.message, /registry packages only/);
          return true;
        });
      }
      assert.equal(index.requests.length, before, 'npm ran');
    });

    it("never serves one example's environment to another that would install something else", async () => {
      // The same package.json text, two registries publishing different code under 1.0.0: the
      // registry is part of the key, so each example gets what its own install would give.
      const packages = tempDir('env-packages-other');
      const other = await startPackageIndex({ npm: [{ name: 'peagen-tinylib', version: '1.0.0', file: packTinyNodePackage(packages, '1.0.0', '999') }] });
      try {
        const shared = tempDir('env-cache-node-keyed');
        const honest = await evaluate(bwrap, dir, shared);
        assert.equal(honest.correct, true, honest.errorText);
        const example = loadExample(dir);
        const rigged = await evaluateProgram(bwrap, example, example.seedProgram(), { environments: { cacheDir: shared, installerEnv: { ...settings, npm_config_registry: other.npmRegistry } } });
        assert.equal(rigged.metrics.answer, 1000, rigged.errorText); // 999 + 1: its own registry's code
        assert.notEqual(rigged.environments?.[0]?.dir, honest.environments?.[0]?.dir);
        assert.equal(rigged.environments?.[0]?.installed, true);
        const again = await evaluate(bwrap, dir, shared);
        assert.equal(again.metrics.answer, 22, again.errorText);
        assert.deepEqual(again.environments, honest.environments?.map((use) => ({ ...use, installed: false })));
        assert.equal(cached(shared).length, 2);
      } finally {
        await other.close();
      }
    });

    it('fails with one error naming a package npm cannot get, and caches nothing', async () => {
      const bad = tempDir('env-example-node-bad');
      writeNodeEnvironmentExample(bad, { 'nosuchpkg-peagen': '^1.0.0' });
      const badCache = tempDir('env-cache-node-bad');
      // What an install killed midway leaves: swept by the next install, never used.
      const killed = spawnSync(process.execPath, ['-e', '']).pid;
      fs.mkdirSync(path.join(badCache, `.installing-node-abi115-0123456789abcdef-${killed}-0badf00d`, 'node_modules'), { recursive: true });
      await assert.rejects(evaluate(processExecutor, bad, badCache), (error: Error) => {
        assert.ok(error instanceof EnvironmentError, error.stack);
        assert.equal(error.packageName, 'nosuchpkg-peagen');
        assert.match(error.message, /package\.json: npm install failed on the package "nosuchpkg-peagen" .*nothing was cached/);
        return true;
      });
      assert.deepEqual(cached(badCache), []);
    });
  });

  describe('Docker (the install runs in a container of the sandbox image)', () => {
    let docker: DockerExecutor;

    before(async function () {
      this.timeout(600_000);
      const engine = await useDockerEngine();
      // Host networking: the test's index listens on the host's loopback, which the default bridge cannot reach.
      docker = new DockerExecutor({ dockerHost: engine.dockerHost, image: engine.image, networkMode: 'host' });
    });
    after(async () => {
      await docker?.close();
      await releaseDockerEngine();
    });

    it('installs requirements.txt and package.json with the host\'s pip and npm mounted into the image, which has neither', async () => {
      for (const write of [writePythonEnvironmentExample, writeNodeEnvironmentExample]) {
        const example = tempDir('env-example-docker');
        write(example);
        const cache = tempDir('env-cache-docker');
        const evaluation = await evaluate(docker, example, cache);
        assert.equal(evaluation.correct, true, evaluation.errorText);
        assert.equal(evaluation.executor, 'docker');
        assert.equal(evaluation.metrics.answer, 22);
        assert.equal(evaluation.environments?.[0]?.installed, true);
        assert.deepEqual(cached(cache), [path.basename(evaluation.environments[0].dir)]);
      }
    });
  });
});
