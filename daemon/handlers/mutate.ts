/**
 * The `mutate` task: one proposal of a child program from a parent, by the LLM patch
 * mutator (requires `llm`: a worker offers it only with a model configured in its own
 * environment) or the offline mutator (requires `cpu`). It never evaluates. A bad LLM
 * answer is a proposal with `ok: false` and its reason, not a task failure, so the run
 * learns from it; only a request this worker cannot serve is an error result.
 */
import type { LlmUsage } from '../../shared/evolution';
import { type MutatePayload, MutatePayloadSchema } from '../../shared/payloads';
import { HandlerError, type TaskHandler } from '../fabric/worker/TaskHandler';
import type { LlmConfig } from '../evolution/llm/llmConfig';
import type { LlmBackend } from '../evolution/llm/LlmBackend';
import { createBackends, describeBackends } from '../evolution/llm/createBackends';
import { costOf, pricingFor } from '../evolution/llm/pricing';
import { EXACT_CHECK } from '../evolution/mutation/childCheck';
import { LlmPatchMutator } from '../evolution/mutation/LlmPatchMutator';
import type { Mutator } from '../evolution/mutation/Mutator';
import { OfflineMutator } from '../evolution/mutation/OfflineMutator';
import { guardedPluginMutator, pluginBackends } from '../plugins/pluginGuards';
import type { LlmBackendPlugin } from '../plugins/plugPoints';
import type { HostPathPolicy } from '../sandbox/hostPaths';
import { servedPath } from './servedPath';

export interface MutateHandlerOptions {
  llm: LlmConfig;
  env?: NodeJS.ProcessEnv;
  log?(line: string): void;
  /** Mutators of allowed plugins, chosen by name like the built-in ones. */
  mutators?: readonly Mutator[];
  /** LLM backends of allowed plugins, called beside the configured ones. */
  llmBackends?: readonly LlmBackendPlugin[];
  /** On a shared queue: where a payload's prompt directory may be. */
  hostPaths?: HostPathPolicy;
}

/** The backends this worker can call (configured and plugins'); a broken `llm` section is reported and offers none. */
export function workerBackends(options: MutateHandlerOptions): LlmBackend[] {
  let backends: LlmBackend[] = [];
  try {
    backends = createBackends(options.llm, options.env ?? process.env);
  } catch (error) {
    options.log?.(`no LLM on this worker: ${(error as Error).message}`);
  }
  return [...backends, ...pluginBackends(options.llmBackends ?? [], options.env ?? process.env, options.log)];
}

export function createMutateHandler(options: MutateHandlerOptions): TaskHandler<MutatePayload> {
  const backends = workerBackends(options);
  const offline = new OfflineMutator();
  return {
    kind: 'mutate',
    provides: backends.length > 0 ? ['cpu', 'llm'] : ['cpu'],
    payloadSchema: MutatePayloadSchema,
    async handle(task, context) {
      const payload = task.payload;
      let mutator: Mutator;
      if (payload.mutator === 'offline') mutator = offline;
      else if (payload.mutator === 'llm-patch') {
        const backend = payload.backend ? backends.find((candidate) => candidate.name === payload.backend) : backends[0];
        if (!backend) {
          const known = backends.length > 0 ? `this worker has ${describeBackends(backends)}` : 'this worker has no LLM configured (set OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY, or an `llm` section in peagen.json)';
          throw new HandlerError('no_llm', `no LLM backend "${payload.backend ?? '(default)'}": ${known}`, false);
        }
        const config = options.llm.backends.find((candidate) => candidate.name === backend.name);
        const pricing = pricingFor(backend.model, config?.pricing, backend.baseUrl);
        mutator = new LlmPatchMutator({
          backend,
          temperature: payload.temperature ?? config?.temperature ?? options.llm.temperature,
          maxTokens: payload.maxTokens ?? config?.maxTokens ?? 4096,
          repairAttempts: payload.repairAttempts ?? options.llm.repairAttempts,
          reaskAttempts: payload.reaskAttempts ?? payload.repairAttempts ?? options.llm.repairAttempts,
          allowRewrite: payload.allowRewrite ?? options.llm.allowRewrite,
          // The caller's wish, within what this model is configured to give.
          choices: Math.min(payload.choices ?? options.llm.choices, config?.choices ?? Infinity),
          ...(payload.childCheck === false && { check: EXACT_CHECK }),
          ...(payload.promptDir && { promptDir: servedPath(options.hostPaths, task, payload.promptDir, 'prompt directory') }),
          ...(pricing && { cost: (usage: LlmUsage) => costOf(usage, pricing) }),
          ...(payload.template && { template: payload.template }),
        });
      } else {
        const plugin = options.mutators?.find((candidate) => candidate.name === payload.mutator);
        if (!plugin) {
          const fromPlugins = options.mutators?.length ? `; from plugins: ${options.mutators.map((candidate) => candidate.name).join(', ')}` : '';
          throw new HandlerError('unknown_mutator', `unknown mutator "${payload.mutator}" (built in: llm-patch, offline${fromPlugins}); a plugin's mutator must be allowed in this worker's peagen.json "plugins" (see \`peagen plugins\`)`, false);
        }
        mutator = guardedPluginMutator(plugin);
      }
      const proposal = await mutator.propose(
        {
          parent: payload.parent,
          inspirations: payload.inspirations,
          ...(payload.failure && { failure: payload.failure }),
          avoid: payload.avoid,
          seed: payload.seed,
          task: payload.task,
        },
        { signal: context.signal, log: context.log },
      );
      return { status: 'ok', data: proposal };
    },
  };
}
