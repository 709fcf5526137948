/**
 * `peagen/conformance`: the suites every implementation of a plug point passes, for plugin
 * authors to run on their own (bundled as dist/conformance.js; mocha stays the author's).
 * Each `describe...Conformance` registers mocha tests, so call it at the top level of a test
 * file that mocha runs. See docs/plugins.md.
 */
import type { MutationRequest, Mutator } from '../../daemon/evolution/mutation/Mutator';
import { mutatorConformance } from './mutator';

export { describeTaskHandlerConformance, type HandlerSamples } from './taskHandler';
export { parentSelectorConformance as describeParentSelectorConformance, FakeArchive, makeProgram } from './parentSelector';
export { describeExecutorConformance, type ExecutorTraits } from './executor';
export { llmBackendConformance as describeLlmBackendConformance, type BackendFactory, type BackendTestOptions, type ConformanceOptions } from './llmBackend';
export { startAnthropicServer, startOpenAiServer, type WireServer, type WireServerOptions } from '../fixtures/llmWireServers';
export { CONFORMANCE_PROGRAMS, fixedText, ODD_PROGRAMS } from './mutator';
export { HandlerError } from '../../daemon/fabric/worker/TaskHandler';
export { LlmError } from '../../daemon/evolution/llm/LlmBackend';

/** The request the mutator suite sends when the author gives none: the parent, no inspirations. */
export function defaultMutationRequest(code: string): MutationRequest {
  return {
    parent: { id: 'parent', code, objective: null },
    inspirations: [],
    seed: 1,
    task: { name: 'conformance', objectiveName: 'score', direction: 'maximize' },
  };
}

/** The Mutator suite: `make` gives a fresh mutator; `requestFor` the request around a parent's code. */
export function describeMutatorConformance(name: string, make: () => Mutator, requestFor: (parentCode: string) => MutationRequest = defaultMutationRequest): void {
  mutatorConformance(name, make, requestFor);
}
