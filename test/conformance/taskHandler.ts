/**
 * The TaskHandler contract as a mocha suite, for handler plugins: the declared shape, the
 * payload schema accepting what the author says is valid and refusing what is not, and
 * `handle` answering a HandlerOutput or throwing a HandlerError (recognised by shape, since a
 * plugin has its own copy of the class) — nothing else.
 */
import * as assert from 'node:assert/strict';
import { newTask } from '../../shared/task';
import { HandlerError, type TaskHandler } from '../../daemon/fabric/worker/TaskHandler';

export interface HandlerSamples {
  /** Payloads the handler must accept and run. */
  valid: unknown[];
  /** Payloads its schema must refuse. */
  invalid: unknown[];
}

export function describeTaskHandlerConformance(name: string, make: () => TaskHandler<unknown>, samples: HandlerSamples): void {
  describe(`TaskHandler conformance: ${name}`, function () {
    this.timeout(60_000);

    it('declares a kind and the capabilities it needs', () => {
      const handler = make();
      assert.ok(typeof handler.kind === 'string' && handler.kind.length > 0, 'kind must be a non-empty string');
      assert.ok(Array.isArray(handler.provides) && handler.provides.every((cap) => typeof cap === 'string'), 'provides must be an array of capability names');
    });

    it('accepts the valid payloads and refuses the invalid ones', () => {
      const handler = make();
      for (const payload of samples.valid) assert.ok(handler.payloadSchema.safeParse(payload).success, `refused a valid payload: ${JSON.stringify(payload)}`);
      for (const payload of samples.invalid) assert.ok(!handler.payloadSchema.safeParse(payload).success, `accepted an invalid payload: ${JSON.stringify(payload)}`);
    });

    it('answers ok, skip or error for each valid payload, or throws a HandlerError', async () => {
      const handler = make();
      for (const payload of samples.valid) {
        const parsed = handler.payloadSchema.parse(payload);
        const task = { ...newTask({ kind: handler.kind, payload: parsed, requires: [...handler.provides] }), payload: parsed };
        const controller = new AbortController();
        try {
          const output = await handler.handle(task, { workerId: 'conformance', signal: controller.signal, log: () => {} });
          assert.ok(['ok', 'skip', 'error'].includes(output?.status), `answered ${JSON.stringify(output)}`);
          if (output.status === 'error') assert.ok(typeof output.error?.code === 'string' && typeof output.error.message === 'string', 'an error answer needs error.code and error.message');
          assert.doesNotThrow(() => JSON.stringify(output), 'the answer must be JSON-serialisable (it crosses processes)');
        } catch (error) {
          assert.ok(HandlerError.is(error), `threw something other than a HandlerError: ${String(error)}`);
        }
      }
    });
  });
}
