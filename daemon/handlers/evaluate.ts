/**
 * The `evaluate` task: score one candidate with an example's evaluator. A candidate that
 * crashes, hangs, prints garbage or fails the correctness gate gives an error result whose
 * code is the reason and whose data is the full Evaluation (with the error text a mutator
 * can learn from); it never throws out of the worker.
 */
import { type EvaluatePayload, EvaluatePayloadSchema } from '../../shared/payloads';
import { HandlerError, type TaskHandler } from '../fabric/worker/TaskHandler';
import { EnvironmentError } from '../evaluation/environment/environmentError';
import { evaluateProgram } from '../evaluation/evaluateProgram';
import { type Example, loadExample } from '../evaluation/example';
import { type Executor, executorCapabilities } from '../sandbox/Executor';
import type { HostPathPolicy } from '../sandbox/hostPaths';
import { servedPath } from './servedPath';

/** The error code of an evaluation whose example's environment could not be installed. */
export const ENVIRONMENT_FAILED = 'environment_failed';

export function createEvaluateHandler(executor: Executor, hostPaths?: HostPathPolicy): TaskHandler<EvaluatePayload> {
  return {
    kind: 'evaluate',
    provides: ['cpu', ...executorCapabilities(executor)],
    runsTaskCode: true,
    payloadSchema: EvaluatePayloadSchema,
    async handle(task, context) {
      const exampleDir = servedPath(hostPaths, task, task.payload.exampleDir, 'example directory');
      let example: Example;
      try {
        example = loadExample(exampleDir);
      } catch (error) {
        throw new HandlerError('invalid_example', (error as Error).message, false);
      }
      let evaluation;
      try {
        evaluation = await evaluateProgram(executor, example, task.payload.program ?? example.seedProgram(), {
          ...(task.payload.seed !== undefined && { seed: task.payload.seed }),
          args: task.payload.args,
          ...(task.payload.timeoutMs !== undefined && { timeLimitMs: task.payload.timeoutMs }),
          signal: context.signal,
          ...(task.deadline !== undefined && { timeoutMs: Math.max(1, task.deadline - Date.now()) }),
        });
      } catch (error) {
        // The example's requirements could not be installed: the same on every retry until
        // its file is fixed, and the message already names the package.
        if (error instanceof EnvironmentError) throw new HandlerError(ENVIRONMENT_FAILED, error.message, false);
        throw new HandlerError('sandbox_failed', `the ${executor.name} sandbox could not run the evaluator: ${(error as Error).message}`, true);
      }
      if (evaluation.failure) {
        return { status: 'error', error: { code: evaluation.failure.reason, message: evaluation.failure.message, retryable: false }, data: evaluation };
      }
      return { status: 'ok', data: evaluation };
    },
  };
}
