/**
 * The Mutator contract as a mocha suite. Every mutator runs this file unchanged:
 *
 *   mutatorConformance('offline', () => new OfflineMutator(), (code) => requestFor(code));
 *
 * The suite supplies the parent programs (CONFORMANCE_PROGRAMS, exported so that a mutator
 * driven by a scripted fake LLM can prepare answers for them) and the seeds; `requestFor`
 * builds the rest of the request (task, inspirations).
 */
import * as assert from 'node:assert/strict';
import { applyPatch } from 'diff';
import type { MutationProposal, MutationRequest, Mutator } from '../../daemon/evolution/mutation/Mutator';
import { blocksOfLines, fixedSegments } from '../../shared/evolveBlocks';
import { toDocument } from '../../shared/lines';

export const CONFORMANCE_PROGRAMS = {
  /** A Python program with one region, fixed text around it. */
  python: [
    '"""Sum of squares."""',
    'import math',
    '',
    '# EVOLVE-BLOCK-START',
    'def square(x):',
    '    y = x * x',
    '    z = y + 0',
    '    return z',
    '',
    '',
    'def total(xs):',
    '    acc = 0',
    '    for x in xs:',
    '        if x is not None:',
    '            acc = acc + square(x)',
    '        else:',
    '            acc = acc + 0',
    '    check = acc >= 0',
    '    return acc',
    '# EVOLVE-BLOCK-END',
    '',
    'if __name__ == "__main__":',
    '    print(total([1, 2, 3]))',
    '',
  ].join('\n'),
  /** A brace-language program with two regions. */
  javascript: [
    "'use strict';",
    '// EVOLVE-BLOCK-START',
    'function add(a, b) {',
    '  const sum = a + b;',
    '  const copy = [sum].slice();',
    '  return sum;',
    '}',
    '// EVOLVE-BLOCK-END',
    'const fixed = 1;',
    '// EVOLVE-BLOCK-START',
    'function twice(x) {',
    '  let r = 0;',
    '  for (let i = 0; i < 2; i++) {',
    '    r = add(r, x);',
    '  }',
    '  return r;',
    '}',
    '// EVOLVE-BLOCK-END',
    'module.exports = { add, twice, fixed };',
    '',
  ].join('\n'),
  /** No markers: the whole file may change. */
  unmarked: ['def f(x):', '    a = x + 1', '    b = a * 2', '    return b', ''].join('\n'),
};

/** Odd inputs a mutator must survive without throwing. */
export const ODD_PROGRAMS: Record<string, string> = {
  empty: '',
  'only markers': '# EVOLVE-BLOCK-START\n# EVOLVE-BLOCK-END\n',
  'unpaired marker': '# EVOLVE-BLOCK-START\nx = 1\n',
  'huge line': `x = "${'a'.repeat(200_000)}"\n`,
  'binary-ish': Array.from({ length: 2_000 }, (_, i) => String.fromCharCode((i * 7919) % 256)).join(''),
  'unbalanced brackets': '# EVOLVE-BLOCK-START\ndef f(:\n    return ((1\n# EVOLVE-BLOCK-END\n',
  'CRLF only blank lines': '\r\n\r\n\r\n',
};

const SEEDS = Array.from({ length: 25 }, (_, i) => i * 977 + 1);

/** The parts of a program outside its regions (markers included): what no mutator may change. None without regions. */
export function fixedText(code: string): string[][] {
  const lines = toDocument(code).lines;
  const regions = blocksOfLines(lines);
  return regions.length === 0 ? [] : fixedSegments(lines, regions);
}

function comparable(proposal: MutationProposal): unknown {
  return proposal.ok
    ? { ok: true, mutator: proposal.mutator, code: proposal.code, patch: proposal.patch, repairs: proposal.repairs }
    : { ok: false, mutator: proposal.mutator, reason: proposal.reason, repairs: proposal.repairs };
}

export function mutatorConformance(name: string, make: () => Mutator, requestFor: (parentCode: string) => MutationRequest): void {
  describe(`Mutator conformance: ${name}`, function () {
    this.timeout(60_000);

    const propose = (code: string, seed: number): Promise<MutationProposal> => make().propose({ ...requestFor(code), seed });

    for (const [programName, code] of Object.entries(CONFORMANCE_PROGRAMS)) {
      describe(`on the ${programName} program`, () => {
        it('never returns a child identical to its parent, and children do occur', async () => {
          let children = 0;
          for (const seed of SEEDS) {
            const proposal = await propose(code, seed);
            if (!proposal.ok) continue;
            children++;
            assert.notEqual(proposal.code, code, `seed ${seed}`);
          }
          assert.ok(children > 0, 'no seed gave a child');
        });

        it('edits only inside the EVOLVE-BLOCK regions', async () => {
          for (const seed of SEEDS) {
            const proposal = await propose(code, seed);
            if (proposal.ok) assert.deepEqual(fixedText(proposal.code), fixedText(code), `seed ${seed} changed fixed text:\n${proposal.patch}`);
          }
        });

        it('gives the same proposal for the same request and seed', async () => {
          for (const seed of SEEDS.slice(0, 8)) {
            assert.deepEqual(comparable(await propose(code, seed)), comparable(await propose(code, seed)), `seed ${seed}`);
          }
        });

        it('records a unified diff that diff.applyPatch turns into the child', async () => {
          for (const seed of SEEDS) {
            const proposal = await propose(code, seed);
            if (!proposal.ok) continue;
            assert.equal(applyPatch(code, proposal.patch), proposal.code, `seed ${seed}`);
          }
        });
      });
    }

    it('never throws on odd input: a failed proposal has a reason and a message', async () => {
      for (const [oddName, code] of Object.entries(ODD_PROGRAMS)) {
        const proposal = await propose(code, 7).catch((error: unknown) => assert.fail(`${oddName}: threw ${String(error)}`));
        if (proposal.ok) {
          assert.notEqual(proposal.code, code, oddName);
          assert.deepEqual(fixedText(proposal.code), fixedText(code), oddName);
        } else {
          assert.ok(proposal.reason.length > 0 && proposal.message.length > 0, oddName);
        }
      }
    });

    it('gives no child for an empty program', async () => {
      const proposal = await propose('', 3);
      assert.equal(proposal.ok, false);
    });
  });
}
