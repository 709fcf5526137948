/**
 * The `execute` task: one command in a fresh sandbox of the worker's executor. Whatever the
 * command does (crash, hang, flood, exhaust memory) comes back as data with a stop reason;
 * only a sandbox that cannot be made is an error (retryable: another worker may manage).
 */
import { type ExecutePayload, ExecutePayloadSchema } from '../../shared/payloads';
import { HandlerError, type TaskHandler } from '../fabric/worker/TaskHandler';
import { type Executor, executorCapabilities } from '../sandbox/Executor';
import type { HostPathPolicy } from '../sandbox/hostPaths';
import { servedPath } from './servedPath';


export function createExecuteHandler(executor: Executor, hostPaths?: HostPathPolicy): TaskHandler<ExecutePayload> {
  return {
    kind: 'execute',
    provides: ['cpu', ...executorCapabilities(executor)],
    runsTaskCode: true,
    payloadSchema: ExecutePayloadSchema,
    async handle(task, context) {
      const { payload } = task;
      const workspace = servedPath(hostPaths, task, payload.workspace, 'workspace');
      const mounts = payload.mounts.map((mount) => ({ ...mount, hostPath: servedPath(hostPaths, task, mount.hostPath, `mount ${mount.sandboxPath}`) }));
      const remaining = task.deadline !== undefined ? Math.max(1, task.deadline - Date.now()) : undefined;
      const timeoutMs = Math.min(payload.limits.timeoutMs ?? Number.POSITIVE_INFINITY, remaining ?? Number.POSITIVE_INFINITY);
      try {
        const result = await executor.run({
          command: payload.command,
          workspace,
          files: payload.files,
          mounts,
          env: payload.env,
          ...(payload.cwd !== undefined && { cwd: payload.cwd }),
          ...(payload.stdin !== undefined && { stdin: payload.stdin }),
          limits: { ...payload.limits, ...(Number.isFinite(timeoutMs) && { timeoutMs }) },
          signal: context.signal,
        });
        return { status: 'ok', data: result };
      } catch (error) {
        throw new HandlerError('sandbox_failed', `the ${executor.name} sandbox could not run the command: ${(error as Error).message}`, true);
      }
    },
  };
}
