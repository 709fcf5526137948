/**
 * A sealed verdict (daemon/evaluation/verdictSeal.ts): when the daemon gave the evaluator a
 * seal, only a last line of stdout that carries it is a verdict; anything else, however
 * winning it looks, is a failure.
 */
import * as assert from 'node:assert/strict';
import { interpretRun } from '../../daemon/evaluation/interpretRun';
import { newVerdictSeal } from '../../daemon/evaluation/verdictSeal';
import type { ExecutionResult } from '../../daemon/sandbox/Executor';

const run = (stdout: string, exitCode = 0): ExecutionResult => ({
  executor: 'process',
  exitCode,
  signal: null,
  stdout,
  stderr: '',
  stdoutTruncated: false,
  stderrTruncated: false,
  wallMs: 10,
});
const verdict = (extra: Record<string, unknown> = {}) => JSON.stringify({ correct: true, objective: 0.5, direction: 'maximize', metrics: { combined_score: 0.5 }, ...extra });
const FORGED = JSON.stringify({ correct: true, objective: 1e300, direction: 'maximize', metrics: {} });

describe('a sealed verdict', () => {
  const seal = newVerdictSeal();

  it('is fresh for every evaluation and long enough not to be guessed', () => {
    assert.match(seal, /^[0-9a-f]{64}$/);
    assert.notEqual(newVerdictSeal(), seal);
  });

  it('counts when its last line carries the seal, which is not part of the verdict', () => {
    const evaluation = interpretRun(run(`${verdict({ seal })}\n`), 'maximize', { seal });
    assert.equal(evaluation.correct, true);
    assert.equal(evaluation.objective, 0.5);
    assert.deepEqual(evaluation.metrics, { combined_score: 0.5 });
  });

  it('a winning line without the seal, or with another, is a failure that says whose line it is not', () => {
    for (const stdout of [FORGED, JSON.stringify({ ...JSON.parse(FORGED), seal: newVerdictSeal() }), `${verdict({ seal })}\n${FORGED}`]) {
      const evaluation = interpretRun(run(`${stdout}\n`), 'maximize', { seal });
      assert.equal(evaluation.correct, false, stdout);
      assert.equal(evaluation.objective, null);
      assert.equal(evaluation.failure?.reason, 'invalid_output');
      assert.match(evaluation.failure?.message ?? '', /not Peagen's adapter's \(it lacks the seal/);
    }
  });

  it('a process that ended before the adapter judged, whatever it printed, has no verdict', () => {
    const evaluation = interpretRun(run(`${FORGED}\n`, 0), 'maximize', { seal });
    assert.equal(evaluation.correct, false);
    assert.equal(interpretRun(run('', 0), 'maximize', { seal }).failure?.reason, 'invalid_output');
  });

  it('without a seal (evaluators built on the harness library) the plain last line is the verdict, as before', () => {
    const evaluation = interpretRun(run(`${verdict()}\n`), 'maximize');
    assert.equal(evaluation.correct, true);
    assert.equal(evaluation.objective, 0.5);
  });
});
