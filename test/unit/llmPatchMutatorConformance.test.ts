/**
 * LlmPatchMutator against the Mutator conformance suite, with a scripted LlmBackend that
 * reads the current program out of the prompt and answers a SEARCH/REPLACE edit at one line
 * inside its EVOLVE-BLOCK regions (a new statement before it: a real code change, not a
 * comment, which the child check would see as the parent itself), chosen by the request's
 * seed (so the same request gives the same answer). Every third seed first answers a SEARCH
 * text the program lacks, so the apply-repair turn is part of what must conform.
 */
import * as assert from 'node:assert/strict';
import type { LlmAnswer, LlmBackend, LlmRequest } from '../../daemon/evolution/llm/LlmBackend';
import { LlmPatchMutator } from '../../daemon/evolution/mutation/LlmPatchMutator';
import type { MutationRequest } from '../../daemon/evolution/mutation/Mutator';
import { blocksOfLines } from '../../shared/evolveBlocks';
import { programId } from '../../shared/programId';
import { CONFORMANCE_PROGRAMS, mutatorConformance } from '../conformance/mutator';
import { extractCurrentProgram } from '../fixtures/badSortMoves';

/** Lines the scripted model may edit: inside a region (anywhere without regions), unique, not blank, not a marker. */
function editableLines(program: string): string[] {
  const lines = program.replace(/\r\n/g, '\n').split('\n');
  const regions = blocksOfLines(lines);
  const inside = regions.length === 0 ? lines.map((_, index) => index) : regions.flatMap((region) => range(region.startLine, region.endLine - 1));
  return inside
    .map((index) => lines[index]!)
    .filter((line) => line.trim() !== '' && !line.includes('EVOLVE-BLOCK') && !/[<=>]{7}/.test(line) && !/^\s*(else|elif|except|finally)\b/.test(line) && lines.filter((other) => other === line).length === 1);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

function block(search: string, replace: string): string {
  return `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE`;
}

class ScriptedPatchModel implements LlmBackend {
  readonly name = 'scripted';
  readonly provider = 'openai' as const;
  readonly model = 'patch-model';
  calls = 0;

  async complete(request: LlmRequest): Promise<LlmAnswer> {
    this.calls++;
    const program = extractCurrentProgram(request.messages);
    const seed = request.seed ?? 0;
    const text = this.answer(program, seed, request.messages.some((message) => message.role === 'assistant'));
    return { text, model: this.model, usage: { inputTokens: 10, outputTokens: Math.ceil(text.length / 4) }, latencyMs: 1, finishReason: 'stop' };
  }

  private answer(program: string | undefined, seed: number, isRepairTurn: boolean): string {
    const candidates = program === undefined ? [] : editableLines(program);
    if (candidates.length === 0) return 'I see nothing to change here.';
    const line = candidates[seed % candidates.length]!;
    const brace = program!.includes('// EVOLVE-BLOCK');
    const comment = brace ? '//' : '#';
    const statement = `${/^\s*/.exec(line)![0]}${brace ? `void ${seed};` : `_tuned_${seed} = ${seed}`}`;
    if (seed % 3 === 0 && !isRepairTurn) {
      return `Tighten this line.\n\n${block(`${line} ${comment} not in the program`, `${statement}\n${line}`)}\n`;
    }
    return `Tighten this line.\n\n\`\`\`\n${block(line, `${statement}\n${line}`)}\n\`\`\`\n`;
  }
}

function requestFor(code: string): MutationRequest {
  const language = code.includes('// EVOLVE-BLOCK') || code.includes("'use strict'") ? 'javascript' : 'python';
  return {
    parent: { id: programId(code), code, objective: 1 },
    inspirations: [],
    seed: 1,
    task: { name: 'conformance', language, objectiveName: 'speedup', direction: 'maximize' },
  };
}

mutatorConformance('llm-patch (scripted model)', () => new LlmPatchMutator({ backend: new ScriptedPatchModel(), repairAttempts: 2 }), requestFor);

describe('LlmPatchMutator with the scripted model', () => {
  it('the conformance above covers the apply-repair turn: a first answer that does not apply is repaired', async () => {
    const model = new ScriptedPatchModel();
    const mutator = new LlmPatchMutator({ backend: model, repairAttempts: 2 });
    const repaired = await mutator.propose({ ...requestFor(CONFORMANCE_PROGRAMS.python), seed: 3 });
    assert.ok(repaired.ok, repaired.ok ? '' : `${repaired.reason}: ${repaired.message}`);
    assert.equal(repaired.repairs, 1);
    assert.equal(repaired.exchanges.length, 2);
    assert.equal(model.calls, 2);
    const direct = await mutator.propose({ ...requestFor(CONFORMANCE_PROGRAMS.python), seed: 4 });
    assert.ok(direct.ok);
    assert.equal(direct.repairs, 0);
  });

  it('gives a child for every seed on every conformance program, so the suite checks real children', async function () {
    // 25 proposals per program, each compile-checked in a fresh python3: 15 s on an idle CI
    // machine, past mocha's default 20 s when the machine is busy.
    this.timeout(180_000);
    for (const [name, code] of Object.entries(CONFORMANCE_PROGRAMS)) {
      for (let seed = 1; seed <= 25; seed++) {
        const proposal = await new LlmPatchMutator({ backend: new ScriptedPatchModel() }).propose({ ...requestFor(code), seed });
        assert.ok(proposal.ok, `${name} seed ${seed}: ${proposal.ok ? '' : `${proposal.reason}: ${proposal.message}`}`);
      }
    }
  });
});
