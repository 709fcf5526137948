import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { MutationRequest } from '../../daemon/evolution/mutation/Mutator';
import { OfflineMutator } from '../../daemon/evolution/mutation/OfflineMutator';
import { evolveBlocks } from '../../daemon/evolution/mutation/patch/applyAnswer';
import { looksValid } from '../../daemon/evolution/mutation/offline/sanity';
import { fixedText, mutatorConformance } from '../conformance/mutator';
import { REPO } from '../fixtures/paths';

const BAD_SORT = readFileSync(path.join(REPO, 'examples/bad_sort/bad_sort.py'), 'utf8');

function offlineRequest(code: string, seed = 1, inspirations: string[] = []): MutationRequest {
  return {
    parent: { id: 'parent', code, objective: null },
    inspirations: inspirations.map((donor, i) => ({ id: `donor${i}`, code: donor, objective: 1 })),
    seed,
    task: { name: 'test', objectiveName: 'speedup', direction: 'maximize' },
  };
}

mutatorConformance('offline', () => new OfflineMutator(), (code) => offlineRequest(code));

mutatorConformance('offline with donors', () => new OfflineMutator(), (code) =>
  offlineRequest(code, 1, [code.replace(/ \+ 0/g, '').replace('x * x', 'x ** 2'), BAD_SORT]),
);

describe('OfflineMutator on bad_sort', () => {
  const SEEDS = 400;

  it('finds the single-statement deletions that keep bad_sort correct and make it faster', async () => {
    const mutator = new OfflineMutator();
    let withoutBubblePass = 0;
    let withoutPrefixCheck = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const proposal = await mutator.propose(offlineRequest(BAD_SORT, seed));
      if (!proposal.ok) continue;
      if (!proposal.code.includes('    for _ in range(n):\n        for k in range(n - 1):')) withoutBubblePass++;
      if (!proposal.code.includes('if not _prefix_is_sorted(work, i):')) withoutPrefixCheck++;
    }
    assert.ok(withoutBubblePass > 0, 'no child dropped the final bubble pass');
    assert.ok(withoutPrefixCheck > 0, 'no child dropped the prefix re-validation');
  });

  it('keeps every child inside the EVOLVE-BLOCK and passing the syntax sanity check', async () => {
    const mutator = new OfflineMutator();
    const [block] = evolveBlocks(BAD_SORT);
    assert.ok(block);
    for (let seed = 1; seed <= SEEDS; seed++) {
      const proposal = await mutator.propose(offlineRequest(BAD_SORT, seed));
      assert.ok(proposal.ok, `seed ${seed}: ${proposal.ok ? '' : proposal.message}`);
      assert.deepEqual(fixedText(proposal.code), fixedText(BAD_SORT), `seed ${seed}`);
      assert.ok(looksValid(proposal.code.split('\n'), 'python'), `seed ${seed}:\n${proposal.patch}`);
    }
  });

  it('takes a donor definition by name in crossover', async () => {
    const donor = BAD_SORT.replace('    return int(str(x))', '    return x');
    const mutator = new OfflineMutator();
    let crossed = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const proposal = await mutator.propose(offlineRequest(BAD_SORT, seed, [donor]));
      if (proposal.ok && proposal.code === donor) crossed++;
    }
    assert.ok(crossed > 0, 'no child took the donor version of _key');
  });

  it('inserts pass when it deletes the only statement of a Python block', async () => {
    const code = 'def f(x):\n    if x:\n        return 1\n    return 0\n';
    const mutator = new OfflineMutator();
    const children = new Set<string>();
    for (let seed = 1; seed <= 60; seed++) {
      const proposal = await mutator.propose(offlineRequest(code, seed));
      if (proposal.ok) children.add(proposal.code);
    }
    assert.ok(children.has('def f(x):\n    if x:\n        pass\n    return 0\n'), [...children].join('\n---\n'));
    for (const child of children) assert.ok(looksValid(child.split('\n'), 'python'), child);
  });

  it('keeps brackets balanced in brace code', async () => {
    const code = 'function f(a) {\n  if (a) {\n    return 1;\n  } else {\n    a = 2;\n  }\n  return a;\n}\n';
    const mutator = new OfflineMutator();
    for (let seed = 1; seed <= 60; seed++) {
      const proposal = await mutator.propose({ ...offlineRequest(code, seed), task: { ...offlineRequest(code).task, language: 'javascript' } });
      if (proposal.ok) assert.ok(looksValid(proposal.code.split('\n'), 'brace'), proposal.code);
    }
  });

  it('gives no_mutation when nothing can change', async () => {
    const proposal = await new OfflineMutator().propose(offlineRequest('# EVOLVE-BLOCK-START\n# EVOLVE-BLOCK-END\n'));
    assert.equal(proposal.ok, false);
    assert.equal(!proposal.ok && proposal.reason, 'no_mutation');
  });
});

describe('syntax sanity check', () => {
  it('accepts valid Python and rejects the usual breakages', () => {
    assert.equal(looksValid(BAD_SORT.split('\n'), 'python'), true);
    assert.equal(looksValid(['def f():', 'return 1'], 'python'), false, 'missing block');
    assert.equal(looksValid(['x = 1', '    y = 2'], 'python'), false, 'unexpected indent');
    assert.equal(looksValid(['if x:', '        a = 1', '    b = 2'], 'python'), false, 'dedent to no level');
    assert.equal(looksValid(['x = (1,', '     2'], 'python'), false, 'unclosed bracket');
    assert.equal(looksValid(['x = "abc'], 'python'), false, 'unclosed string');
    assert.equal(looksValid(['x = [1, 2)'], 'python'), false, 'mismatched bracket');
    assert.equal(looksValid(['s = """a', '(', '"""', 'd = {', "  'k':", '  1}'], 'python'), true);
    assert.equal(looksValid(['f(a) { /* } */', '  return "}";', '}'], 'brace'), true);
    assert.equal(looksValid(['f(a) {', '  return 1;'], 'brace'), false);
  });
});
