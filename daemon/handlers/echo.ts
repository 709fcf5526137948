import { EchoPayloadSchema } from '../../shared/payloads';
import type { TaskHandler } from '../fabric/worker/TaskHandler';

/** Answers with its payload: the smallest task that proves the fabric end to end. */
export const echoHandler: TaskHandler<{ message?: unknown }> = {
  kind: 'echo',
  provides: ['cpu'],
  payloadSchema: EchoPayloadSchema,
  async handle(task) {
    return { status: 'ok', data: { message: task.payload.message } };
  },
};
