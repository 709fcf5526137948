/**
 * The `render` task: one file of a template set (`peagen render`). A COPY record needs only
 * `cpu`; a GENERATE record requires `llm`, offered only by a worker with a model configured
 * in its own environment. The payload carries rendered text (the file, or the prompt), never a
 * template; the result's data is the RenderedFile (path and text).
 */
import { type RenderPayload, RenderPayloadSchema } from '../../shared/payloads';
import { describeBackends } from '../evolution/llm/createBackends';
import { LlmError, type LlmBackend } from '../evolution/llm/LlmBackend';
import { HandlerError, type TaskHandler } from '../fabric/worker/TaskHandler';
import { renderFile } from '../render/renderFile';
import { type MutateHandlerOptions, workerBackends } from './mutate';

export function createRenderHandler(options: MutateHandlerOptions): TaskHandler<RenderPayload> {
  // The same models as `mutate` (plugins' included); that handler already reported what is broken.
  const backends = workerBackends({ ...options, log: () => {} });
  return {
    kind: 'render',
    provides: backends.length > 0 ? ['cpu', 'llm'] : ['cpu'],
    payloadSchema: RenderPayloadSchema,
    async handle(task, context) {
      const payload = task.payload;
      let backend: LlmBackend | undefined;
      if (payload.processType === 'GENERATE') {
        backend = payload.backend ? backends.find((candidate) => candidate.name === payload.backend) : backends[0];
        if (!backend) {
          const known = backends.length > 0 ? `this worker has ${describeBackends(backends)}` : 'this worker has no LLM configured (set OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY, or an `llm` section in peagen.json)';
          throw new HandlerError('no_llm', `${payload.path}: no LLM backend "${payload.backend ?? '(default)'}": ${known}`, false);
        }
      }
      try {
        return { status: 'ok', data: await renderFile(payload, backend, context.signal) };
      } catch (error) {
        // The backend already retried what a retry can fix (429, 5xx); the queue retries a retryable failure once more later.
        if (error instanceof LlmError) throw new HandlerError(`llm_${error.code}`, `${payload.path}: the model failed (${error.code}): ${error.message}`, error.retryable);
        throw error;
      }
    },
  };
}
