/**
 * An example's requirements.txt / package.json: installed once per host into a cached
 * environment keyed by the file's hash, mounted read-only into every sandbox of the example,
 * importable by the evaluator and (within its allow-list) by the candidate, under the process
 * and bwrap executors. Offline: the packages are local (a wheel, a `file:` dependency) and
 * the installers are pointed at an index that does not answer.
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
import type { Executor } from '../../daemon/sandbox/Executor';
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import { writeNodeEnvironmentExample, writePythonEnvironmentExample } from '../fixtures/environmentExamples';
import { REPO, tempDir } from '../fixtures/paths';

/** No package index or registry answers: an install that needed one fails at once. */
const OFFLINE = {
  PIP_CONFIG_FILE: '/dev/null',
  PIP_INDEX_URL: 'http://127.0.0.1:9/',
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_fetch_retries: '0',
  npm_config_cache: '',
};

/** Everything in the cache directory (finished environments, locks, half installs). */
const cached = (cacheDir: string): string[] => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []);

describe('example environments: requirements.txt and package.json', function () {
  this.timeout(240_000);
  const processExecutor = new ProcessExecutor(() => {});
  const bwrap = new BwrapExecutor();
  let npmCache: string;

  before(async () => {
    const availability = await bwrap.available();
    assert.ok(availability.ok, availability.ok ? '' : availability.reason);
    npmCache = tempDir('npm-cache');
  });
  after(() => bwrap.close());

  const options = (cacheDir: string) => ({ environments: { cacheDir, installerEnv: { ...OFFLINE, npm_config_cache: npmCache } } });
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
      writePythonEnvironmentExample(bad, '--no-index\nnosuchpkg-peagen==1.0\n');
      const badCache = tempDir('env-cache-py-bad');
      await assert.rejects(evaluate(processExecutor, bad, badCache), (error: Error) => {
        assert.ok(error instanceof EnvironmentError, error.stack);
        assert.equal(error.packageName, 'nosuchpkg-peagen==1.0');
        assert.match(error.message, /requirements\.txt: pip install failed on the package "nosuchpkg-peagen==1.0" .*No matching distribution found for nosuchpkg-peagen==1\.0.*nothing was cached/);
        return true;
      });
      assert.deepEqual(cached(badCache), []);
    });

    it('never runs a package\'s own code to install it: a source package is refused before pip starts', async () => {
      // A source package whose in-tree build backend would leave a mark outside every sandbox
      // when pip imports it (it needs nothing from an index, so pip would build it here).
      const source = tempDir('env-example-py-source');
      const mark = path.join(tempDir('env-mark'), 'backend-ran');
      fs.mkdirSync(path.join(source, 'srcpkg'));
      fs.writeFileSync(path.join(source, 'srcpkg', 'pyproject.toml'), '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n');
      fs.writeFileSync(path.join(source, 'srcpkg', 'backend.py'), `open(${JSON.stringify(mark)}, "w").write("ran")\n`);
      for (const [requirements, refusal] of [
        ['--no-index\n./srcpkg\n', /requirements\.txt:2: "\.\/srcpkg" names a source .* wheels only/],
        ['--no-index\n-e ./srcpkg\n', /requirements\.txt:2: "-e \.\/srcpkg" asks pip to build a package from its source/],
      ] as const) {
        writePythonEnvironmentExample(source, requirements);
        const cache = tempDir('env-cache-py-source');
        await assert.rejects(evaluate(processExecutor, source, cache), (error: Error) => {
          assert.ok(error instanceof EnvironmentError, error.stack);
          assert.match(error.message, refusal);
          return true;
        });
        assert.equal(fs.existsSync(mark), false, 'the package\'s build backend ran outside the sandbox');
        assert.deepEqual(cached(cache), []);
      }
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
      // Packed into the environment, not a link back to the example (which a sandbox cannot see).
      assert.equal(fs.lstatSync(path.join(use!.dir, 'node_modules', 'peagen-tinylib')).isSymbolicLink(), false);

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
        ensureEnvironment(environmentSpecsOf(process.argv[1])[0], JSON.parse(process.argv[2]))
          .then((env) => console.log(JSON.stringify({ dir: env.dir, installed: env.installed })));`;
      const args = ['-e', script, dir, JSON.stringify(options(shared).environments)];
      const outcomes = await Promise.all([promisify(execFile)(process.execPath, args), promisify(execFile)(process.execPath, args)]);
      const [a, b] = outcomes.map(({ stdout }) => JSON.parse(stdout) as { dir: string; installed: boolean });
      assert.equal(a!.dir, b!.dir);
      assert.deepEqual([a!.installed, b!.installed].sort(), [false, true]);
      assert.deepEqual(cached(shared), [path.basename(a!.dir)]);
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
});
