import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { evaluateProgram } from '../../daemon/evaluation/evaluateProgram';
import { loadExample } from '../../daemon/evaluation/example';
import { MemoryQueue } from '../../daemon/fabric/queue/MemoryQueue';
import { HandlerRegistry } from '../../daemon/fabric/worker/HandlerRegistry';
import { WorkerPool } from '../../daemon/fabric/worker/WorkerPool';
import { createEvaluateHandler } from '../../daemon/handlers/evaluate';
import { ProcessExecutor } from '../../daemon/sandbox/ProcessExecutor';
import type { Evaluation } from '../../shared/evaluation';
import { newTask } from '../../shared/task';
import { REPO, tempDir } from '../fixtures/paths';

const BAD_SORT = path.join(REPO, 'examples', 'bad_sort');
const FIB = path.join(REPO, 'examples', 'slow_fib_js');
const candidate = (example: string, file: string): string => fs.readFileSync(path.join(example, 'test_candidates', file), 'utf8');

describe('evaluation protocol (process executor)', function () {
  this.timeout(120_000);
  const executor = new ProcessExecutor(() => {});
  const quick = { args: ['--quick'] };

  describe('examples/bad_sort', () => {
    const example = loadExample(BAD_SORT);

    it('scores the seed program as correct with a speedup near 1', async () => {
      const evaluation = await evaluateProgram(executor, example, example.seedProgram(), quick);
      assert.equal(evaluation.correct, true, evaluation.errorText);
      assert.equal(evaluation.direction, 'maximize');
      assert.ok(evaluation.objective !== null && evaluation.objective > 0.5 && evaluation.objective < 2, `speedup ${evaluation.objective}`);
    });

    it('scores a correct merge sort far above the seed', async () => {
      const evaluation = await evaluateProgram(executor, example, candidate(BAD_SORT, 'merge_sort.py'), quick);
      assert.equal(evaluation.correct, true, evaluation.errorText);
      assert.ok((evaluation.objective ?? 0) > 10, `speedup ${evaluation.objective}`);
    });

    for (const [file, why] of [
      ['identity.py', /ascending/],
      ['uses_sorted.py', /static check/],
      ['dedup.py', /permutation/],
      ['crashes.py', /ValueError/],
      ['launder_counter.py', /'collections' is not allowed/],
      ['clock_patch_main.py', /'typing' is not allowed/],
    ] as const) {
      it(`rejects ${file} as incorrect, saying why`, async () => {
        const evaluation = await evaluateProgram(executor, example, candidate(BAD_SORT, file), quick);
        assert.equal(evaluation.correct, false);
        assert.equal(evaluation.objective, null);
        assert.equal(evaluation.failure?.reason, 'incorrect');
        assert.match(evaluation.errorText ?? '', why);
      });
    }

    it('passes a held-out seed to the evaluator', async () => {
      const evaluation = await evaluateProgram(executor, example, example.seedProgram(), { ...quick, seed: 424242 });
      assert.equal(evaluation.metrics.seed, 424242);
    });
  });

  describe('examples/slow_fib_js', () => {
    const example = loadExample(FIB);

    it('scores the seed as correct and a fast version far above it', async () => {
      const seed = await evaluateProgram(executor, example, example.seedProgram(), quick);
      assert.equal(seed.correct, true, seed.errorText);
      const fast = await evaluateProgram(executor, example, candidate(FIB, 'fast.js'), quick);
      assert.ok((fast.objective ?? 0) > 10 * (seed.objective ?? 1), `fast ${fast.objective} vs seed ${seed.objective}`);
    });

    it('rejects a wrong answer', async () => {
      const evaluation = await evaluateProgram(executor, example, candidate(FIB, 'wrong.js'), quick);
      assert.equal(evaluation.failure?.reason, 'incorrect');
      assert.match(evaluation.errorText ?? '', /expected/);
    });

    it('runs the candidate through the harness library, without Node\'s powers', async () => {
      const evaluation = await evaluateProgram(executor, example, candidate(FIB, 'steals_nonce.js'), quick);
      assert.equal(evaluation.failure?.reason, 'incorrect');
      assert.match(evaluation.errorText ?? '', /require\("fs"\) is not allowed/);
    });
  });

  describe('evaluators that misbehave', () => {
    let dir: string;
    beforeEach(() => {
      dir = tempDir('example');
      fs.writeFileSync(path.join(dir, 'program.py'), 'x = 1\n');
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    function exampleWith(script: string, timeoutMs = 10_000) {
      fs.writeFileSync(path.join(dir, 'evaluate.py'), script);
      fs.writeFileSync(
        path.join(dir, 'peagen.example.json'),
        JSON.stringify({
          name: 'broken',
          program: 'program.py',
          evaluator: ['python3', 'evaluate.py', '{program}'],
          objective: { name: 'score', direction: 'maximize' },
          limits: { timeoutMs },
        }),
      );
      return loadExample(dir);
    }
    const check = async (script: string, timeoutMs?: number): Promise<Evaluation> =>
      evaluateProgram(executor, exampleWith(script, timeoutMs), 'x = 1\n');

    it('a crash without metrics is a crash, with its stderr kept', async () => {
      const evaluation = await check('import sys\nsys.stderr.write("Traceback: kaboom\\n")\nsys.exit(2)\n');
      assert.equal(evaluation.failure?.reason, 'crash');
      assert.match(evaluation.errorText ?? '', /kaboom/);
    });

    it('output that is not JSON is invalid_output', async () => {
      assert.equal((await check('print("score: 12")\n')).failure?.reason, 'invalid_output');
    });

    it('JSON of the wrong shape is invalid_output, naming the field', async () => {
      const evaluation = await check('print(\'{"correct": true, "objective": "fast", "direction": "maximize"}\')\n');
      assert.equal(evaluation.failure?.reason, 'invalid_output');
      assert.match(evaluation.failure?.message ?? '', /objective/);
    });

    it('a direction other than the example declares is invalid_output, naming both', async () => {
      const evaluation = await check('print(\'{"correct": true, "objective": 3.5, "direction": "minimize"}\')\n');
      assert.equal(evaluation.failure?.reason, 'invalid_output');
      assert.equal(evaluation.objective, null);
      assert.equal(evaluation.direction, 'maximize');
      assert.match(evaluation.failure?.message ?? '', /"minimize".*"maximize"/);
    });

    it('an evaluator past its deadline is a timeout', async () => {
      assert.equal((await check('import time\ntime.sleep(60)\n', 1_000)).failure?.reason, 'timeout');
    });

    it('gives the evaluator the candidate as a file and the harness as its working directory', async () => {
      const evaluation = await check(
        'import json, os, sys\nok = os.path.basename(sys.argv[1]) == "program.py" and open(sys.argv[1]).read() == "x = 1\\n" and os.path.exists("evaluate.py")\nprint(json.dumps({"correct": ok, "objective": 1, "direction": "maximize"}))\n',
      );
      assert.equal(evaluation.correct, true, evaluation.errorText);
    });
  });

  describe('the evaluate task', () => {
    it('runs through a worker and returns failures as well-formed error results', async () => {
      const queue = new MemoryQueue();
      const worker = new WorkerPool({
        queue,
        registry: new HandlerRegistry().register(createEvaluateHandler(executor)),
        caps: ['cpu'],
        concurrency: 1,
        mode: 'in-process',
        claimBlockMs: 100,
      }).start();
      try {
        const good = newTask({ kind: 'evaluate', payload: { exampleDir: BAD_SORT, args: ['--quick'] } });
        const bad = newTask({ kind: 'evaluate', payload: { exampleDir: BAD_SORT, program: candidate(BAD_SORT, 'crashes.py'), args: ['--quick'] } });
        const missing = newTask({ kind: 'evaluate', payload: { exampleDir: '/no/such/example' } });
        for (const task of [good, bad, missing]) await queue.enqueue(task);
        const goodResult = await queue.waitForResult(good.id, 60_000);
        assert.equal(goodResult?.status, 'ok');
        assert.equal((goodResult?.data as Evaluation).correct, true);
        const badResult = await queue.waitForResult(bad.id, 60_000);
        assert.equal(badResult?.status, 'error');
        assert.equal(badResult?.error?.code, 'incorrect');
        assert.match((badResult?.data as Evaluation).errorText ?? '', /ValueError/);
        const missingResult = await queue.waitForResult(missing.id, 60_000);
        assert.equal(missingResult?.error?.code, 'invalid_example');
        assert.match(missingResult?.error?.message ?? '', /peagen\.example\.json/);
      } finally {
        await worker.stop({ drain: false });
        await queue.close();
      }
    });
  });
});
