/**
 * Mutator: proposes one child program from a parent. It never evaluates; the controller
 * sends the child to an `evaluate` task. Rules every implementation keeps (the conformance
 * suite in test/conformance/mutator.ts checks them):
 *  - a child is never identical to its parent (that is a failed proposal, not a child);
 *  - edits stay inside the EVOLVE-BLOCK regions of the parent when it has any;
 *  - the same request and seed give the same proposal (replay);
 *  - a bad answer or an unusable parent gives `{ ok: false, reason }`, never a throw.
 */
import type { LlmUsage } from '../../../shared/evolution';

export interface MutationSubject {
  id: string;
  code: string;
  objective: number | null;
  metrics?: Record<string, number> | undefined;
}

export interface MutationRequest {
  parent: MutationSubject;
  /** Other good programs: donors for the offline mutator, examples in an LLM prompt. */
  inspirations: MutationSubject[];
  /**
   * Ids (programId) of children this parent already has: proposing one again would waste the
   * call, so a mutator treats such a child as no child (an LLM is asked for another change).
   */
  avoid?: readonly string[] | undefined;
  /** The evaluator's error text when this is a repair of a child that failed (capped). */
  failure?: { code: string; errorText: string };
  seed: number;
  /** What the program is for, in words (prompt context). */
  task: {
    name: string;
    description?: string | undefined;
    language?: string | undefined;
    entry?: string | undefined;
    objectiveName: string;
    direction: 'maximize' | 'minimize';
  };
}

/** One request/answer pair with an LLM, as recorded for replay. */
export interface LlmExchange {
  backend: string;
  model: string;
  request: { messages: { role: 'system' | 'user' | 'assistant'; content: string }[]; temperature?: number; maxTokens?: number; seed?: number };
  response: { text: string; finishReason?: string };
  usage: LlmUsage;
  latencyMs: number;
  costUsd: number;
}

interface ProposalCommon {
  mutator: string;
  model?: string;
  template?: { name: string; hash: string };
  /** Every LLM exchange this proposal took (first try and repairs), in order. */
  exchanges: LlmExchange[];
  /** Answers that did not apply before the one that did (or all of them, on failure). */
  repairs: number;
}

export type MutationProposal =
  | (ProposalCommon & { ok: true; code: string; patch: string })
  | (ProposalCommon & {
      ok: false;
      /** Stable reason: `no_edit`, `no_match`, `ambiguous`, `outside_block`, `identical`, `llm_error`, ... */
      reason: string;
      message: string;
    });

export interface MutationContext {
  signal?: AbortSignal;
  log?(line: string): void;
}

export interface Mutator {
  /** `llm-patch`, `offline`, ... recorded in each child's lineage. */
  readonly name: string;
  /** True when it needs an LLM (its tasks then require the `llm` capability). */
  readonly usesLlm: boolean;
  propose(request: MutationRequest, context?: MutationContext): Promise<MutationProposal>;
}
