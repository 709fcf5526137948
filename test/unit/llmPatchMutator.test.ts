import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LlmError, type LlmAnswer, type LlmBackend, type LlmRequest } from '../../daemon/evolution/llm/LlmBackend';
import { LlmPatchMutator, ReplayBackend } from '../../daemon/evolution/mutation/LlmPatchMutator';
import type { MutationProposal, MutationRequest } from '../../daemon/evolution/mutation/Mutator';
import { applyAnswer } from '../../daemon/evolution/mutation/patch/applyAnswer';
import { tempDir } from '../fixtures/paths';

const PARENT = [
  '"""Sums numbers."""',
  '# EVOLVE-BLOCK-START',
  'def total(values):',
  '    result = 0',
  '    for value in values:',
  '        result = result + value',
  '    return result',
  '# EVOLVE-BLOCK-END',
  '',
].join('\n');

const block = (search: string, replace: string): string => `Idea.\n\n<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n`;
const GOOD = block('        result = result + value', '        result += value');
const CHILD = PARENT.replace('result = result + value', 'result += value');
const NO_MATCH = block('        result = result + values', '        result += values');
const PROSE = 'I would make it faster, but I will not say how.';

/** The request as data (an AbortSignal cannot be cloned or compared). */
function withoutSignal(request: LlmRequest): Omit<LlmRequest, 'signal'> {
  const copy: Omit<LlmRequest, 'signal'> = { messages: structuredClone(request.messages) };
  if (request.temperature !== undefined) copy.temperature = request.temperature;
  if (request.maxTokens !== undefined) copy.maxTokens = request.maxTokens;
  if (request.seed !== undefined) copy.seed = request.seed;
  return copy;
}

type Script = string | Error | ((request: LlmRequest) => string);

/** A backend that answers from a script, one entry per call, and keeps every request. */
class ScriptedBackend implements LlmBackend {
  readonly name = 'scripted';
  readonly provider = 'openai' as const;
  readonly model = 'model-x';
  readonly requests: Omit<LlmRequest, 'signal'>[] = [];
  constructor(private readonly script: Script[]) {}

  async complete(request: LlmRequest): Promise<LlmAnswer> {
    this.requests.push(withoutSignal(request));
    const next = this.script[this.requests.length - 1];
    if (next === undefined) throw new Error(`the script has no answer ${this.requests.length}`);
    if (next instanceof Error) throw next;
    const text = typeof next === 'function' ? next(request) : next;
    const call = this.requests.length;
    return { text, model: 'model-x-2025', usage: { inputTokens: 100 * call, outputTokens: 10 * call }, latencyMs: call, finishReason: 'stop' };
  }
}

function request(extra: Partial<MutationRequest> = {}): MutationRequest {
  return {
    parent: { id: 'parent', code: PARENT, objective: 1 },
    inspirations: [],
    seed: 42,
    task: { name: 'sums', language: 'python', entry: 'total', objectiveName: 'speedup', direction: 'maximize' },
    ...extra,
  };
}

const applyAnswerLanded = (): boolean => applyAnswer(PARENT, GOOD).ok;
function needsApplyAnswer(context: Mocha.Context): void {
  if (!applyAnswerLanded()) context.skip(); // the applyAnswer stub (always no_edit) is still in place
}

function assertFailed(proposal: MutationProposal): asserts proposal is Extract<MutationProposal, { ok: false }> {
  assert.equal(proposal.ok, false, proposal.ok ? `unexpected child:\n${proposal.code}` : '');
}

describe('LlmPatchMutator', () => {
  it('is the llm-patch mutator and needs an LLM', () => {
    const mutator = new LlmPatchMutator({ backend: new ScriptedBackend([]) });
    assert.equal(mutator.name, 'llm-patch');
    assert.equal(mutator.usesLlm, true);
    assert.throws(() => new LlmPatchMutator({ backend: new ScriptedBackend([]), repairAttempts: -1 }), /repairAttempts/);
  });

  it('applies a good answer: the child, its diff, the model and the template', async function () {
    needsApplyAnswer(this);
    const backend = new ScriptedBackend([GOOD]);
    const proposal = await new LlmPatchMutator({ backend, temperature: 0.7, maxTokens: 2000 }).propose(request());
    assert.ok(proposal.ok, proposal.ok ? '' : proposal.message);
    assert.equal(proposal.code, CHILD);
    assert.match(proposal.patch, /^-\s+result = result \+ value$/m);
    assert.match(proposal.patch, /^\+\s+result \+= value$/m);
    assert.equal(proposal.model, 'scripted/model-x');
    assert.equal(proposal.mutator, 'llm-patch');
    assert.equal(proposal.template?.name, 'mutate');
    assert.equal(proposal.repairs, 0);
    assert.equal(proposal.exchanges.length, 1);
    assert.deepEqual(
      { temperature: backend.requests[0]!.temperature, maxTokens: backend.requests[0]!.maxTokens, seed: backend.requests[0]!.seed },
      { temperature: 0.7, maxTokens: 2000, seed: 42 },
    );
  });

  it('sends a non-matching answer back with the SEARCH text and the closest lines, and applies the second', async function () {
    needsApplyAnswer(this);
    const backend = new ScriptedBackend([NO_MATCH, GOOD]);
    const proposal = await new LlmPatchMutator({ backend }).propose(request());
    assert.ok(proposal.ok, proposal.ok ? '' : proposal.message);
    assert.equal(proposal.code, CHILD);
    assert.equal(proposal.repairs, 1);
    const [first, second] = backend.requests as [Omit<LlmRequest, 'signal'>, Omit<LlmRequest, 'signal'>];
    assert.deepEqual(second.messages.slice(0, first.messages.length), first.messages, 'the conversation goes on');
    const [assistant, repair] = second.messages.slice(first.messages.length);
    assert.deepEqual(assistant, { role: 'assistant', content: NO_MATCH });
    assert.equal(repair?.role, 'user');
    assert.ok(repair.content.includes('result = result + values'), 'names the SEARCH text that did not match');
    assert.ok(repair.content.includes('        result = result + value\n'), 'shows the closest lines of the program');
    assert.match(repair.content, /attempt 1 of 2/);
  });

  it('sends back an answer that declares the function a second time (the old one left as dead code), and applies the fix', async function () {
    needsApplyAnswer(this);
    const appended = block('    return result', '    return result\n\ndef total(values):\n    return sum(values)');
    const backend = new ScriptedBackend([appended, GOOD]);
    const proposal = await new LlmPatchMutator({ backend }).propose(request());
    assert.ok(proposal.ok, proposal.ok ? '' : proposal.message);
    assert.equal(proposal.code, CHILD);
    assert.deepEqual(proposal.attempts?.map((attempt) => attempt.result), ['redeclared', 'child']);
    assert.match(backend.requests[1]!.messages.at(-1)!.content, /declares total\(\) twice in one scope \(lines 3 and 9\)/);
  });

  it('gives up after repairAttempts answers that do not apply', async () => {
    const backend = new ScriptedBackend([PROSE, PROSE, PROSE, PROSE]);
    const proposal = await new LlmPatchMutator({ backend, repairAttempts: 2 }).propose(request());
    assertFailed(proposal);
    assert.equal(proposal.reason, 'no_edit');
    assert.ok(proposal.message.length > 0);
    assert.equal(backend.requests.length, 3, 'the first answer and two repairs');
    assert.equal(proposal.repairs, 3);
    assert.equal(proposal.exchanges.length, 3);

    const once = new ScriptedBackend([PROSE, PROSE]);
    const none = await new LlmPatchMutator({ backend: once, repairAttempts: 0 }).propose(request());
    assertFailed(none);
    assert.equal(once.requests.length, 1);
  });

  it('records every exchange in order, with usage, latency, request settings and price', async () => {
    const backend = new ScriptedBackend([PROSE, 'still nothing', 'nothing again']);
    const proposal = await new LlmPatchMutator({
      backend,
      temperature: 0.3,
      maxTokens: 500,
      cost: (usage) => usage.inputTokens / 1e6 + usage.outputTokens / 1e5,
    }).propose(request());
    assert.deepEqual(
      proposal.exchanges.map((exchange) => exchange.response.text),
      [PROSE, 'still nothing', 'nothing again'],
    );
    proposal.exchanges.forEach((exchange, i) => {
      assert.equal(exchange.backend, 'scripted');
      assert.equal(exchange.model, 'model-x-2025');
      assert.deepEqual(exchange.request.messages, backend.requests[i]!.messages);
      assert.deepEqual([exchange.request.temperature, exchange.request.maxTokens, exchange.request.seed], [0.3, 500, 42]);
      assert.deepEqual(exchange.usage, { inputTokens: 100 * (i + 1), outputTokens: 10 * (i + 1) });
      assert.equal(exchange.latencyMs, i + 1);
      assert.equal(exchange.response.finishReason, 'stop');
      assert.ok(Math.abs(exchange.costUsd - (i + 1) * 2e-4) < 1e-12);
    });
    assert.equal(proposal.exchanges[2]!.request.messages.length, 6, 'system, user, then answer + repair twice');
  });

  it('never returns the parent as a child', async function () {
    needsApplyAnswer(this);
    const same = block('    return result', '    return result');
    const backend = new ScriptedBackend([same, same, same]);
    const proposal = await new LlmPatchMutator({ backend }).propose(request());
    assertFailed(proposal);
    assert.equal(proposal.reason, 'identical');
    assert.equal(backend.requests.length, 3, 'an unchanged program is sent back like any answer that does not apply');
  });

  it('sends a child that failed evaluation back with the evaluator error text and fixes the child', async function () {
    const broken = PARENT.replace('        result = result + value', '        result = result + valu');
    const errorText = "NameError: name 'valu' is not defined";
    const backend = new ScriptedBackend([block('        result = result + valu', '        result += value')]);
    const failed = request({ parent: { id: 'failed-child', code: broken, objective: null }, failure: { code: 'crash', errorText } });
    const proposal = await new LlmPatchMutator({ backend }).propose(failed);
    const user = backend.requests[0]!.messages[1]!;
    assert.equal(user.role, 'user');
    assert.ok(user.content.includes(errorText), 'the evaluator error text');
    assert.ok(user.content.includes('(crash)'), 'the failure reason');
    assert.ok(user.content.includes(broken), 'the failed child');
    assert.equal(proposal.template?.name, 'repair');
    if (!applyAnswerLanded()) return this.skip();
    assert.ok(proposal.ok, proposal.ok ? '' : proposal.message);
    assert.equal(proposal.code, CHILD, 'the answer fixes the failed child');
    assert.match(proposal.patch, /^-\s+result = result \+ valu$/m);
  });

  it('turns an LLM failure into ok:false llm_error with the error code, keeping earlier exchanges', async () => {
    const backend = new ScriptedBackend([PROSE, new LlmError('rate_limited', 'slow down', true)]);
    const proposal = await new LlmPatchMutator({ backend }).propose(request());
    assertFailed(proposal);
    assert.equal(proposal.reason, 'llm_error');
    assert.match(proposal.message, /^rate_limited: slow down/);
    assert.equal(proposal.exchanges.length, 1);
    assert.equal(proposal.repairs, 1);

    const crashing = new ScriptedBackend([new TypeError('socket exploded')]);
    const crashed = await new LlmPatchMutator({ backend: crashing }).propose(request());
    assertFailed(crashed);
    assert.equal(crashed.reason, 'llm_error');
    assert.match(crashed.message, /socket exploded/);
  });

  it('passes the abort signal to the backend', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const backend: LlmBackend = {
      name: 'b',
      provider: 'anthropic',
      model: 'm',
      complete: async (req) => {
        seen = req.signal;
        throw new LlmError('aborted', 'aborted by the caller', false);
      },
    };
    controller.abort();
    const proposal = await new LlmPatchMutator({ backend }).propose(request(), { signal: controller.signal });
    assert.equal(seen, controller.signal);
    assertFailed(proposal);
    assert.match(proposal.message, /^aborted:/);
  });

  it('reports a broken project template as ok:false prompt_error naming the file', async () => {
    const dir = tempDir('llmmut');
    try {
      fs.writeFileSync(path.join(dir, 'mutate.njk'), '{{ parent.nope }}');
      const backend = new ScriptedBackend([GOOD]);
      const proposal = await new LlmPatchMutator({ backend, promptDir: dir }).propose(request());
      assertFailed(proposal);
      assert.equal(proposal.reason, 'prompt_error');
      assert.ok(proposal.message.includes(path.join(dir, 'mutate.njk')), proposal.message);
      assert.equal(backend.requests.length, 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uses the project prompt directory and a named template', async () => {
    const dir = tempDir('llmmut');
    try {
      fs.writeFileSync(path.join(dir, 'terse.njk'), 'Make {{ task.entry }} faster.\n{{ format }}');
      const backend = new ScriptedBackend([PROSE]);
      const proposal = await new LlmPatchMutator({ backend, promptDir: dir, template: 'terse', repairAttempts: 0 }).propose(request());
      assert.match(backend.requests[0]!.messages[1]!.content, /^Make total faster\.\n## Edit format/);
      assert.equal(proposal.template?.name, 'terse');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A backend that gives several answers per call: one list of answers per call, in order. */
class ManyAnswersBackend implements LlmBackend {
  readonly name = 'many';
  readonly provider = 'openai' as const;
  readonly model = 'model-n';
  readonly requests: LlmRequest[] = [];
  constructor(private readonly calls: string[][]) {}

  async complete(request: LlmRequest): Promise<LlmAnswer> {
    this.requests.push(request);
    const [text, ...alternatives] = this.calls[this.requests.length - 1] ?? [];
    if (text === undefined) throw new Error(`no answers for call ${this.requests.length}`);
    return { text, ...(alternatives.length > 0 && { alternatives }), model: this.model, usage: { inputTokens: 100, outputTokens: 30 }, latencyMs: 1 };
  }
}

describe('LlmPatchMutator with several answers per call', () => {
  const OTHER = block('    result = 0', '    result = 0.0');
  const THIRD = block('    return result', '    return int(result)');

  it('asks for `choices` answers; the first new child is the proposal, the other new ones its siblings, each once', async function () {
    needsApplyAnswer(this);
    const backend = new ManyAnswersBackend([[GOOD, GOOD, PROSE, THIRD]]);
    const proposal = await new LlmPatchMutator({ backend, choices: 4 }).propose(request());
    assert.ok(proposal.ok);
    assert.equal(backend.requests[0]!.choices, 4);
    assert.equal(proposal.code, CHILD);
    assert.deepEqual(proposal.siblings?.map((sibling) => sibling.code), [PARENT.replace('return result', 'return int(result)')]);
    assert.match(proposal.siblings?.[0]?.patch ?? '', /^\+ {4}return int\(result\)$/m);
    assert.equal(proposal.exchanges.length, 1, 'one call');
    assert.deepEqual(proposal.exchanges[0]!.response.alternatives, [GOOD, PROSE, THIRD], 'every answer is recorded, for replay');
    assert.equal(proposal.exchanges[0]!.request.choices, 4);
    // The call's other programs (the repeat of the child, the sibling) are reported beside its child.
    assert.equal(proposal.attempts?.[0]?.also?.length, 2);
  });

  it('takes a child from a later answer instead of repairing the first; repairs only a call none of whose answers gives one', async function () {
    needsApplyAnswer(this);
    const backend = new ManyAnswersBackend([[NO_MATCH, OTHER]]);
    const proposal = await new LlmPatchMutator({ backend, choices: 2, repairAttempts: 2 }).propose(request());
    assert.ok(proposal.ok);
    assert.equal(proposal.repairs, 0);
    assert.equal(backend.requests.length, 1, 'no repair call');
    assert.equal(proposal.siblings, undefined);

    const repaired = new ManyAnswersBackend([[NO_MATCH, PROSE], [GOOD]]);
    const second = await new LlmPatchMutator({ backend: repaired, choices: 2, repairAttempts: 2 }).propose(request());
    assert.ok(second.ok);
    assert.equal(second.repairs, 1);
    assert.match(repaired.requests[1]!.messages.at(-1)!.content, /result = result \+ values/, 'the repair is about the first answer');
    assert.deepEqual(second.attempts?.map((attempt) => attempt.result), ['no_match', 'child']);
  });

  it('leaves a known program out of the siblings, and re-derives the child and its siblings on replay', async function () {
    needsApplyAnswer(this);
    const known = await new LlmPatchMutator({ backend: new ManyAnswersBackend([[THIRD]]) }).propose(request());
    assert.ok(known.ok);
    const asked = request({ avoid: [known.normalizedId!] });
    const original = await new LlmPatchMutator({ backend: new ManyAnswersBackend([[GOOD, THIRD, OTHER]]), choices: 3 }).propose(asked);
    assert.ok(original.ok);
    assert.deepEqual(original.siblings?.map((sibling) => sibling.code), [PARENT.replace('    result = 0\n', '    result = 0.0\n')]);
    const again = await new LlmPatchMutator({ backend: new ReplayBackend(original.exchanges), choices: 3 }).propose(asked);
    assert.ok(again.ok);
    assert.equal(again.code, original.code);
    assert.deepEqual(again.siblings, original.siblings);
  });
});

describe('ReplayBackend', () => {
  it('re-derives the same child, byte for byte, from the recorded exchanges', async function () {
    needsApplyAnswer(this);
    const original = await new LlmPatchMutator({ backend: new ScriptedBackend([NO_MATCH, GOOD]), temperature: 0.9 }).propose(request());
    assert.ok(original.ok);
    const replay = new ReplayBackend(original.exchanges);
    const again = await new LlmPatchMutator({ backend: replay, temperature: 0.9 }).propose(request());
    assert.ok(again.ok);
    assert.equal(again.code, original.code);
    assert.equal(again.patch, original.patch);
    assert.equal(again.repairs, 1);
    assert.deepEqual(again.exchanges, original.exchanges);
    assert.equal(replay.used, 2);
  });

  it('answers recorded exchanges in order and fails clearly when a request differs or the record runs out', async () => {
    const recorded = await new LlmPatchMutator({ backend: new ScriptedBackend([PROSE, 'second', 'third']) }).propose(request());
    assert.equal(recorded.exchanges.length, 3);

    const replay = new ReplayBackend(recorded.exchanges);
    assert.equal(replay.name, 'scripted');
    const first = await replay.complete({ messages: recorded.exchanges[0]!.request.messages });
    assert.deepEqual(
      { text: first.text, model: first.model, usage: first.usage, latencyMs: first.latencyMs },
      { text: PROSE, model: 'model-x-2025', usage: { inputTokens: 100, outputTokens: 10 }, latencyMs: 1 },
    );

    const other = request({ parent: { id: 'other', code: PARENT.replace('result = 0', 'result = 0.0'), objective: 1 } });
    const diverged = await new LlmPatchMutator({ backend: new ReplayBackend(recorded.exchanges) }).propose(other);
    assertFailed(diverged);
    assert.equal(diverged.reason, 'llm_error');
    assert.match(diverged.message, /^bad_request: replay: request 1 differs from the recorded one: message 2 \(user\) differs at line \d+: recorded " {4}result = 0", got " {4}result = 0\.0"/);

    const short = new ReplayBackend(recorded.exchanges.slice(0, 1));
    const exhausted = await new LlmPatchMutator({ backend: short }).propose(request());
    assertFailed(exhausted);
    assert.match(exhausted.message, /replay: request 2 has no recorded exchange \(the record holds 1\)/);
    assert.equal(exhausted.exchanges.length, 1);
  });
});
