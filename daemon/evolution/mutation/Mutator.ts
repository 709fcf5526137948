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
   * Ids of children this parent already has (their normal form ids, or program ids): proposing
   * one again would waste the call, so a mutator treats such a child as no child (an LLM may be
   * asked for another change).
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
  request: { messages: { role: 'system' | 'user' | 'assistant'; content: string }[]; temperature?: number; maxTokens?: number; seed?: number; choices?: number };
  /** `alternatives`: the other answers of the same call (several asked for, `choices`). */
  response: { text: string; finishReason?: string; alternatives?: string[] };
  usage: LlmUsage;
  latencyMs: number;
  costUsd: number;
}

/**
 * What one LLM call of a proposal was and what it gave, so the run can credit each kind of
 * call: the opening answer (`first`), a format repair after an answer that did not apply or
 * did not compile (`format`), a re-ask after an answer that repeated a known program (`known`).
 */
export interface CallAttempt {
  kind: 'first' | 'format' | 'known';
  /** `child` (a new child), or why not: `no_match`, `syntax`, `known`, `identical`, ... */
  result: string;
  /** The normal form id of the program the answer gave, when it gave one (new or known). */
  child?: string;
  /** The programs (normal form ids) the call's other answers gave, new or known. */
  also?: string[];
}

/** A child as proposed: its code, its diff from the parent, its normal form id. */
export interface ProposedChild {
  code: string;
  patch: string;
  normalizedId?: string;
}

interface ProposalCommon {
  mutator: string;
  model?: string;
  template?: { name: string; hash: string };
  /** Every LLM exchange this proposal took (first try and repairs), in order. */
  exchanges: LlmExchange[];
  /** Answers that did not apply before the one that did (or all of them, on failure). */
  repairs: number;
  /** One entry per LLM call, in order (mutators that call no LLM leave it out). */
  attempts?: CallAttempt[];
}

export type MutationProposal =
  | (ProposalCommon & {
      ok: true;
      code: string;
      patch: string;
      /** The child's normal form id (see childCheck.ts): equal for programs that differ only in comments or layout. */
      normalizedId?: string;
      /** Other new children the same call gave (several answers per call), each distinct. */
      siblings?: ProposedChild[];
    })
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
