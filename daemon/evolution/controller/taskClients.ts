/** The two ways a run reaches the fabric: the embedded engine, or a running daemon. */
import { CancelTask, GetResult, SubmitTask } from '../../../shared/protocol';
import type { Engine } from '../../engine/Engine';
import type { DaemonClient } from '../../rpc/client';
import type { TaskClient } from './TaskClient';

export function engineTaskClient(engine: Engine): TaskClient {
  return {
    submit: async (spec) => (await engine.submit(spec)).id,
    result: (taskId, waitMs, signal) => engine.result(taskId, waitMs, signal),
    cancel: (taskId) => engine.cancel(taskId),
  };
}

export function daemonTaskClient(client: DaemonClient): TaskClient {
  return {
    submit: async (spec) => (await client.request(SubmitTask.type, spec)).taskId,
    async result(taskId, waitMs, signal) {
      if (signal?.aborted) return null;
      const answer = client.request(GetResult.type, { taskId, waitMs: Math.min(waitMs, 3_600_000) });
      if (!signal) return (await answer).result;
      let onAbort = (): void => {};
      const aborted = new Promise<null>((resolve) => {
        onAbort = () => resolve(null);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        return await Promise.race([answer.then((value) => value.result), aborted]);
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    cancel: async (taskId) => (await client.request(CancelTask.type, { taskId })).cancelled,
  };
}
