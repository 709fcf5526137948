import { setTimeout as delay } from 'node:timers/promises';
import { SleepPayloadSchema } from '../../shared/payloads';
import type { TaskHandler } from '../fabric/worker/TaskHandler';

/** Holds a worker for `ms`; used to exercise leases, cancellation and drain on shutdown. */
export const sleepHandler: TaskHandler<{ ms: number }> = {
  kind: 'sleep',
  provides: ['cpu'],
  payloadSchema: SleepPayloadSchema,
  async handle(task, context) {
    await delay(task.payload.ms, undefined, { signal: context.signal });
    return { status: 'ok', data: { sleptMs: task.payload.ms } };
  },
};
