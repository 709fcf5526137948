/**
 * The run's progress counts the evaluations in flight: a fast run whose last evaluation hangs
 * says which one runs, for how long, against what limit (--eval-timeout's, from the manifest),
 * and its ETA is never just "a few seconds" while that evaluation may run to its limit.
 */
import * as assert from 'node:assert/strict';
import { ConfigSchema } from '../../daemon/config';
import { EvolutionRun } from '../../daemon/evolution/controller/EvolutionRun';
import { prepareRun } from '../../daemon/evolution/controller/prepareRun';
import type { TaskClient } from '../../daemon/evolution/controller/TaskClient';
import type { Evaluation } from '../../shared/evaluation';
import type { RunProgress } from '../../shared/evolution';
import type { Result, TaskSpec } from '../../shared/task';
import { BAD_SORT_DIR } from '../fixtures/evolveFixtures';
import { tempDir } from '../fixtures/paths';

const evaluation: Evaluation = { correct: true, objective: 100, direction: 'minimize', metrics: {}, executor: 'process', exitCode: 0, wallMs: 1 };

/** Evaluations answer at once, but for the `slowIndex`-th child's, which takes `slowMs`. */
function clientWithOneSlowEvaluation(slowIndex: number, slowMs: number): TaskClient & { evaluatePayloads: unknown[] } {
  const kinds = new Map<string, string>();
  let next = 0;
  let evaluations = 0;
  let mutates = 0;
  const evaluatePayloads: unknown[] = [];
  return {
    evaluatePayloads,
    async submit(spec: TaskSpec) {
      const id = `t${next++}`;
      kinds.set(id, spec.kind);
      if (spec.kind === 'evaluate') evaluatePayloads.push(spec.payload);
      return id;
    },
    async result(taskId: string): Promise<Result> {
      await new Promise((resolve) => setImmediate(resolve));
      if (kinds.get(taskId) === 'evaluate') {
        if (evaluations++ === slowIndex) await new Promise((resolve) => setTimeout(resolve, slowMs));
        return { taskId, status: 'ok', data: evaluation, attempts: 1 };
      }
      const index = mutates++;
      return { taskId, status: 'ok', data: { ok: true, mutator: 'offline', code: `# child ${index}\n`, patch: '', exchanges: [], repairs: 0 }, attempts: 1 };
    },
    async cancel() {
      return true;
    },
  };
}

describe('an evolution run\'s progress while an evaluation hangs', function () {
  this.timeout(30_000);

  it('names it with its elapsed time and the --eval-timeout limit, and gives the ETA its worst case', async () => {
    const client = clientWithOneSlowEvaluation(4, 1_500);
    const prepared = prepareRun({ exampleDir: BAD_SORT_DIR, projectDir: tempDir('progress-run'), stop: { evaluations: 4 }, workers: 1, mutator: 'offline', evalTimeoutMs: 90_000, reduceBudget: 0 }, ConfigSchema.parse({}), {});
    const snapshots: RunProgress[] = [];
    const run = new EvolutionRun({
      runDir: prepared.runDir,
      manifest: prepared.manifest,
      example: prepared.example,
      client,
      evalSlots: 1,
      mutateSlots: 1,
      perCallSpend: prepared.perCallSpend,
      log: () => {},
      onProgress: (progress) => snapshots.push(progress),
    });
    const outcome = await run.run();
    assert.equal(outcome.stopReason, 'evaluations');
    // The limit reaches every evaluate task (the sandbox's), the seed's included.
    assert.ok(client.evaluatePayloads.length >= 5 && client.evaluatePayloads.every((payload) => (payload as { timeoutMs?: number }).timeoutMs === 90_000));

    const whileSlow = snapshots.filter((p) => p.evaluations === 3 && p.inFlight?.length === 1);
    assert.ok(whileSlow.length > 0, `a snapshot shows the last evaluation running: ${JSON.stringify(snapshots.map((p) => [p.evaluations, p.inFlight]))}`);
    for (const p of whileSlow) {
      assert.match(p.inFlight![0]!.label, /^#\d+$/);
      assert.equal(p.inFlight![0]!.limitMs, 90_000);
      // Three evaluations in a few milliseconds make a pace that would promise the end at once.
      assert.ok(p.etaMs !== undefined && p.etaMaxMs !== undefined, 'an ETA and its worst case');
      assert.ok(p.etaMaxMs >= 85_000 && p.etaMaxMs <= 90_000, `the worst case is the evaluation running to its limit: ${p.etaMaxMs}`);
      assert.ok(p.etaMs <= p.etaMaxMs);
    }
    assert.equal(outcome.progress.inFlight, undefined, 'nothing runs once the run has ended');
    assert.equal(outcome.progress.etaMaxMs, undefined);
  });
});
