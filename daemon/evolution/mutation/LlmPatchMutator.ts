/**
 * The LLM mutator: asks a model for SEARCH/REPLACE edits of the parent and applies them.
 * A child is checked before anyone spends a sandbox on it: it must compile and be new after
 * normalisation (childCheck.ts). An answer that does not apply or whose child does not
 * compile goes back to the model with the exact reason (the SEARCH text and the closest lines
 * of the program, or the compiler's message), up to `repairAttempts` times; an answer that
 * repeats a known program is asked again up to `reaskAttempts` times. The run sets both per
 * job from what such calls have been earning. With `choices` > 1 one call draws several answers:
 * the first new child is the proposal, the other new ones its siblings (evaluated with no call
 * of their own), and only a call none of whose answers gives a child is repaired or re-asked
 * (about its first answer). A child that failed evaluation may come back as
 * the parent of a request with `failure`: the model then sees the evaluator's error text and
 * fixes it. Every exchange is recorded, so {@link ReplayBackend} can re-derive the same child
 * later without a model.
 */
import { isProgramBundle } from '../../../shared/programFiles';
import { programId } from '../../../shared/programId';
import type { LlmUsage } from '../../../shared/evolution';
import { LlmError, type ChatMessage, type LlmAnswer, type LlmBackend, type LlmRequest } from '../llm/LlmBackend';
import { buildApplyRepairMessage, buildMutationMessages, type RenderOptions, type TemplateRef } from '../prompts/renderPrompt';
import { type ChildCheck, childCheckFor } from './childCheck';
import type { CallAttempt, LlmExchange, MutationContext, MutationProposal, MutationRequest, Mutator, ProposedChild } from './Mutator';
import { applyAnswer } from './patch/applyAnswer';
import { unifiedDiff } from './patch/unifiedDiff';
import { redeclaration } from './redeclaration';
import { detectSyntax } from './scan';

export interface LlmPatchMutatorOptions {
  backend: LlmBackend;
  temperature?: number;
  maxTokens?: number;
  /** Answers that do not apply (or whose child does not compile) go back to the model with the reason, up to this many times. */
  repairAttempts?: number;
  /** Answers that repeat a known program (or change nothing) are asked again, up to this many times (default: repairAttempts). */
  reaskAttempts?: number;
  /** Accept an answer that rewrites a whole EVOLVE-BLOCK in one fenced block. */
  allowRewrite?: boolean;
  /** Searched for prompt templates before the shipped ones (e.g. `<project>/.peagen/prompts`). */
  promptDir?: string;
  /** The first user prompt's template (default `mutate`). */
  template?: string;
  /** USD of one exchange from its usage; without it exchanges cost 0. */
  cost?: (usage: LlmUsage) => number;
  /** Compiles a child and gives its normal form (default: the check for the task's language). */
  check?: ChildCheck;
  /** Answers asked for per call (the backend may give fewer). */
  choices?: number;
}

/** Failures a format repair can mend: the answer's form, not its idea. */
const FORMAT_FAILURES = new Set(['no_edit', 'no_match', 'ambiguous', 'outside_block', 'bad_diff', 'syntax', 'redeclared']);

export class LlmPatchMutator implements Mutator {
  readonly name = 'llm-patch';
  readonly usesLlm = true;
  private readonly repairAttempts: number;
  private readonly reaskAttempts: number;

  constructor(private readonly options: LlmPatchMutatorOptions) {
    this.repairAttempts = options.repairAttempts ?? 2;
    this.reaskAttempts = options.reaskAttempts ?? this.repairAttempts;
    for (const [name, value] of [['repairAttempts', this.repairAttempts], ['reaskAttempts', this.reaskAttempts]] as const) {
      if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`);
    }
  }

  async propose(request: MutationRequest, context: MutationContext = {}): Promise<MutationProposal> {
    const { backend } = this.options;
    const exchanges: LlmExchange[] = [];
    const attempts: CallAttempt[] = [];
    const render: RenderOptions = this.options.promptDir ? { searchPath: [this.options.promptDir] } : {};

    let conversation: ChatMessage[];
    let template: TemplateRef;
    let inputs: ReturnType<typeof buildMutationMessages>['inputs'];
    try {
      const opening = buildMutationMessages(request, {
        ...render,
        ...(this.options.template ? { template: this.options.template } : {}),
        allowRewrite: this.options.allowRewrite ?? false,
      });
      ({ messages: conversation, template, inputs } = opening);
    } catch (error) {
      return { ok: false, mutator: this.name, reason: 'prompt_error', message: errorMessage(error), exchanges, repairs: 0, attempts };
    }
    const common = { mutator: this.name, model: `${backend.name}/${backend.model}`, template, attempts };
    const avoid = new Set(request.avoid ?? []);
    const check = this.options.check ?? childCheckFor(request.task.language);
    // A parent this check cannot compile (a newer language version, say) must not make every child a syntax error.
    const parentVerdict = await check.check(request.parent.code);
    const parentForm = parentVerdict.ok ? parentVerdict.form : programId(request.parent.code);
    let left = { format: this.repairAttempts, known: this.reaskAttempts };
    let kind: CallAttempt['kind'] = 'first';

    for (let attempt = 0; ; attempt++) {
      let answer: LlmAnswer;
      try {
        answer = await this.ask(conversation, request.seed, context, exchanges);
      } catch (error) {
        const message = error instanceof LlmError ? `${error.code}: ${error.message}` : errorMessage(error);
        // Not logged here: the run says it once (and stops when it will not go away), not once per call.
        return { ...common, ok: false, reason: 'llm_error', message, exchanges, repairs: attempt };
      }
      // Every answer of the call, in order; each new child joins `avoid`, so siblings are distinct.
      const outcomes: Verdict[] = [];
      for (const text of [answer.text, ...(answer.alternatives ?? [])]) {
        const verdict = await this.judge(request, text, check, parentVerdict.ok, parentForm, avoid);
        if (verdict.ok) avoid.add(verdict.form);
        outcomes.push(verdict);
      }
      const children = outcomes.filter((verdict): verdict is Extract<Verdict, { ok: true }> => verdict.ok);
      const outcome = children[0] ?? outcomes[0]!;
      const also = outcomes.filter((verdict) => verdict !== outcome && verdict.form !== undefined).map((verdict) => verdict.form!);
      attempts.push({ kind, result: outcome.ok ? 'child' : outcome.reason, ...(outcome.form !== undefined && { child: outcome.form }), ...(also.length > 0 && { also }) });
      if (outcome.ok) {
        const siblings: ProposedChild[] = children.slice(1).map((sibling) => ({ code: sibling.code, patch: unifiedDiff(request.parent.code, sibling.code), normalizedId: sibling.form }));
        return {
          ...common,
          ok: true,
          code: outcome.code,
          normalizedId: outcome.form,
          patch: unifiedDiff(request.parent.code, outcome.code),
          ...(siblings.length > 0 && { siblings }),
          exchanges,
          repairs: attempt,
        };
      }
      const failure = { reason: outcome.reason, message: outcome.message };
      kind = FORMAT_FAILURES.has(outcome.reason) ? 'format' : 'known';
      if (left[kind] <= 0) return { ...common, ok: false, ...failure, exchanges, repairs: attempt + 1 };
      left = { ...left, [kind]: left[kind] - 1 };
      let repair: ChatMessage;
      try {
        const allowed = kind === 'format' ? this.repairAttempts : this.reaskAttempts;
        repair = buildApplyRepairMessage(inputs, { ...failure, attempt: allowed - left[kind], attempts: allowed }, render);
      } catch (error) {
        return { ...common, ok: false, reason: 'prompt_error', message: errorMessage(error), exchanges, repairs: attempt + 1 };
      }
      conversation = [...conversation, { role: 'assistant', content: answer.text }, repair];
    }
  }

  private async judge(
    request: MutationRequest,
    text: string,
    check: ChildCheck,
    checkable: boolean,
    parentForm: string,
    avoid: ReadonlySet<string>,
  ): Promise<Verdict> {
    const identical = { reason: 'identical', message: 'The edit leaves the program as it was (at most comments or layout change), which is not a new program. Propose a real change.', form: parentForm };
    const applied = applyAnswer(request.parent.code, text, { allowRewrite: this.options.allowRewrite ?? false });
    if (!applied.ok) return applied.reason === 'identical' ? { ok: false, ...identical } : { ok: false, reason: applied.reason, message: applied.message };
    if (applied.code === request.parent.code) return { ok: false, ...identical };
    const verdict = await check.check(applied.code);
    if (!verdict.ok) {
      if (checkable) return { ok: false, reason: 'syntax', message: `${verdict.message}\nFix the edit so that the program compiles.` };
    }
    // One file's declarations at a time (a multi-file program is left to the evaluator).
    const redeclared = isProgramBundle(applied.code) ? undefined : redeclaration(request.parent.code, applied.code, detectSyntax(applied.code, request.task.language));
    if (redeclared !== undefined) return { ok: false, reason: 'redeclared', message: redeclared };
    const form = verdict.ok ? verdict.form : programId(applied.code);
    if (form === parentForm) return { ok: false, ...identical };
    if (avoid.has(form) || avoid.has(programId(applied.code))) {
      return { ok: false, reason: 'known', message: 'This exact program was already proposed and evaluated before. Propose a different change.', form };
    }
    return { ok: true, code: applied.code, form };
  }

  /** One call to the model, recorded whether or not its answer will apply. */
  private async ask(messages: ChatMessage[], seed: number, context: MutationContext, exchanges: LlmExchange[]): Promise<LlmAnswer> {
    const { backend, temperature, maxTokens, cost } = this.options;
    const choices = this.options.choices ?? 1;
    const request: LlmRequest = {
      messages,
      seed,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(choices > 1 && { choices }),
      ...(context.signal ? { signal: context.signal } : {}),
    };
    const answer = await backend.complete(request);
    exchanges.push({
      backend: backend.name,
      model: answer.model,
      request: {
        messages: messages.map((message) => ({ ...message })),
        seed,
        ...(temperature !== undefined ? { temperature } : {}),
        ...(maxTokens !== undefined ? { maxTokens } : {}),
        ...(choices > 1 && { choices }),
      },
      response: {
        text: answer.text,
        ...(answer.finishReason !== undefined ? { finishReason: answer.finishReason } : {}),
        ...(answer.alternatives && { alternatives: [...answer.alternatives] }),
      },
      usage: { ...answer.usage },
      latencyMs: answer.latencyMs,
      costUsd: cost ? cost(answer.usage) : 0,
    });
    return answer;
  }
}

/** What one answer gives: a new child, or why not (with the program it gave, when it gave one). */
type Verdict = { ok: true; code: string; form: string } | { ok: false; reason: string; message: string; form?: string };

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Answers from recorded exchanges, in order, so replay re-derives children without a model.
 * A request whose messages differ from the recorded one, or one past the end of the record,
 * fails with an LlmError (`bad_request`) that says where it diverged.
 */
export class ReplayBackend implements LlmBackend {
  readonly name: string;
  readonly provider: 'openai' | 'anthropic';
  readonly model: string;
  private next = 0;

  constructor(
    private readonly exchanges: readonly LlmExchange[],
    identity: { name?: string; provider?: 'openai' | 'anthropic'; model?: string } = {},
  ) {
    this.name = identity.name ?? exchanges[0]?.backend ?? 'replay';
    this.provider = identity.provider ?? 'openai';
    this.model = identity.model ?? exchanges[0]?.model ?? 'replay';
  }

  /** How many recorded exchanges have been answered. */
  get used(): number {
    return this.next;
  }

  async complete(request: LlmRequest): Promise<LlmAnswer> {
    if (request.signal?.aborted) throw new LlmError('aborted', 'replay: the request was aborted', false);
    const index = this.next;
    const recorded = this.exchanges[index];
    if (!recorded) {
      throw new LlmError('bad_request', `replay: request ${index + 1} has no recorded exchange (the record holds ${this.exchanges.length})`, false);
    }
    const difference = firstDifference(recorded.request.messages, request.messages);
    if (difference) throw new LlmError('bad_request', `replay: request ${index + 1} differs from the recorded one: ${difference}`, false);
    this.next++;
    return {
      text: recorded.response.text,
      ...(recorded.response.alternatives && { alternatives: [...recorded.response.alternatives] }),
      model: recorded.model,
      usage: { ...recorded.usage },
      latencyMs: recorded.latencyMs,
      ...(recorded.response.finishReason !== undefined ? { finishReason: recorded.response.finishReason } : {}),
    };
  }
}

function firstDifference(recorded: readonly ChatMessage[], actual: readonly ChatMessage[]): string | undefined {
  for (let i = 0; i < Math.max(recorded.length, actual.length); i++) {
    const want = recorded[i];
    const got = actual[i];
    if (!want) return `message ${i + 1} (${got?.role}) was not in the recorded request (${recorded.length} messages)`;
    if (!got) return `message ${i + 1} (${want.role}) is missing (the recorded request has ${recorded.length} messages)`;
    if (want.role !== got.role) return `message ${i + 1} is ${got.role}, recorded ${want.role}`;
    if (want.content !== got.content) {
      let at = 0;
      while (at < want.content.length && want.content[at] === got.content[at]) at++;
      const line = want.content.slice(0, at).split('\n').length;
      return `message ${i + 1} (${got.role}) differs at line ${line}: recorded ${JSON.stringify(lineAt(want.content, at))}, got ${JSON.stringify(lineAt(got.content, at))}`;
    }
  }
  return undefined;
}

function lineAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return text.slice(start, end === -1 ? undefined : end).slice(0, 200);
}
